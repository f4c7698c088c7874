package doc

import (
	"strings"
	"testing"

	"github.com/streamtap/streamtap/ui/theme"
)

func plainSegs(ls []theme.Line) string {
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
			if s.Mark {
				marked += s.Text
			}
		}
	}
	if marked != "is, Fr" {
		t.Errorf("marked %q; want %q", marked, "is, Fr")
	}
}
