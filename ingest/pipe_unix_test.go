//go:build unix

package ingest

import (
	"os"
	"syscall"
)

// blockingPipe is a pipe whose read end Go reads with blocking calls, as
// it reads a pipe inherited on stdin: no deadline can cut that read.
func blockingPipe() (r, w *os.File, err error) {
	var fds [2]int
	if err := syscall.Pipe(fds[:]); err != nil {
		return nil, nil, err
	}
	return os.NewFile(uintptr(fds[0]), "r"), os.NewFile(uintptr(fds[1]), "w"), nil
}
