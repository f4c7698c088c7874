package doc

import "github.com/streamtap/streamtap/ui/internal/uitest"

// What the tests of every ui package share (uitest).
var (
	sampleBytes = uitest.SampleBytes
	newSession  = uitest.NewSession
)

var (
	payloadText = uitest.PayloadText
	jsonString  = uitest.JSONString
)

const size20M = uitest.Size20M
