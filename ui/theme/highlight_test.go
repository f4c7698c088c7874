package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

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
