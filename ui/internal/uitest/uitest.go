// Package uitest holds what the tests of ui's packages share: samples and
// sessions made in memory, key presses and views of a program, the
// checks and Widths the view tests sweep, and streams built to measure
// (synthetic, huge fields, payloads). It is imported by tests only.
package uitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/samples"
	"github.com/streamtap/streamtap/ui/app"
)

// SampleBytes returns an embedded sample.
func SampleBytes(t testing.TB, name string) []byte {
	t.Helper()
	b, err := samples.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// NewSession models data held in memory, as a finished stream.
func NewSession(data []byte) *model.Session {
	return model.Assemble(data, capture.FormatAuto, model.Options{KeepEvents: true, Raw: bytes.NewReader(data)})
}

func Press(m tea.Model, keys ...string) {
	for _, k := range keys {
		m.Update(KeyMsg(k))
	}
}

// KeyMsg builds the key Press a terminal would send for k.
func KeyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	case "ctrl+d":
		return tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl}
	case "ctrl+u":
		return tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "home":
		return tea.KeyPressMsg{Code: tea.KeyHome}
	case "end":
		return tea.KeyPressMsg{Code: tea.KeyEnd}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "ctrl+k":
		return tea.KeyPressMsg{Code: 'k', Mod: tea.ModCtrl}
	}
	r := []rune(k)
	return tea.KeyPressMsg{Code: r[0], Text: k}
}

