package cli

import (
	"errors"
	"fmt"

	"github.com/streamtap/streamtap/capture"
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
	f *capture.Output
	h *capture.HAR
}

// createHAR creates the HAR file of --save-har at path.
func createHAR(path string, keepSecrets, force bool) (*harFile, error) {
	f, err := createOutput("--save-har", path, force)
	if err != nil {
		return nil, err
	}
	return &harFile{f: f, h: capture.NewHAR(f, capture.HAROptions{KeepSecrets: keepSecrets, Version: moduleVersion()})}, nil
}

// close ends the HAR and closes its file; the error names the entries
// not written, if any.
func (h *harFile) close() error {
	err := h.h.Close()
	if cerr := h.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// saveHAR makes src also write a HAR entry to o.saveHAR as it is read;
// the returned function ends the HAR.
func saveHAR(src *capture.Source, x *capture.Exchange, o options) (func(), error) {
	h, err := createHAR(o.saveHAR, o.keepSecrets, o.force)
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
