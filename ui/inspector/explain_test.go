package inspector

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/ui/plain"
	"github.com/streamtap/streamtap/ui/theme"
)

// geminiPartialArgs is a call streamed as Vertex partialArgs, written from
// the format of streamGenerateContent?alt=sse with streamFunctionCallArguments:
// the name with willContinue, the location's value in two pieces, the
// empty functionCall end marker beside finishReason.
const geminiPartialArgs = "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"name\":\"getWeather\",\"willContinue\":true}}]}}],\"modelVersion\":\"gemini-3.1-pro-preview\",\"responseId\":\"dqHOab6x\"}\r\n\r\n" +
	"data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.location\",\"stringValue\":\"Bos\",\"willContinue\":true}],\"willContinue\":true}}]}}],\"responseId\":\"dqHOab6x\"}\r\n\r\n" +
	"data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.location\",\"stringValue\":\"ton\"}],\"willContinue\":true}}]}}],\"responseId\":\"dqHOab6x\"}\r\n\r\n" +
	"data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{}}]},\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":26,\"candidatesTokenCount\":23,\"totalTokenCount\":49},\"responseId\":\"dqHOab6x\"}\r\n\r\n"

// explainCases select one event of each dialect whose explanation the
// goldens show: an argument delta of each.
var explainCases = []struct {
	name, sample, stream string
	ord                  int
	shape                string
}{
	{"responses-args-delta", "responses-parallel-calls", "", 27, "response.function_call_arguments.delta"},
	{"anthropic-input-json-delta", "anthropic-text-then-tool", "", 9, "content_block_delta/input_json_delta"},
	{"chat-tool-calls-continuation", "chat-parallel-calls", "", 2, "chat.completion.chunk/tool_calls.continuation"},
	{"gemini-partial-args", "", geminiPartialArgs, 1, "(gemini chunk)/partialArgs"},
}

func explainModel(t *testing.T, sample, stream string, w, h int) *Model {
	t.Helper()
	data := []byte(stream)
	if sample != "" {
		data = sampleBytes(t, sample)
	}
	source := "sample " + sample
	if sample == "" {
		source = "stream.sse"
	}
	m := newProgram(newSession(data), Options{Source: source})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m
}

// TestExplainGolden draws the detail pane with the explanation on (x) for
// an argument delta of each dialect, at 80×24 and 120×40.
func TestExplainGolden(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		for _, tc := range explainCases {
			t.Run(fmt.Sprintf("%s_%dx%d", tc.name, size[0], size[1]), func(t *testing.T) {
				m := explainModel(t, tc.sample, tc.stream, size[0], size[1])
				m.insp.tl.SelectOrd(tc.ord)
				press(m, "x")
				out := viewOf(m)
				if !strings.Contains(ansi.Strip(out), "explain "+tc.shape) {
					t.Fatalf("the view does not explain %s:\n%s", tc.shape, ansi.Strip(out))
				}
				checkFits(t, out, size[0], size[1])
				if size[0] != 120 {
					out = ansi.Strip(out)
				}
				golden.RequireEqual(t, out)
			})
		}
	}
}

// TestExplainToggle: x shows the explanation under the detail pane (from
// any pane), it follows the selection, and x again hides it.
func TestExplainToggle(t *testing.T) {
	m := explainModel(t, "responses-parallel-calls", "", 120, 40)
	m.insp.tl.SelectOrd(3)
	press(m, "3") // the calls pane
	if strings.Contains(ansi.Strip(viewOf(m)), "explain response.") {
		t.Fatal("an explanation shows before x")
	}
	press(m, "x")
	out := ansi.Strip(viewOf(m))
	if sideName(m) != "detail" || !strings.Contains(out, "explain response.content_part.added") {
		t.Fatalf("after x: side %s; want the detail pane explaining content_part.added:\n%s", sideName(m), out)
	}
	press(m, "1", "j")
	out = ansi.Strip(viewOf(m))
	if !strings.Contains(out, "explain response.output_text.delta") || !strings.Contains(out, "Appends delta to the part's text") {
		t.Fatalf("after moving on: want output_text.delta explained:\n%s", out)
	}
	press(m, "x")
	if out := ansi.Strip(viewOf(m)); strings.Contains(out, "explain response.") {
		t.Fatalf("x again: the explanation still shows:\n%s", out)
	}
}

// TestExplainHelp: x is in the detail pane's help line and the full help.
func TestExplainHelp(t *testing.T) {
	m := explainModel(t, "responses-parallel-calls", "", 120, 40)
	press(m, "2")
	if line := ansi.Strip(lastLines(viewOf(m), 2)); !strings.Contains(line, "x explain event") {
		t.Errorf("detail help line lacks x: %q", line)
	}
	press(m, "?")
	if out := ansi.Strip(viewOf(m)); !strings.Contains(out, "explain event") {
		t.Errorf("full help lacks x:\n%s", out)
	}
}

