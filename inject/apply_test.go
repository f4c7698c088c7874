package inject

import (
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/internal/fixtures"
	"github.com/streamtap/streamtap/model/checks"
)

// TestApplyComposes applies defects one after the other and reports each
// one's events in the final output (changed, added) and in the input
// (dropped), whatever the later ones added or dropped.
func TestApplyComposes(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(fixtures.Path("samples/chat-single-call.sse"))
	if err != nil {
		t.Fatal(err)
	}
	// chat-single-call: events 0–8 are chunks (8 finishes), 9 is [DONE].
	ds, err := ParseList("stop-not-tool,comment-as-data,cut-terminal")
	if err != nil {
		t.Fatal(err)
	}
	out, rep, err := Apply(data, ds, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Applied{
		{Defect: "stop-not-tool", Changed: []int{9}}, // event 8, after the comment added at 1
		{Defect: "comment-as-data", Inserted: []int{1}},
		{Defect: "cut-terminal", Removed: []int{9}}, // the input's [DONE]
	}
	for k, w := range want {
		a := rep.Defects[k]
		if a.Defect != w.Defect || !slices.Equal(a.Changed, nonNilInts(w.Changed)) ||
			!slices.Equal(a.Inserted, nonNilInts(w.Inserted)) || !slices.Equal(a.Removed, nonNilInts(w.Removed)) {
			t.Errorf("defect %d = %+v; want %+v", k, a, w)
		}
	}
	r := checks.CheckBytes(out, capture.FormatAuto, checks.Strict)
	for _, rule := range []string{"chat/stop-with-tool-calls", "framing/invalid-json", "chat/done-missing"} {
		if !slices.ContainsFunc(r.Findings, func(f checks.Finding) bool { return f.Rule == rule }) {
			t.Errorf("check of the output lacks %s", rule)
		}
	}
}

func nonNilInts(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}

// TestApplyRefuses: a defect of another dialect, and input with no event.
func TestApplyRefuses(t *testing.T) {
	t.Parallel()
	d, _ := Lookup("crc")
	_, _, err := Apply([]byte("data: {\"choices\":[]}\n\n"), []Defect{d}, Options{})
	var na *NotApplicableError
	if !errors.As(err, &na) || na.Dialect != "openai-chat" {
		t.Errorf("crc on a Chat stream: %v; want a NotApplicableError", err)
	}
	if _, _, err := Apply([]byte(": only a comment\n\n"), []Defect{d}, Options{}); !errors.Is(err, ErrEmpty) {
		t.Errorf("a stream of comments: %v; want ErrEmpty", err)
	}
}

// FuzzApply applies every defect to arbitrary input under arbitrary
// seeds: nothing panics, and whatever Apply writes parses again.
func FuzzApply(f *testing.F) {
	for _, name := range []string{"samples/chat-single-call.sse", "samples/anthropic-text-then-tool.sse",
		"samples/responses-single-call.sse", "samples/bedrock-converse-text-then-tool.eventstream",
		"samples/ollama-chat-tool-calls.sse", "samples/gemini-call.sse"} {
		data, err := os.ReadFile(fixtures.Path(name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint8(0), uint64(0))
		f.Add(data, uint8(40), uint64(3))
	}
	defects := Defects()
	f.Fuzz(func(t *testing.T, data []byte, which uint8, seed uint64) {
		d := defects[int(which)%len(defects)]
		out, _, err := Apply(data, []Defect{d}, Options{Seed: seed})
		if err != nil {
			return
		}
		if _, err := Parse(out); err != nil && !errors.Is(err, ErrEmpty) {
			t.Errorf("%s wrote what does not parse: %v", d.Name, err)
		}
	})
}
