package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/termtext"
)

// Every file the commands write goes through createOutput
// (capture.Output): created only over a file that holds nothing unless
// --force, and grown by appends that a failure cuts back, so that a full
// disk or ulimit -f leaves the last whole state (whole reads, whole
// events, whole HAR entries), and the error says what the file holds.

// createOutput creates the file flag (--save, --save-timed, --save-har)
// names, refusing to overwrite one that holds something unless force.
func createOutput(flag, path string, force bool) (*capture.Output, error) {
	out, err := capture.CreateOutput(path, capture.OutputOptions{Force: force})
	var ex *capture.ExistsError
	switch {
	case errors.As(err, &ex):
		return nil, existsError(flag, ex)
	case err != nil:
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	return out, nil
}

// saveTimed makes src also write a timed recording (capture's recording
// format) to o.saveTimed as it is read: every event with its arrival time.
// The returned function closes the file.
func saveTimed(src *capture.Source, o options) (func(), error) {
	f, err := createOutput("--save-timed", o.saveTimed, o.force)
	if err != nil {
		return nil, err
	}
	x := &capture.Exchange{Source: src.Name, HeadAt: capture.NoTime}
	src.Record(capture.NewRecorder(f, x, capture.RecordOptions{Format: o.format, KeepSecrets: o.keepSecrets}))
	return func() { f.Close() }, nil
}

// harFile is the HAR --save-har writes.
type harFile struct {
	f      *capture.Output
	h      *capture.HAR
	stderr io.Writer
	watch  func() bool // stops the signal's watch
}

// createHAR creates the HAR file of --save-har at path. From a shutdown
// signal on, what it writes ends within finishBy of the signal: an entry
// being written that would not is cut (capture.HAR.Hurry), and its close
// says so on stderr.
func createHAR(ctx context.Context, path string, keepSecrets, force bool, stderr io.Writer) (*harFile, error) {
	f, err := createOutput("--save-har", path, force)
	if err != nil {
		return nil, err
	}
	h := &harFile{f: f, h: capture.NewHAR(f, capture.HAROptions{KeepSecrets: keepSecrets, Version: moduleVersion()}), stderr: stderr}
	h.watch = onSignal(ctx, func(se *signalError) {
		h.h.Hurry(se.at.Add(finishBy), signalName(se.sig)+" came")
	})
	return h, nil
}

// close ends the HAR and closes its file; the error names the entries
// not written, if any. Each entry a signal cut is said on stderr.
func (h *harFile) close() error {
	h.watch()
	err := h.h.Close()
	if cerr := h.f.Close(); err == nil {
		err = cerr
	}
	for _, cut := range h.h.Cuts() {
		fmt.Fprintf(h.stderr, "streamtap: --save-har %s: %s\n", termtext.Safe(h.f.Path()), termtext.Safe(cut))
	}
	return err
}

// saveHAR makes src also write a HAR entry to o.saveHAR as it is read;
// the returned function ends the HAR.
func saveHAR(ctx context.Context, src *capture.Source, x *capture.Exchange, o options, stderr io.Writer) (func(), error) {
	h, err := createHAR(ctx, o.saveHAR, o.keepSecrets, o.force, stderr)
	if err != nil {
		return nil, err
	}
	if x == nil {
		x = &capture.Exchange{Source: src.Name, HeadAt: capture.NoTime}
	}
	src.Record(h.h.Entry(x))
	// The entry's own Close (the source's tap) says when it was not
	// written: the command fails with that.
	return func() { _ = h.close() }, nil
}
