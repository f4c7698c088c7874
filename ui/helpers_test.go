package ui

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/samples"
)

// sampleBytes returns an embedded sample.
func sampleBytes(t testing.TB, name string) []byte {
	t.Helper()
	b, err := samples.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// newSession models data held in memory, as a finished stream.
func newSession(data []byte) *model.Session {
	return model.Assemble(data, capture.FormatAuto, model.Options{KeepEvents: true, Raw: bytes.NewReader(data)})
}

// newTestModel opens a finished stream at w×h with stable styles.
func newTestModel(t testing.TB, data []byte, w, h int) *Model {
	t.Helper()
	m := New(newSession(data), Options{Source: "test"})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m
}

func press(m *Model, keys ...string) {
	for _, k := range keys {
		m.Update(keyMsg(k))
	}
}

// keyMsg builds the key press a terminal would send for k.
func keyMsg(k string) tea.KeyPressMsg {
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

func typeText(m *Model, s string) {
	for _, r := range s {
		m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func viewOf(m *Model) string { return m.View().Content }

// paneName names pane i of m by the first word of its title ("detail" for
// "detail (raw)").
func paneName(m *Model, i int) string { return strings.Fields(m.insp.panes[i].title())[0] }

// focusName names the pane that has the keys; sideName the one shown
// beside the timeline.
func focusName(m *Model) string { return paneName(m, m.insp.focus) }
func sideName(m *Model) string  { return paneName(m, m.insp.side) }

// workResult is what a pane's work command returned, out of the
// envelope that addresses it to the pane.
func workResult(msg tea.Msg) tea.Msg {
	if pm, ok := msg.(paneMsg); ok {
		return pm.msg
	}
	return msg
}

// layoutDoc lays out a whole document at once, the reference the lazy
// layout's tests compare with: the panes lay out a screen at a time from
// saved states (doc.go), never a whole document.
func layoutDoc(sp *docSpec) []segLine {
	st := sp.start()
	out := lineOut{keep: true}
	var res []segLine
	for sp.fill(&st, &out) {
		res = append(res, out.segs)
	}
	return res
}

// prettyPartial pretty-prints JSON that may be cut short or invalid, as
// the panes do for arguments as they stream in, the whole text at once.
// The bytes in [markStart, markEnd) are marked: the fragment the selected
// event added.
func prettyPartial(src []byte, markStart, markEnd int) []segLine {
	return layoutDoc(&docSpec{src: src, mode: docJSON, ms: markStart, me: markEnd})
}

// widths are the widths a sweep draws at: every step-th from lo to hi, a
// third of them under -short (the fast loop), and minWidth-1 and minWidth
// always, where the view turns into the one-line notice.
func widths(lo, hi, step int) []int {
	if testing.Short() {
		step *= 3
	}
	var out []int
	for w := lo; w <= hi; w += step {
		out = append(out, w)
	}
	for _, w := range []int{minWidth - 1, minWidth} {
		if lo <= w && w <= hi && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// skipHugeFieldsUnderShort skips a sweep over streams whose fields are 4
// MB strings under -short: it counts a frame's allocations against the
// size, so it can neither shrink the size (a frame allocates about 340 KB
// whatever it shows) nor run beside other tests. The full suite runs it.
func skipHugeFieldsUnderShort(t *testing.T) {
	if testing.Short() {
		t.Skip("4 MB fields skipped under -short; the full suite runs them")
	}
}
