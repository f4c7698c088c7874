package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

func plainSegs(ls []segLine) string {
	var b strings.Builder
	for i, l := range ls {
		if i > 0 {
			b.WriteByte('\n')
		}
		for _, s := range l {
			b.WriteString(s.text)
		}
	}
	return b.String()
}

func TestPrettyPartial(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty object", `{}`, `{}`},
		{"complete", `{"a":1,"b":[true,null]}`, "{\n  \"a\": 1,\n  \"b\": [\n    true,\n    null\n  ]\n}"},
		{"cut in a string", `{"location": "Par`, "{\n  \"location\": \"Par"},
		{"cut after a colon", `{"a":`, "{\n  \"a\": "},
		{"cut in a literal", `{"a":tr`, "{\n  \"a\": tr"},
		{"garbage after", `{"a":1}}x`, "{\n  \"a\": 1\n}\n}x"},
		{"control bytes made safe", "{\"a\":\"\x1b[2J\"}", "{\n  \"a\": \"\\x1b[2J\"\n}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := plainSegs(prettyPartial([]byte(tt.in), -1, -1)); got != tt.want {
				t.Errorf("prettyPartial(%q) = %q; want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestPrettyPartialMarksFragment(t *testing.T) {
	in := `{"location": "Paris, Fr`
	start := strings.Index(in, "is, Fr")
	var marked string
	for _, l := range prettyPartial([]byte(in), start, len(in)) {
		for _, s := range l {
			if s.mark {
				marked += s.text
			}
		}
	}
	if marked != "is, Fr" {
		t.Errorf("marked %q; want %q", marked, "is, Fr")
	}
}

func TestWrapSegs(t *testing.T) {
	l := segLine{{text: "    "}, {text: `"abcdefghijklmnopqrstuvwxyz"`, cls: tokString}, {text: "日本語テキスト", cls: tokString}}
	for w := 1; w < 40; w++ {
		for _, wl := range wrapSegs(l, w) {
			width := 0
			for _, s := range wl {
				width += ansi.StringWidth(s.text)
			}
			if width > w && w > 1 {
				t.Fatalf("wrapSegs at %d made a line %d wide: %q", w, width, plainSegs([]segLine{wl}))
			}
		}
	}
}

func TestEventData(t *testing.T) {
	tests := []struct {
		name, raw, want string
		ok              bool
	}{
		{"sse", "event: x\ndata: {\"a\":1}\n\n", `{"a":1}`, true},
		{"multi-line data", "data: {\"a\":\ndata: 1}\r\n\r\n", "{\"a\":\n1}", true},
		{"no space", "data:[DONE]\n\n", "[DONE]", true},
		{"json line", "{\"a\":1}\n", `{"a":1}`, true},
		{"comment", ": hi\n\n", "", false},
	}
	for _, tt := range tests {
		got, ok := eventData([]byte(tt.raw))
		if string(got) != tt.want || ok != tt.ok {
			t.Errorf("eventData(%q) = %q, %v; want %q, %v", tt.raw, got, ok, tt.want, tt.ok)
		}
	}
}

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

// TestChromaLinesClasses holds the JSON lexer to the classes the styles
// colour: keys, strings, numbers, literals, punctuation, and errors for
// what is not JSON.
func TestChromaLinesClasses(t *testing.T) {
	lines := chromaLines("{\n  \"a\": \"x\\\"y\",\n  \"b\": [1, -2.5e3, true, null]\n} oops")
	want := map[string]tokClass{`"a"`: tokKey, `"x\"y"`: tokString, `-2.5e3`: tokNumber, `true`: tokLiteral, `null`: tokLiteral, `[`: tokPunct, `oops`: tokError}
	got := map[string]tokClass{}
	for _, l := range lines {
		for _, sg := range l {
			got[strings.TrimSpace(sg.text)] = sg.cls
		}
	}
	for text, cls := range want {
		if got[text] != cls {
			t.Errorf("class of %s = %v; want %v (all: %v)", text, got[text], cls, got)
		}
	}
}
