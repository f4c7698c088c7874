package theme

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestWrapSegs(t *testing.T) {
	l := Line{{Text: "    "}, {Text: `"abcdefghijklmnopqrstuvwxyz"`, Class: TokString}, {Text: "日本語テキスト", Class: TokString}}
	for w := 1; w < 40; w++ {
		for _, wl := range WrapSegs(l, w) {
			width := 0
			for _, s := range wl {
				width += ansi.StringWidth(s.Text)
			}
			if width > w && w > 1 {
				t.Fatalf("wrapSegs at %d made a line %d wide: %q", w, width, plainSegs([]Line{wl}))
			}
		}
	}
}

// TestChromaLinesClasses holds the JSON lexer to the classes the styles
// colour: keys, strings, numbers, literals, punctuation, and errors for
// what is not JSON.
func TestChromaLinesClasses(t *testing.T) {
	lines := ChromaLines("{\n  \"a\": \"x\\\"y\",\n  \"b\": [1, -2.5e3, true, null]\n} oops")
	want := map[string]TokClass{`"a"`: TokKey, `"x\"y"`: TokString, `-2.5e3`: TokNumber, `true`: TokLiteral, `null`: TokLiteral, `[`: TokPunct, `oops`: TokError}
	got := map[string]TokClass{}
	for _, l := range lines {
		for _, sg := range l {
			got[strings.TrimSpace(sg.Text)] = sg.Class
		}
	}
	for text, cls := range want {
		if got[text] != cls {
			t.Errorf("class of %s = %v; want %v (all: %v)", text, got[text], cls, got)
		}
	}
}

// plainSegs is the text of lines, without their classes, a line apiece.
func plainSegs(ls []Line) string {
	var b strings.Builder
	for i, l := range ls {
		if i > 0 {
			b.WriteByte('\n')
		}
		for _, s := range l {
			b.WriteString(s.Text)
		}
	}
	return b.String()
}
