package inspector

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// rowOf is the timeline row of event ord in a plain view of m (the
// pane's rows start with the gutter, then the ordinal).
func rowOf(t *testing.T, m *Model, ord int) string {
	t.Helper()
	m.insp.tl.SelectOrd(ord)
	re := regexp.MustCompile(fmt.Sprintf(`^..\s*%d `, ord))
	for _, l := range timelineLines(m)[1:] {
		if re.MatchString(l) {
			return l
		}
	}
	t.Fatalf("no row for event %d:\n%s", ord, strings.Join(timelineLines(m), "\n"))
	return ""
}

// TestRowsSayWhatTheEventIs holds the rows issue 19 found mislabelled, at
// the sizes it found them: each row names the event it is.
func TestRowsSayWhatTheEventIs(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 60}} {
		w, h := size[0], size[1]
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			// A summary delta is no reasoning_text delta, at any width.
			m := newTestModel(t, sampleBytes(t, "responses-reasoning-then-call"), w, h)
			for _, ord := range []int{3, 4} {
				row := rowOf(t, m, ord)
				if strings.Contains(row, "reasoning_text") || strings.Contains(row, "reasoning_part") {
					t.Errorf("event %d (a reasoning summary event) reads as another type: %q", ord, row)
				}
			}
			if row := rowOf(t, m, 4); w >= 200 && !strings.Contains(row, "reasoning_summary_text.delta") {
				t.Errorf("at %d columns the type has room to show whole: %q", w, row)
			}

			// The event's own id, with the change marked.
			m = newTestModel(t, sampleBytes(t, "broken-item-id-changes"), w, h)
			if row := rowOf(t, m, 12); !strings.Contains(row, "ok4d → fc_68e78827…0865") {
				t.Errorf("event 12 renames the item: its row should show old → new: %q", row)
			}

			// A Gemini chunk carrying a whole call says so.
			m = newTestModel(t, sampleBytes(t, "gemini-call"), w, h)
			if row := rowOf(t, m, 2); !strings.Contains(row, "call get_weather (44 B) · finish STOP") {
				t.Errorf("gemini chunk 2 carries get_weather whole: %q", row)
			}

			// Chat and Ollama rows name their shape, not the one constant type.
			m = newTestModel(t, sampleBytes(t, "chat-single-call"), w, h)
			for ord, want := range map[int]string{0: "tool_calls.first", 1: "tool_calls.continuation", 8: "finish_reason"} {
				if row := rowOf(t, m, ord); !strings.Contains(row, want) || strings.Contains(row, "chunk") {
					t.Errorf("chat chunk %d should read %s: %q", ord, want, row)
				}
			}
			m = newTestModel(t, sampleBytes(t, "ollama-chat-tool-calls"), w, h)
			if tl := strings.Join(timelineLines(m), "\n"); strings.Contains(tl, "(ollama chat)") {
				t.Errorf("ollama rows repeat their constant type:\n%s", tl)
			}
		})
	}
}

// TestRowsKeepOneIDWidth: every row of a screen names items with the same
// part of their ids, whatever the length of the fragment beside it.
func TestRowsKeepOneIDWidth(t *testing.T) {
	full := regexp.MustCompile(`fc_68e78674…[0-9a-f]{4}`)
	short := regexp.MustCompile(`(^|\s)…[0-9a-f]{4}\s`)
	for _, w := range []int{60, 80, 100, 120, 160, 200} {
		m := newTestModel(t, sampleBytes(t, goldenSample), w, 40)
		m.insp.tl.SelectOrd(27)
		forms := map[string]int{}
		for _, l := range timelineLines(m)[1:] {
			switch {
			case full.MatchString(l):
				forms["full"]++
			case short.MatchString(l):
				forms["short"]++
			}
		}
		if len(forms) > 1 {
			t.Errorf("at %d columns the rows mix id widths %v:\n%s", w, forms, strings.Join(timelineLines(m), "\n"))
		}
	}
}

// TestTimelineTitleNumbersAsTheRows: the title names the selected event by
// the number its row shows.
func TestTimelineTitleNumbersAsTheRows(t *testing.T) {
	m := newTestModel(t, sampleBytes(t, goldenSample), 80, 24)
	press(m, ":", "2", "7", "enter")
	if got := m.insp.tl.Status(); !strings.HasPrefix(got, "#27 ") {
		t.Errorf(":27 selects event #27; the title says %q", got)
	}
	if row := rowOf(t, m, 27); !strings.Contains(row, "27") {
		t.Fatal(row)
	}
}