func TypeText(m tea.Model, s string) {
	for _, r := range s {
		m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func ViewOf(m tea.Model) string { return m.View().Content }

// Widths are the Widths a sweep draws at: every step-th from lo to hi, a
// third of them under -short (the fast loop), and app.MinWidth-1 and app.MinWidth
// always, where the view turns into the one-line notice.
func Widths(lo, hi, step int) []int {
	if testing.Short() {
		step *= 3
	}
	var out []int
	for w := lo; w <= hi; w += step {
		out = append(out, w)
	}
	for _, w := range []int{app.MinWidth - 1, app.MinWidth} {
		if lo <= w && w <= hi && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// SkipHugeFieldsUnderShort skips a sweep over streams whose fields are 4
// MB strings under -short: it counts a frame's allocations against the
// size, so it can neither shrink the size (a frame allocates about 340 KB
// whatever it shows) nor run beside other tests. The full suite runs it.
func SkipHugeFieldsUnderShort(t *testing.T) {
	if testing.Short() {
		t.Skip("4 MB fields skipped under -short; the full suite runs them")
	}
}

// GoldenSample is the stream every pane golden is drawn from: two calls
// whose argument deltas interleave.
const GoldenSample = "responses-parallel-calls"

// FakeChecks stands in for model/checks so the findings pane has content.
func FakeChecks(s *model.Session) []checks.Finding {
	if s.Len() < 30 {
		return nil
	}
	return []checks.Finding{
		{Severity: checks.Warning, Rule: "demo-warning", Events: []int{21, 24}, Message: "an example warning whose message is " +
			"longer than the pane is wide, so it wraps onto the lines below instead of being cut at the edge"},
		{Severity: checks.Error, Rule: "demo-error", Message: "an example error \x1b[2J", Events: []int{29}},
	}
}

// CheckFits fails when the view has more lines than h or a line wider
// than w.
func CheckFits(t *testing.T, out string, w, h int) {
	t.Helper()
	lines := strings.Split(out, "\n")
	if len(lines) > h {
		t.Errorf("view has %d lines; want at most %d", len(lines), h)
	}
	for i, l := range lines {
		if lw := ansi.StringWidth(l); lw > w {
			t.Errorf("line %d is %d cells wide; want at most %d: %q", i, lw, w, ansi.Strip(l))
		}
	}
}

// Frames Frames data, each frame (its Raw bytes too) copied out of the
// framer's buffer.
func Frames(data []byte) []capture.Frame {
	var out []capture.Frame
	fr := capture.NewFramer(capture.FormatAuto)
	emit := func(f *capture.Frame) {
		var g capture.Frame
		f.DetachInto(&g, nil, true)
		out = append(out, g)
	}
	fr.Feed(data, capture.NoTime, emit)
	fr.Finish(capture.NoTime, emit)
	return out
}

// Batch puts Frames in one Batch, as the reader hands them to the
// inspector (ingest.Pump), and wraps it in its message.
func Batch(fs []capture.Frame) tea.Msg {
	b := &model.Batch{KeepRaw: true}
	for i := range fs {
		b.Add(&fs[i], false)
	}
	return app.FramesMsg{Batch: b}
}

func PlainView(m tea.Model) string { return ansi.Strip(ViewOf(m)) }

func LastLine(s string) string { return s[strings.LastIndexByte(s, '\n')+1:] }

// SynthStream writes a Responses stream of about n events: calls of 48
// argument deltas each, one after another.
func SynthStream(n int) []byte {
	var b bytes.Buffer
	seq := 0
	ev := func(typ, body string) {
		fmt.Fprintf(&b, "event: %s\ndata: {\"type\":%q,\"sequence_number\":%d,%s}\n\n", typ, typ, seq, body)
		seq++
	}
	ev("response.created", `"response":{"id":"resp_1","object":"response","status":"in_progress","output":[]}`)
	for call := 0; seq < n-2; call++ {
		id := fmt.Sprintf("fc_%06d", call)
		ev("response.output_item.added", fmt.Sprintf(`"output_index":%d,"item":{"id":%q,"type":"function_call","status":"in_progress","arguments":"","call_id":"call_%06d","name":"get_weather"}`, call, id, call))
		ev("response.function_call_arguments.delta", fmt.Sprintf(`"item_id":%q,"output_index":%d,"delta":"{\"location\": \""`, id, call))
		for i := 0; i < 46 && seq < n-3; i++ {
			ev("response.function_call_arguments.delta", fmt.Sprintf(`"item_id":%q,"output_index":%d,"delta":"abc%d "`, id, call, i))
		}
		ev("response.function_call_arguments.delta", fmt.Sprintf(`"item_id":%q,"output_index":%d,"delta":"\"}"`, id, call))
		ev("response.output_item.done", fmt.Sprintf(`"output_index":%d,"item":{"id":%q,"type":"function_call","status":"completed","call_id":"call_%06d","name":"get_weather"}`, call, id, call))
	}
	ev("response.completed", `"response":{"id":"resp_1","object":"response","status":"completed","output":[]}`)
	return b.Bytes()
}

// AllocatedBy is the number of bytes allocated while f runs.
func AllocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// MessagesOf runs a command and the commands it batches, without feeding
// their messages back.
func MessagesOf(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	switch msg := cmd().(type) {
	case nil:
		return nil
	case tea.BatchMsg:
		var out []tea.Msg
		for _, c := range msg {
			out = append(out, MessagesOf(c)...)
		}
		return out
	default:
		return []tea.Msg{msg}
	}
}

// HugeFieldStream is a Responses stream of a call and a text, an error
// and an event of no known type, where one field holds n bytes of "é":
// the call's name, its ids, the response's model or status, the error's
// code or message, or the type of the unknown event.
func HugeFieldStream(field string, n int) []byte {
	big := strings.Repeat("é", n/2)
	v := map[string]string{"name": "f", "id": "fc_1", "model": "m", "status": "in_progress", "code": "c", "message": "m", "type": "x.y"}
	if _, ok := v[field]; !ok {
		panic("no field " + field)
	}
	v[field] = big
	var b strings.Builder
	add := func(typ, body string) {
		fmt.Fprintf(&b, "event: %s\ndata: {\"type\":\"%s\",%s}\n\n", typ, typ, body)
	}
	resp := fmt.Sprintf(`"response":{"id":"resp_%s","status":"%s","model":"%s","output":[]}`, v["id"], v["status"], v["model"])
	item := func(status string) string {
		return fmt.Sprintf(`"item":{"id":"%s","type":"function_call","status":"%s","arguments":"{}","call_id":"call_%s","name":"%s"}`, v["id"], status, v["id"], v["name"])
	}
	add("response.created", `"sequence_number":0,`+resp)
	add("response.output_item.added", `"sequence_number":1,"output_index":0,`+item("in_progress"))
	add("response.output_item.added", `"sequence_number":2,"output_index":1,"item":{"id":"msg","type":"message","status":"in_progress","content":[]}`)
	add("response.output_text.delta", `"sequence_number":3,"item_id":"msg","output_index":1,"delta":"hi"`)
	add(v["type"], `"sequence_number":4`)
	add("error", fmt.Sprintf(`"sequence_number":5,"code":"%s","message":"%s"`, v["code"], v["message"]))
	add("response.output_item.done", `"sequence_number":6,"output_index":0,`+item(v["status"]))
	add("response.completed", `"sequence_number":7,`+resp)
	return []byte(b.String())
}

// PayloadText is n bytes of JSON-safe text that starts with "BEGIN-" and
// ends with "-END" when there is room for both, with numbered words in
// between so that every part of it looks different.
func PayloadText(n int) string {
	if n < 16 {
		return strings.Repeat("x", n)
	}
	b := make([]byte, 0, n+16)
	b = append(b, "BEGIN-"...)
	for i := 0; len(b) < n-4; i++ {
		// "w%07d ", without fmt: fmt cost most of making a 50 MB payload.
		b = append(b, 'w')
		for d := 1_000_000; d > 1 && i < d; d /= 10 {
			b = append(b, '0')
		}
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, ' ')
	}
	return string(append(b[:n-4], "-END"...))
}

// JSONString is s as a JSON string, byte for byte what json.Marshal
// makes. Printable ASCII (with line breaks and tabs), what the payloads
// are made of, is quoted by hand: json.Marshal cost a good part of making
// a 50 MB payload.
func JSONString(s string) string {
	n := 2
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
			n += 2
		case c < 0x20 || c > 0x7e || c == '<' || c == '>' || c == '&':
			q, _ := json.Marshal(s) // \u00XX escapes, UTF-8 checks
			return string(q)
		default:
			n++
		}
	}
	b := make([]byte, 0, n)
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, c)
		}
	}
	return string(append(b, '"'))
}

// StrictChecks judges s as `streamtap check` does by default (what
// ui.StrictChecks is).
func StrictChecks(s *model.Session) []checks.Finding { return checks.Check(s, checks.Strict).Findings }

// Size20M is the big payload a view is measured at.
const Size20M = 20_000_000
