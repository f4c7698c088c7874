package plain

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/termtext"
)

// ExplainPart is one labelled part of an explanation, in the order every
// view shows them.
type ExplainPart struct {
	Label string
	Text  string
}

// ExplainParts lists the parts of ex that have text; the rules the
// explanation cites come last.
func ExplainParts(ex model.Explanation) []ExplainPart {
	var out []ExplainPart
	for _, p := range []ExplainPart{
		{"does", ex.Does}, {"fields", ex.Fields}, {"client", ex.Client}, {"pitfalls", ex.Pitfalls},
		{"rules", strings.Join(ex.Rules, ", ")},
	} {
		if p.Text != "" {
			out = append(out, p)
		}
	}
	return out
}

// ExplainLabelWidth is the column explanation text starts at, after the
// longest label ("pitfalls") and two spaces.
const ExplainLabelWidth = 10

// WrapWords breaks text into lines of at most w cells at spaces only:
// rule ids and words such as "fine-grained" stay whole (ansi.Wrap breaks
// at hyphens). A word wider than w is cut.
func WrapWords(text string, w int) []string {
	var out []string
	line := ""
	for _, word := range strings.Fields(text) {
		for ansi.StringWidth(word) > w {
			if line != "" {
				out, line = append(out, line), ""
			}
			head := ansi.Truncate(word, w, "")
			if head == "" { // a rune wider than w: it goes alone
				_, n := utf8.DecodeRuneInString(word)
				head = word[:n]
			}
			out, word = append(out, head), word[len(head):]
		}
		switch {
		case line == "":
			line = word
		case ansi.StringWidth(line)+1+ansi.StringWidth(word) <= w:
			line += " " + word
		default:
			out, line = append(out, line), word
		}
	}
	if line != "" || len(out) == 0 {
		out = append(out, line)
	}
	return out
}

// ExplainJSON is the "explain" member of a `streamtap events --explain`
// line: the event's shape and its explanation. A contract like the rest of
// the line: fields are added, never renamed.
type ExplainJSON struct {
	Shape    string   `json:"shape"`
	Does     string   `json:"does,omitempty"`
	Fields   string   `json:"fields,omitempty"`
	Client   string   `json:"client,omitempty"`
	Pitfalls string   `json:"pitfalls,omitempty"`
	Rules    []string `json:"rules,omitempty"`
}

// NewExplainJSON explains event ord; data is its data (nil when not at
// hand). A shape without an explanation gives the shape alone.
func NewExplainJSON(s *model.Session, ev *model.Event, ord int, data []byte) *ExplainJSON {
	sh := s.Shape(ev, ord, data)
	out := &ExplainJSON{Shape: sh.String()}
	if ex, ok := model.Explain(sh); ok {
		out.Does, out.Fields, out.Client, out.Pitfalls, out.Rules = ex.Does, ex.Fields, ex.Client, ex.Pitfalls, ex.Rules
	}
	return out
}

// TimelineExplainer writes explanations under the plain timeline: the
// first event of each shape gets its explanation, indented under its line;
// later events of that shape get none, so a stream of a hundred deltas
// reads like a tutorial rather than the same paragraph a hundred times. A
// nil TimelineExplainer writes nothing. It is not safe for concurrent use.
type TimelineExplainer struct {
	seen map[model.Shape]bool
}

// NewTimelineExplainer returns an explainer that has seen no shape yet.
func NewTimelineExplainer() *TimelineExplainer {
	return &TimelineExplainer{seen: map[model.Shape]bool{}}
}

// timelineExplainIndent puts explanations under the type column's start.
const timelineExplainIndent = "       "

// Write writes the explanation of event ord, when it is the first of its
// shape; data is the event's data (nil when not at hand).
func (x *TimelineExplainer) Write(w io.Writer, s *model.Session, ev *model.Event, ord int, data []byte) error {
	if x == nil {
		return nil
	}
	sh := s.Shape(ev, ord, data)
	if x.seen[sh] {
		return nil
	}
	x.seen[sh] = true
	var b strings.Builder
	fmt.Fprintf(&b, "%sexplain %s\n", timelineExplainIndent, termtext.Safe(sh.String()))
	ex, ok := model.Explain(sh)
	if !ok {
		fmt.Fprintf(&b, "%s  no explanation for this kind of event\n", timelineExplainIndent)
	}
	for _, p := range ExplainParts(ex) {
		fmt.Fprintf(&b, "%s  %-*s%s\n", timelineExplainIndent, ExplainLabelWidth, p.Label, termtext.Safe(p.Text))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
