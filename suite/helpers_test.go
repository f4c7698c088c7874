package suite

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/samples"
)

// verdictOf checks data as the file path holds it, as check does with
// --output-format sarif or github: the checks and Positions observe the
// session, and the cited events are located in the bytes.
func verdictOf(t *testing.T, path string, data []byte, failOn checks.Severity) Verdict {
	t.Helper()
	opts, c := checks.Attach(model.Options{})
	pos := new(Positions)
	opts = opts.WithObserver(pos)
	s := model.Assemble(data, capture.FormatAuto, opts)
	rep := c.Report(s, checks.Strict)
	v := Verdict{Input: path, File: path, Report: rep, Last: s.Len() - 1}
	v.OutcomeFails = checks.OutcomeFails(rep.Outcome.State)
	v.Pass = !rep.Fails(failOn) && !v.OutcomeFails
	places, err := pos.Locate(bytes.NewReader(data), s.Bytes(), v.Cited())
	if err != nil {
		t.Fatal(err)
	}
	v.Places = places
	return v
}

// sampleFile writes an embedded sample into dir and returns its path and
// bytes.
func sampleFile(t *testing.T, dir, name string) (string, []byte) {
	t.Helper()
	data, err := samples.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, data
}

// hostile is text that a terminal would obey (an escape sequence, a C1
// control, a bidi override, a bare CR and LF) and that each format must
// escape (XML's < & ]]>, the workflow commands' % : , ::).
const hostile = "a\x1b]0;owned\x07 b\u009b31m c\u202e d\r\ne <x> & ]]> 100% f::g,h:i \ufffe\uffff ##[error]j\n::warning::k"
