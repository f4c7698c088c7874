package plain

import "github.com/streamtap/streamtap/ui/internal/uitest"

// What the tests of every ui package share (uitest).
var (
	sampleBytes = uitest.SampleBytes
	newSession  = uitest.NewSession
)
