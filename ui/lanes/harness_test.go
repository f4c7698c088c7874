package lanes

import "github.com/streamtap/streamtap/ui/internal/uitest"

// What the tests of every ui package share (uitest).
var (
	newSession = uitest.NewSession
)

var synthStream = uitest.SynthStream
