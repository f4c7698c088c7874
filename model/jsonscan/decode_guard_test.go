//go:build linux

package jsonscan

import (
	"bytes"
	"syscall"
	"testing"
)

// TestDecodeReadsNoFurtherThanItsLimit puts a string's tail behind a page
// that faults when read: decode with a limit must copy its runs without
// looking past the limit. Seeking each run to the string's end made
// EqualDecoded, which decodes 4 KiB at a time, quadratic in the string
// (a 20 MB argument stated twice: 18 s where 0.4 s was enough).
func TestDecodeReadsNoFurtherThanItsLimit(t *testing.T) {
	page := syscall.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 2*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skip("mmap:", err)
	}
	defer syscall.Munmap(mem)
	copy(mem, bytes.Repeat([]byte("abcdefgh"), 2*page/8))
	if err := syscall.Mprotect(mem[page:], syscall.PROT_NONE); err != nil {
		t.Skip("mprotect:", err)
	}
	for _, limit := range []int{1, 7, 8, 100, page - 64} {
		for _, at := range []int{0, 3} { // the runs aligned to 8 bytes and not
			out, n := decode(nil, mem[at:], limit)
			if len(out) != limit || n != limit || !bytes.Equal(out, mem[at:at+limit]) {
				t.Errorf("decode(limit %d, from %d) = %d bytes, consumed %d; want %d", limit, at, len(out), n, limit)
			}
		}
	}
}

// TestEqualDecodedLong compares strings longer than EqualDecoded's block,
// plain runs around escapes, against their decoded forms and near misses.
func TestEqualDecodedLong(t *testing.T) {
	long := bytes.Repeat([]byte("w0000001 "), 3000)
	raw := append(append([]byte(`"\"`), long...), `\u00e9\n"`...)
	want := append(append([]byte(`"`), long...), "é\n"...)
	if !EqualDecoded(raw, want) {
		t.Error("EqualDecoded = false for a long string and its decoded form")
	}
	for _, bad := range [][]byte{want[:len(want)-1], append(bytes.Clone(want), 'x'), bytes.Replace(want, []byte("1 "), []byte("2 "), 1)} {
		if EqualDecoded(raw, bad) {
			t.Errorf("EqualDecoded = true against a string %d bytes long that differs", len(bad))
		}
	}
}
