package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/samples"
)

// TestEventsExplain: events --explain adds an explain object to every
// line, naming the event's shape and explaining it; without the flag the
// lines are as before.
func TestEventsExplain(t *testing.T) {
	t.Parallel()
	code, out, errs := runCLI(t, nil, "events", "--explain", "--sample", "anthropic-text-then-tool")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 21 {
		t.Fatalf("%d lines; want 21", len(lines))
	}
	for i, l := range lines {
		var ev struct {
			Type    string `json:"type"`
			Explain *struct {
				Shape string   `json:"shape"`
				Does  string   `json:"does"`
				Rules []string `json:"rules"`
			} `json:"explain"`
		}
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		if ev.Explain == nil || ev.Explain.Does == "" || !strings.HasPrefix(ev.Explain.Shape, ev.Type) {
			t.Errorf("line %d (%s): explain %+v; want its shape explained", i, ev.Type, ev.Explain)
		}
	}
	if !strings.Contains(lines[9], `"shape":"content_block_delta/input_json_delta"`) {
		t.Errorf("line 9 = %s; want the input_json_delta explained", lines[9])
	}
	_, plain, _ := runCLI(t, nil, "events", "--sample", "anthropic-text-then-tool")
	if strings.Contains(plain, `"explain"`) {
		t.Error("events without --explain carries explain")
	}
}

// TestTimelineExplain: the plain timeline with --explain explains each
// shape once, under its first event, whether asked for by name or as the
// inspector's output to a pipe.
func TestTimelineExplain(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"timeline", "--explain", "--sample", "chat-parallel-calls"},
		{"--explain", "--sample", "chat-parallel-calls"},
	} {
		code, out, errs := runCLI(t, nil, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		lines := strings.Split(out, "\n")
		var explained []string
		for i, l := range lines {
			if shape, ok := strings.CutPrefix(l, "       explain "); ok {
				explained = append(explained, shape)
				if !strings.HasPrefix(lines[i+1], "         does      ") {
					t.Errorf("%v: %q is followed by %q", args, l, lines[i+1])
				}
			}
		}
		want := []string{"chat.completion.chunk/role", "chat.completion.chunk/tool_calls.first",
			"chat.completion.chunk/tool_calls.continuation", "chat.completion.chunk/finish_reason",
			"chat.completion.chunk/usage", "[DONE]"}
		if strings.Join(explained, "|") != strings.Join(want, "|") {
			t.Errorf("%v explains %q; want %q", args, explained, want)
		}
		if !strings.Contains(out, "-- sample chat-parallel-calls: 18 events") {
			t.Errorf("%v: the summary line is missing:\n%s", args, out)
		}
	}
	_, plain, _ := runCLI(t, nil, "timeline", "--sample", "chat-parallel-calls")
	if strings.Contains(plain, "explain") {
		t.Error("timeline without --explain explains")
	}
}

// TestSamplesListsLessons: streamtap samples prints each sample's name and
// its one-line lesson.
func TestSamplesListsLessons(t *testing.T) {
	t.Parallel()
	code, out, _ := runCLI(t, nil, "samples")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	list := samples.List()
	if len(lines) != len(list) {
		t.Fatalf("%d lines for %d samples:\n%s", len(lines), len(list), out)
	}
	for i, sm := range list {
		name, lesson, _ := strings.Cut(lines[i], " ")
		if name != sm.Name || strings.TrimSpace(lesson) != sm.Lesson {
			t.Errorf("line %d = %q; want %s and its lesson %q", i, lines[i], sm.Name, sm.Lesson)
		}
	}
}

// TestSampleLesson: the inspector is given the lesson of a sample, the
// demo's included, and none for other sources.
func TestSampleLesson(t *testing.T) {
	t.Parallel()
	src, err := sampleSource("chat-single-call")
	if err != nil {
		t.Fatal(err)
	}
	if got := sampleLesson(src); got == "" || got != samples.Lesson("chat-single-call") {
		t.Errorf("sampleLesson(chat-single-call) = %q", got)
	}
	src, err = sampleSource(samples.Default)
	if err != nil {
		t.Fatal(err)
	}
	if got := sampleLesson(src); got != samples.Lesson(samples.Default) {
		t.Errorf("sampleLesson(demo) = %q", got)
	}
	src = capture.FromReader("sample chat-single-call", capture.SourceFile, strings.NewReader(""), false)
	if got := sampleLesson(src); got != "" {
		t.Errorf("sampleLesson(a file) = %q; want none", got)
	}
}
