package model

import (
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model/internal/modeltest"
)

// The builders of the internal tests (those that read the core's
// unexported state); the external ones (package model_test) have their own
// sse and assemble, in fuzz_test.go and assemble_test.go.

// sse joins data lines into an SSE stream, one event per line.
var sse = modeltest.SSE

// assemble models the stream in, keeping its events.
func assemble(t *testing.T, in string) *Session {
	t.Helper()
	return Assemble([]byte(in), capture.FormatAuto, Options{KeepEvents: true})
}

// dialectOf returns the registered dialect named name (register_test.go
// registers them all), DialectUnknown when none is.
func dialectOf(name string) Dialect {
	d, _ := Lookup(name)
	return d
}
