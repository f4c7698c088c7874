//go:build !unix

package ingest

import "os"

// blockingPipe is a plain pipe where no blocking one can be made.
func blockingPipe() (r, w *os.File, err error) { return os.Pipe() }
