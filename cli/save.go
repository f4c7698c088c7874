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
