package capture

// This file is the one way streamtap writes a file the user named or
// will read: --save, --save-timed, --save-har, the proxy's recordings,
// the inspector's w. Each grows by appends, and an append either lands
// whole or leaves nothing of itself: when a write fails (a full disk,
// ulimit -f, a quota), the file is cut back to where it ended before, so
// that it holds the last whole state (every read saved so far, every
// event recorded so far, every HAR entry written so far) and never half
// of the next one. A process killed inside a write (SIGKILL, a crash)
// cannot cut back: a stream's file then ends in a cut read, which
// every reader of streams takes, and a HAR has a complete document in
// front of the cut entry (see HAR), which streamtap reads and repairs.
//
// Why appends, not a temporary file renamed into place after each
// write: the proxy writes one HAR for hours, an entry per session, and
// a rename needs the whole file written again each time (quadratic: a
// 300 MB HAR after 3,000 sessions is 450 GB written); and a live
// stream's --save would not exist under its name until the end.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// OutputOptions say how CreateOutput treats what is already at the path.
type OutputOptions struct {
	// Force overwrites a regular file that exists and is not empty;
	// without it CreateOutput refuses with an *ExistsError. An empty file
	// (mktemp's) or anything but a regular file (/dev/null, a FIFO) is
	// written to either way.
	Force bool
	// New makes a new file, failing when anything is at the path
	// (O_EXCL): a file streamtap names itself (the proxy's recordings).
	New bool
}

// ExistsError is CreateOutput's refusal to overwrite a file.
type ExistsError struct {
	Path string
	Size int64
}

func (e *ExistsError) Error() string {
	return fmt.Sprintf("%s exists (%d bytes): it would be overwritten", e.Path, e.Size)
}

// Output is a file being written by appends that never leave part of
// themselves (see the top of this file). Write is its io.Writer: the
// first error is sticky. Append is the same without the stickiness, for a
// writer that can go on after a failed piece (a HAR's next entry). An
// Output is not safe for concurrent use.
type Output struct {
	f       *os.File
	path    string
	regular bool  // a regular file: appends are cut back when they fail
	size    int64 // the file's length: where the next append goes
	err     error // Write's sticky error

	// failAt, for tests, is the size past which a write fails with
	// ENOSPC after writing up to it, as a full disk does; 0 never.
	failAt int64
}

// CreateOutput opens path for writing from its start, as opt says.
func CreateOutput(path string, opt OutputOptions) (*Output, error) {
	flags := os.O_WRONLY | os.O_CREATE
	if opt.New {
		flags |= os.O_EXCL
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	o := &Output{f: f, path: path, regular: st.Mode().IsRegular()}
	if o.regular && st.Size() > 0 {
		if !opt.Force {
			f.Close()
			return nil, &ExistsError{Path: path, Size: st.Size()}
		}
		if err := f.Truncate(0); err != nil {
			f.Close()
			return nil, err
		}
	}
	return o, nil
}

// Path is the path the Output was created at.
func (o *Output) Path() string { return o.path }

// Size is how many bytes the file holds: every append that succeeded.
func (o *Output) Size() int64 { return o.size }

// Write appends p whole, or nothing of it (see Append); after an error it
// writes nothing more and returns that error again.
func (o *Output) Write(p []byte) (int, error) {
	if o.err != nil {
		return 0, o.err
	}
	if err := o.Append(p); err != nil {
		o.err = err
		return 0, err
	}
	return len(p), nil
}

// Append writes p at the end of the file. When the write fails, a
// regular file is cut back to the length it had, and the error (an
// *OutputError) says what it holds; anything else (a pipe, a terminal)
// cannot take back what it got.
func (o *Output) Append(p []byte) error {
	if !o.regular {
		_, err := o.f.Write(p)
		if err != nil {
			return &OutputError{Path: o.path, Err: unwrapPath(err), Kept: -1}
		}
		o.size += int64(len(p))
		return nil
	}
	n, err := o.writeAt(p, o.size)
	if err == nil {
		o.size += int64(n)
		return nil
	}
	// Cut back whatever n says: os.File.WriteAt does not count the bytes
	// of the write(2) that failed, which may have landed (up to ulimit -f).
	if terr := o.f.Truncate(o.size); terr != nil {
		return &OutputError{Path: o.path, Err: unwrapPath(err), Kept: -1, Cut: terr}
	}
	return &OutputError{Path: o.path, Err: unwrapPath(err), Kept: o.size}
}

// unwrapPath is the error a *fs.PathError wraps: OutputError names the
// path itself.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// writeAt is WriteAt, failing as a full disk would past failAt.
func (o *Output) writeAt(p []byte, off int64) (int, error) {
	if o.failAt > 0 && off+int64(len(p)) > o.failAt {
		n, err := o.f.WriteAt(p[:max(o.failAt-off, 0)], off)
		if err == nil {
			err = syscall.ENOSPC
		}
		return n, err
	}
	return o.f.WriteAt(p, off)
}

// patch overwrites len(p) bytes of the file at off, inside what it holds
// (a HAR's closing brackets). The file is regular.
func (o *Output) patch(p []byte, off int64) error {
	if off+int64(len(p)) > o.size {
		return fmt.Errorf("patch %d bytes at %d of %d", len(p), off, o.size)
	}
	if _, err := o.writeAt(p, off); err != nil {
		return &OutputError{Path: o.path, Err: unwrapPath(err), Kept: -1}
	}
	return nil
}

// cut cuts the file back to size n (a HAR entry whose patch failed).
func (o *Output) cut(n int64) error {
	if err := o.f.Truncate(n); err != nil {
		return err
	}
	o.size = n
	return nil
}

// Close closes the file, and returns the error Write stopped at, if any.
func (o *Output) Close() error {
	err := o.f.Close()
	if o.err != nil {
		return o.err
	}
	return err
}

// OutputError is a failed append: why, and what the file holds since.
type OutputError struct {
	Path string
	Err  error
	// Kept is the file's length after it: every append before the one
	// that failed, whole; -1 when unknown (a pipe; a file that could not
	// be cut back, see Cut).
	Kept int64
	Cut  error // why the file could not be cut back, or nil
}

func (e *OutputError) Error() string {
	switch {
	case e.Cut != nil:
		return fmt.Sprintf("write %s: %v (and cutting off the part written failed: %v; the file ends in a cut piece)", e.Path, e.Err, e.Cut)
	case e.Kept >= 0:
		return fmt.Sprintf("write %s: %v (the file keeps the %d bytes written before, whole)", e.Path, e.Err, e.Kept)
	}
	return fmt.Sprintf("write %s: %v", e.Path, e.Err)
}

func (e *OutputError) Unwrap() error { return e.Err }

// appendFile is what a HAR is written into in place (an Output on a
// regular file): appends that leave nothing when they fail, patches
// inside the file, and cutting it back.
type appendFile interface {
	Append(p []byte) error
	Size() int64
	patch(p []byte, off int64) error
	cut(n int64) error
}

// inPlace returns w as a file a HAR can be written into in place, or nil.
func inPlace(w io.Writer) appendFile {
	switch f := w.(type) {
	case *Output:
		if f.regular {
			return f
		}
	case appendFile:
		return f
	}
	return nil
}
