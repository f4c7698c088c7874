package inspector

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// TestLargeEventLaidOutLazily checks that a value over the chroma limit is
// laid out a screen at a time, and still fits.
func TestLargeEventLaidOutLazily(t *testing.T) {
	var b strings.Builder
	b.WriteString(`data: {"type":"response.output_text.done","sequence_number":0,"text":"`)
	for range 3000 {
		b.WriteString(`lorem ipsum \"quoted\" `)
	}
	b.WriteString(`","items":[`)
	for i := range 2000 {
		fmt.Fprintf(&b, `{"i":%d,"ok":true},`, i)
	}
	b.WriteString(`null]}` + "\n\n")
	m := newTestModel(t, []byte(b.String()), 100, 30)
	press(m, "2")
	out := viewOf(m)
	if m.insp.det.doc == nil || m.insp.det.lines != nil {
		t.Fatal("a large value should be laid out lazily, a screen at a time")
	}
	checkFits(t, out, 100, 30)
	press(m, "G")
	if v := ansi.Strip(viewOf(m)); !strings.Contains(v, `"ok": true`) {
		t.Errorf("scrolling down should reach the items:\n%s", v)
	}
	m.Update(tea.WindowSizeMsg{Width: 70, Height: 20})
	checkFits(t, viewOf(m), 70, 20)
}
