package inspector

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/ui/doc"
)

// firstOfType is the ordinal of the first event of type typ, or -1.
func firstOfType(s *model.Session, typ string) int {
	for ord := range s.Len() {
		if s.TypeName(s.Events.At(ord).Type) == typ {
			return ord
		}
	}
	return -1
}

// shownDoc is the document the calls pane lays out for item it's buffer
// buf (0 arguments, 1 text), or nil when it shows none.
func shownDoc(c *callsPane, it *model.Item, buf int) *doc.Layout {
	for k, d := range c.docs {
		if k.it == it && k.buf == buf {
			return d
		}
	}
	return nil
}

const argsDisagree = "sources of the final arguments disagree"

// TestCallsAsOfDoneArgsDiffer walks broken-done-args-differ event by
// event in the calls pane: the main block shows the arguments `calls`
// would report as of the event (the .done's once it has come), the
// disagreement shows from the event that brings the disagreeing .done, and
// a delta's fragment is still marked.
func TestCallsAsOfDoneArgsDiffer(t *testing.T) {
	m := newTestModel(t, sampleBytes(t, "broken-done-args-differ"), 140, 60)
	press(m, "3")
	call := m.insp.s.Items[0]
	done := firstOfType(m.insp.s, "response.function_call_arguments.done")
	if done < 0 || !call.IsCall() {
		t.Fatal("the sample should hold one call and its arguments' .done")
	}
	for ord := range m.insp.s.Len() {
		m.insp.tl.SelectOrd(ord)
		view := plainView(m)
		want := call.FinalArgsAsOf(ord)
		got := ""
		if d := shownDoc(m.insp.calls, call, 0); d != nil {
			got = string(d.Spec.Src)
		}
		if got != want {
			t.Errorf("as of #%d the main arguments are %q; FinalArgsAsOf = %q", ord, got, want)
		}
		if shown := strings.Contains(view, argsDisagree); shown != (ord >= done) {
			t.Errorf("as of #%d the disagreement shown = %v; want %v (the .done is #%d):\n%s", ord, shown, ord >= done, done, view)
		}
		isDelta := m.insp.s.TypeName(m.insp.s.Events.At(ord).Type) == "response.function_call_arguments.delta"
		if isDelta && m.insp.calls.mark < 0 {
			t.Errorf("as of delta #%d no fragment is marked", ord)
		}
	}
}

// TestCallsAsOfDoneArgsGolden draws the calls pane at the event that
// brings the disagreeing .done: the .done's arguments, and the sources
// side by side as of that event (the deltas and the .done; the snapshots
// after it are not there yet).
func TestCallsAsOfDoneArgsGolden(t *testing.T) {
	callsAsOfGolden(t, "broken-done-args-differ", "response.function_call_arguments.done")
}

const textDisagree = "sources of the final text disagree"

// TestCallsAsOfTextDiffer walks broken-sequence-gap, whose deltas lost
// words that the message's .done events state: from the output_text.done
// on, the calls pane shows the text sources side by side as of the event,
// titled by the sources and events that state each value; the main block
// keeps the text `calls` reports.
func TestCallsAsOfTextDiffer(t *testing.T) {
	m := newTestModel(t, sampleBytes(t, "broken-sequence-gap"), 140, 60)
	press(m, "3")
	var msg *model.Item
	for _, it := range m.insp.s.Items {
		if it.Role == model.RoleMessage {
			msg = it
		}
	}
	done := firstOfType(m.insp.s, "response.output_text.done")
	if msg == nil || done < 0 {
		t.Fatal("the sample should hold a message and its output_text.done")
	}
	for ord := range m.insp.s.Len() {
		m.insp.tl.SelectOrd(ord)
		view := plainView(m)
		if d := shownDoc(m.insp.calls, msg, 1); d != nil && string(d.Spec.Src) != string(msg.FinalTextAsOf(ord)) {
			t.Errorf("as of #%d the main text is %q; FinalTextAsOf = %q", ord, d.Spec.Src, msg.FinalTextAsOf(ord))
		}
		if shown := strings.Contains(view, textDisagree); shown != (ord >= done) {
			t.Errorf("as of #%d the text disagreement shown = %v; want %v (output_text.done is #%d):\n%s", ord, shown, ord >= done, done, view)
		}
		if ord == done {
			for _, want := range []string{fmt.Sprintf("text_done #%d", done), "deltas #9", "Sure, checking the forecast"} {
				if !strings.Contains(view, want) {
					t.Errorf("as of #%d the side-by-side lacks %q:\n%s", ord, want, view)
				}
			}
			if strings.Contains(view, "item_done") {
				t.Errorf("as of #%d output_item.done has not come yet:\n%s", ord, view)
			}
		}
	}
}

// TestCallsAsOfTextGolden draws the calls pane of broken-sequence-gap at
// its output_text.done.
func TestCallsAsOfTextGolden(t *testing.T) {
	callsAsOfGolden(t, "broken-sequence-gap", "response.output_text.done")
}

// callsAsOfGolden draws the calls pane of a sample at the first event of
// type typ, at 80×24 (colours stripped) and 120×40 (in colour).
func callsAsOfGolden(t *testing.T, sample, typ string) {
	t.Helper()
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			m := newTestModel(t, sampleBytes(t, sample), size[0], size[1])
			m.insp.tl.SelectOrd(firstOfType(m.insp.s, typ))
			press(m, "3")
			out := viewOf(m)
			checkFits(t, out, size[0], size[1])
			if size[0] != 120 {
				out = ansi.Strip(out)
			}
			golden.RequireEqual(t, out)
		})
	}
}

// TestCallsAsOfToolRunGolden draws the calls pane of aisdk-ui-two-steps at
// its finish: the call done, then run, its output under its arguments.
func TestCallsAsOfToolRunGolden(t *testing.T) {
	callsAsOfGolden(t, "aisdk-ui-two-steps", "finish")
}

// TestCallsToolRunAsOf: the output shows from the event that brought it,
// never before.
func TestCallsToolRunAsOf(t *testing.T) {
	m := newTestModel(t, sampleBytes(t, "aisdk-ui-call-output"), 140, 60)
	press(m, "3")
	out := firstOfType(m.insp.s, "tool-output-available")
	for _, ord := range []int{out - 1, out} {
		m.insp.tl.SelectOrd(ord)
		if got := strings.Contains(plainView(m), `output {"city":"Lisbon","celsius":19,"sky":"clear"}`); got != (ord == out) {
			t.Errorf("as of #%d the output shows: %v; want %v", ord, got, ord == out)
		}
	}
}

// TestCallsOutputOrder: the calls pane lists the items in output order,
// as the lanes pane does: the reasoning the model wrote before its call
// comes first (it listed calls first whatever the order), and the
// reasoning wraps between words. Drawn at 80×24 and 160×45 at the last
// event.
func TestCallsOutputOrder(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 45}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			m := newTestModel(t, sampleBytes(t, "responses-reasoning-then-call"), size[0], size[1])
			press(m, "G", "3")
			out := viewOf(m)
			checkFits(t, out, size[0], size[1])
			v := ansi.Strip(out)
			r, c := strings.Index(v, "reasoning  "), strings.Index(v, "● ")
			if c < 0 {
				c = strings.Index(v, "✓ search_flights")
			}
			if r < 0 || c < 0 || r > c {
				t.Errorf("the reasoning (output 0) should come before the call (output 1):\n%s", v)
			}
			if strings.Contains(v, "(NRT) i\n") {
				t.Errorf("the reasoning wraps mid-word:\n%s", v)
			}
			golden.RequireEqual(t, v)
		})
	}
}
