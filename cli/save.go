package cli

import (
	"fmt"
	"os"

	"github.com/streamtap/streamtap/capture"
)

// saveTimed makes src also write a timed recording (capture's recording
// format) to o.saveTimed as it is read: every event with its arrival time.
// The returned function closes the file.
func saveTimed(src *capture.Source, o options) (func(), error) {
	f, err := os.Create(o.saveTimed)
	if err != nil {
		return nil, fmt.Errorf("save: %w", err)
	}
	x := &capture.Exchange{Source: src.Name, HeadAt: capture.NoTime}
	src.Record(capture.NewRecorder(f, x, capture.RecordOptions{Format: o.format, KeepSecrets: o.keepSecrets}))
	return func() { f.Close() }, nil
}

// harFile is the HAR --save-har writes.
type harFile struct {
	f *os.File
	h *capture.HAR
}

// createHAR creates the HAR file of --save-har at path.
func createHAR(path string, keepSecrets bool) (*harFile, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("save-har: %w", err)
	}
	return &harFile{f: f, h: capture.NewHAR(f, capture.HAROptions{KeepSecrets: keepSecrets, Version: moduleVersion()})}, nil
}

func (h *harFile) close() {
	h.h.Close()
	h.f.Close()
}

// saveHAR makes src also write a HAR entry to o.saveHAR as it is read;
// the returned function ends the HAR.
func saveHAR(src *capture.Source, x *capture.Exchange, o options) (func(), error) {
	h, err := createHAR(o.saveHAR, o.keepSecrets)
	if err != nil {
		return nil, err
	}
	if x == nil {
		x = &capture.Exchange{Source: src.Name, HeadAt: capture.NoTime}
	}
	src.Record(h.h.Entry(x))
	return h.close, nil
}