// TestExplainSmallPane: in a pane too short for the whole explanation at
// its bottom, the explanation goes under the event's header, and scrolling
// the detail pane reaches all of it and the event after it.
func TestExplainSmallPane(t *testing.T) {
	m := explainModel(t, "anthropic-text-then-tool", "", 60, 15)
	m.insp.tl.SelectOrd(9)
	press(m, "x")
	out := ansi.Strip(viewOf(m))
	checkFits(t, viewOf(m), 60, 15)
	if !strings.Contains(out, "#9  content_block_delta") || !strings.Contains(out, "explain content_block_delta/input_json_delta") {
		t.Fatalf("want the event's header, then the explanation:\n%s", out)
	}
	press(m, "tab")
	var seen strings.Builder
	for range 30 {
		seen.WriteString(ansi.Strip(viewOf(m)))
		press(m, "j")
	}
	for _, want := range []string{"anthropic/delta-type-mismatch", `"partial_json"`} {
		if !strings.Contains(seen.String(), want) {
			t.Errorf("scrolling the detail pane never shows %s", want)
		}
	}
}

// TestExplainWidthSweep: the explanation never overflows the pane.
func TestExplainWidthSweep(t *testing.T) {
	for _, h := range []int{15, 24, 40} {
		for w := 60; w <= 160; w += 7 {
			m := explainModel(t, "chat-parallel-calls", "", w, h)
			m.insp.tl.SelectOrd(2)
			press(m, "x")
			checkFits(t, viewOf(m), w, h)
		}
	}
}

// TestExplainSafe: a shape named from the stream reaches the terminal
// escaped.
func TestExplainSafe(t *testing.T) {
	lines := explainLines(model.Shape{Type: "evil\x1b]0;title\x07"}, 60)
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(theme.RenderSegs(l, &theme.Styles{}))
	}
	if strings.ContainsAny(b.String(), "\x1b\x07") {
		t.Errorf("explanation lines carry raw control bytes: %q", b.String())
	}
}

// assembleEach models a stream as the headless commands do, calling each
// with every event as it is added.
func assembleEach(data []byte, each func(s *model.Session, ev *model.Event, ord int, f *capture.Frame)) {
	s := model.NewSession(model.Options{})
	fr := capture.NewFramer(capture.FormatAuto)
	emit := func(f *capture.Frame) { each(s, s.Add(f), s.Len()-1, f) }
	fr.Feed(data, capture.NoTime, emit)
	fr.Finish(capture.NoTime, emit)
}

// TestEventLineExplain: the explain member of an events line names the
// shape and carries its explanation and rules.
func TestEventLineExplain(t *testing.T) {
	var lines []map[string]any
	assembleEach(sampleBytes(t, "anthropic-text-then-tool"), func(s *model.Session, ev *model.Event, ord int, f *capture.Frame) {
		l := plain.NewEventLine(s, ev, ord, f, false)
		l.Explain = plain.NewExplainJSON(s, ev, ord, f.Data)
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, m)
	})
	ex, ok := lines[9]["explain"].(map[string]any)
	if !ok {
		t.Fatalf("line 9 has no explain object: %v", lines[9])
	}
	if ex["shape"] != "content_block_delta/input_json_delta" || !strings.Contains(fmt.Sprint(ex["client"]), "content_block_stop") {
		t.Errorf("explain = %v; want input_json_delta explained", ex)
	}
	if rules, _ := ex["rules"].([]any); len(rules) == 0 || rules[0] != "anthropic/tool-input-invalid-json" {
		t.Errorf("rules = %v", ex["rules"])
	}
	for i, l := range lines {
		if e, _ := l["explain"].(map[string]any); e == nil || e["does"] == "" || e["does"] == nil {
			t.Errorf("line %d: explain %v; want a shape with its explanation", i, l["explain"])
		}
	}
	// Without --explain the member is absent.
	assembleEach([]byte("data: {\"type\":\"ping\"}\n\n"), func(s *model.Session, ev *model.Event, ord int, f *capture.Frame) {
		b, _ := json.Marshal(plain.NewEventLine(s, ev, ord, f, false))
		if bytes.Contains(b, []byte(`"explain"`)) {
			t.Errorf("a line without explain carries it: %s", b)
		}
	})
}

