package capture

import (
	"io"
	"sync"
)

// storeBlock is the size of one block of a Store. Fixed blocks mean growth
// never copies what is already kept.
const storeBlock = 1 << 20

// Store keeps the bytes of a stream that cannot be read back from a file
// (a pipe, a live capture), once, so events can point into it by offset
// instead of holding copies. It is safe for one writer and many readers at
// once.
type Store struct {
	mu     sync.RWMutex
	blocks [][]byte
	size   int64
}

// Append adds bytes at the end.
func (s *Store) Append(p []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(p) > 0 {
		if n := len(s.blocks); n == 0 || len(s.blocks[n-1]) == storeBlock {
			s.blocks = append(s.blocks, make([]byte, 0, storeBlock))
		}
		last := &s.blocks[len(s.blocks)-1]
		k := min(storeBlock-len(*last), len(p))
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
		b := s.blocks[off/storeBlock]
		k := copy(p[n:], b[off%storeBlock:])
		n += k
		off += int64(k)
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}
