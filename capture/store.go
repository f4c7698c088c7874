package capture

import (
	"io"
	"math/bits"
	"sync"
)

// storeBlock is the size of a Store's blocks once it has grown: its first
// blocks double from firstBlock up to it. Blocks that are never copied
// mean growth never copies what is already kept; blocks that start small
// mean a short stream keeps a few KiB, not 1 MiB: the proxy's sessions
// list held a Store per session open, and 300 concurrent short sessions
// took 300 MiB of blocks nearly empty.
const (
	storeBlock = 1 << 20
	firstBlock = 4 << 10
	// growBlocks is how many blocks double before they are all storeBlock
	// (4 KiB to 1 MiB), and grown the bytes they hold.
	growBlocks = 9
	grown      = storeBlock*2 - firstBlock
)

// Store keeps the bytes of a stream that cannot be read back from a file
// (a pipe, a live capture), once, so events can point into it by offset
// instead of holding copies. It is safe for one writer and many readers at
// once.
type Store struct {
	mu     sync.RWMutex
	blocks [][]byte
	size   int64
}

// blockSize is the size of block i.
func blockSize(i int) int {
	if i < growBlocks {
		return firstBlock << i
	}
	return storeBlock
}

// blockAt says which block holds offset off, and where in it.
func blockAt(off int64) (int, int64) {
	if off < grown {
		i := bits.Len64(uint64(off/firstBlock+1)) - 1
		return i, off - firstBlock*(1<<i-1)
	}
	off -= grown
	return growBlocks + int(off/storeBlock), off % storeBlock
}

// Append adds bytes at the end.
func (s *Store) Append(p []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(p) > 0 {
		n := len(s.blocks)
		if n == 0 || len(s.blocks[n-1]) == cap(s.blocks[n-1]) {
			s.blocks = append(s.blocks, make([]byte, 0, blockSize(n)))
		}
		last := &s.blocks[len(s.blocks)-1]
		k := min(cap(*last)-len(*last), len(p))
		*last = append(*last, p[:k]...)
		p = p[k:]
		s.size += int64(k)
	}
}

// Size is the number of bytes kept.
func (s *Store) Size() int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.size
}

// ReadAt implements io.ReaderAt.
func (s *Store) ReadAt(p []byte, off int64) (int, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if off < 0 {
		return 0, io.ErrUnexpectedEOF
	}
	n := 0
	for n < len(p) && off < s.size {
		i, at := blockAt(off)
		k := copy(p[n:], s.blocks[i][at:])
		n += k
		off += int64(k)
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}
