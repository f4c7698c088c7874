package cli

import (
	"strings"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/samples"
)

// sampleLesson is the one-line lesson of the sample src reads (the demo
// included), for the inspector's status line; "" for any other source.
func sampleLesson(src *capture.Source) string {
	if src.Kind != capture.SourceSample {
		return ""
	}
	return samples.Lesson(strings.TrimPrefix(src.Name, "sample "))
}
