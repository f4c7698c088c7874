package plain

import (
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

// TestSummaryPathArgs: a Gemini partialArgs row says what its chunk added,
// as every other dialect's delta row does (+"…"), after the path it set;
// a value that is not a string is = value; the end marker in a chunk of
// its own is the call's args done. Before, each row showed the whole
// arguments so far, and the marker's row only the call's name.
func TestSummaryPathArgs(t *testing.T) {
	chunk := func(fc, extra string) string {
		return `data: {"candidates":[{"content":{"role":"model","parts":[{"functionCall":` + fc + `}]}` + extra + `}]}` + "\n\n"
	}
	stream := chunk(`{"name":"getWeather","willContinue":true}`, "") +
		chunk(`{"partialArgs":[{"jsonPath":"$.location","stringValue":"Boston","willContinue":true}],"willContinue":true}`, "") +
		chunk(`{"partialArgs":[{"jsonPath":"$.location","stringValue":""},{"jsonPath":"$.days","numberValue":3}],"willContinue":true}`, "") +
		chunk(`{}`, "") +
		chunk(`{"name":"getTime","args":{}}`, `,"finishReason":"STOP"`)
	s := model.Assemble([]byte(stream), capture.FormatAuto, model.Options{KeepEvents: true})
	want := []string{
		"functionCall getWeather",
		`getWeather $.location +"Boston"`,
		`getWeather $.location +"", $.days = 3`,
		"getWeather args done (30 bytes)",
	}
	for i, w := range want {
		ev := s.Events.At(i)
		if got := Summary(s, ev, i, nil); got != w {
			t.Errorf("Summary(event %d) = %q; want %q", i, got, w)
		}
	}
	// Many values in one chunk: the first few, and how many more.
	var ops []string
	for range 5 {
		ops = append(ops, `{"jsonPath":"$.a","stringValue":"x","willContinue":true}`)
	}
	s = model.Assemble([]byte(chunk(`{"name":"f","willContinue":true}`, "")+chunk(`{"partialArgs":[`+strings.Join(ops, ",")+`],"willContinue":true}`, "")),
		capture.FormatAuto, model.Options{KeepEvents: true})
	if got, w := Summary(s, s.Events.At(1), 1, nil), `f $.a +"x", $.a +"x", $.a +"x" (+2 more)`; got != w {
		t.Errorf("Summary(many values) = %q; want %q", got, w)
	}
}