// TestTimelineExplainer: the plain timeline explains each shape under its
// first event only.
func TestTimelineExplainer(t *testing.T) {
	var out bytes.Buffer
	x := plain.NewTimelineExplainer()
	shapes := map[string]bool{}
	assembleEach(sampleBytes(t, "chat-parallel-calls"), func(s *model.Session, ev *model.Event, ord int, f *capture.Frame) {
		if err := plain.WriteTimelineLine(&out, s, ev, ord, capture.NoTime, f.Raw); err != nil {
			t.Fatal(err)
		}
		if err := x.Write(&out, s, ev, ord, f.Data); err != nil {
			t.Fatal(err)
		}
		shapes[s.Shape(ev, ord, f.Data).String()] = true
	})
	text := out.String()
	if got := strings.Count(text, "       explain "); got != len(shapes) {
		t.Errorf("%d explanations for %d shapes:\n%s", got, len(shapes), text)
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "       explain chat.completion.chunk/tool_calls.continuation") {
			if !strings.HasPrefix(lines[i-1], "    2 ") {
				t.Errorf("continuation explained after %q; want under event 2", lines[i-1])
			}
			if !strings.HasPrefix(lines[i+1], "         does      Adds a fragment of a call's arguments") {
				t.Errorf("explanation line = %q", lines[i+1])
			}
		}
	}
	var nilX *plain.TimelineExplainer
	if err := nilX.Write(&out, nil, nil, 0, nil); err != nil {
		t.Error(err)
	}
}

// TestLessonStatusGolden draws the status line of an opened sample with
// its lesson, at 80 and 120 columns; the first key press puts the usual
// status back.
func TestLessonStatusGolden(t *testing.T) {
	const lesson = "Arguments arrive as string fragments; join them, then parse once"
	for _, w := range []int{80, 120} {
		t.Run(fmt.Sprintf("%dx%d", w, map[int]int{80: 24, 120: 40}[w]), func(t *testing.T) {
			m := newProgram(newSession(sampleBytes(t, "chat-single-call")), Options{Source: "sample chat-single-call", Lesson: lesson, Checks: fakeChecks})
			m.Update(tea.WindowSizeMsg{Width: w, Height: map[int]int{80: 24, 120: 40}[w]})
			status := lastLine(viewOf(m))
			if !strings.Contains(ansi.Strip(status), lesson) {
				t.Fatalf("status line %q lacks the lesson", ansi.Strip(status))
			}
			out := status
			if w != 120 {
				out = ansi.Strip(out)
			}
			golden.RequireEqual(t, out)
			press(m, "j")
			if after := ansi.Strip(lastLine(viewOf(m))); strings.Contains(after, "lesson") || !strings.Contains(after, "openai-chat") {
				t.Errorf("after a key the status line is %q; want the usual status", after)
			}
		})
	}
}

// TestLessonGivesWayToError: an error notice takes the status line from
// the lesson.
func TestLessonGivesWayToError(t *testing.T) {
	m := newProgram(newSession(sampleBytes(t, "chat-single-call")), Options{Source: "sample x", Lesson: "a lesson"})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m.Flash("read error: boom", true)
	if got := ansi.Strip(lastLine(viewOf(m))); strings.Contains(got, "a lesson") || !strings.Contains(got, "boom") {
		t.Errorf("status = %q; want the error notice", got)
	}
}

func TestWrapWords(t *testing.T) {
	tests := []struct {
		text string
		w    int
		want []string
	}{
		{"anthropic/delta-type-mismatch, anthropic/delta-unknown-block", 40, []string{"anthropic/delta-type-mismatch,", "anthropic/delta-unknown-block"}},
		{"a fine-grained stream", 12, []string{"a", "fine-grained", "stream"}},
		{"abcdefgh", 3, []string{"abc", "def", "gh"}},
		{"日本", 1, []string{"日", "本"}},
		{"", 5, []string{""}},
	}
	for _, tt := range tests {
		if got := plain.WrapWords(tt.text, tt.w); !slices.Equal(got, tt.want) {
			t.Errorf("wrapWords(%q, %d) = %q; want %q", tt.text, tt.w, got, tt.want)
		}
	}
}

// TestExplainOption: Options.Explain opens the inspector on the detail
// pane with the explanation shown.
func TestExplainOption(t *testing.T) {
	m := newProgram(newSession(sampleBytes(t, "gemini-call")), Options{Source: "sample gemini-call", Explain: true})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	if out := ansi.Strip(viewOf(m)); sideName(m) != "detail" || !strings.Contains(out, "explain (gemini chunk)/") {
		t.Errorf("with Explain: side %s; want the detail pane explaining:\n%s", sideName(m), out)
	}
}
