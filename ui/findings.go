package ui

import (
	"fmt"
	"sort"
	"strings"

	"github.com/streamtap/streamtap/model"
)

// Finding is one protocol finding, as the findings pane shows it.
type Finding struct {
	Severity string // "error", "warning" or "info"
	Code     string
	Message  string
	Events   []int // ordinals of the events that show it, in order
}

// Checker computes the findings of a session. It is called from Update
// (the session is not safe for concurrent use) when the stream ends and at
// most once a second while it streams, so it must be linear in the stream.
//
// NOTE(ui): this is the seam for model/checks. main adapts
// checks.Check(s, profile) into a Checker; the ui does not import checks
// so that it builds whether or not that package exists.
type Checker func(s *model.Session) []Finding

// findingsPane lists the findings; selecting one jumps to its first event.
type findingsPane struct {
	st      *styles
	w, h    int
	list    []Finding
	enabled bool // a Checker was given
	cursor  int
	offset  int
}

func (f *findingsPane) setSize(w, h int) { f.w, f.h = w, max(h, 1) }

// set replaces the findings, sorted by first event.
func (f *findingsPane) set(list []Finding) {
	sort.SliceStable(list, func(i, j int) bool { return firstEvent(list[i]) < firstEvent(list[j]) })
	f.list = list
	f.cursor = clamp(f.cursor, 0, max(len(list)-1, 0))
}

func firstEvent(x Finding) int {
	if len(x.Events) == 0 {
		return 1 << 62
	}
	return x.Events[0]
}

// counts returns the number of findings per severity.
func (f *findingsPane) counts() (errs, warns, infos int) {
	for _, x := range f.list {
		switch x.Severity {
		case "error":
			errs++
		case "warning", "warn":
			warns++
		default:
			infos++
		}
	}
	return
}

func (f *findingsPane) move(n int) {
	f.cursor = clamp(f.cursor+n, 0, max(len(f.list)-1, 0))
	if f.cursor < f.offset {
		f.offset = f.cursor
	}
	if f.cursor >= f.offset+f.h {
		f.offset = f.cursor - f.h + 1
	}
}

// selectedEvent is the first event of the selected finding, or -1.
func (f *findingsPane) selectedEvent() int {
	if f.cursor < len(f.list) && len(f.list[f.cursor].Events) > 0 {
		return f.list[f.cursor].Events[0]
	}
	return -1
}

// next returns the next (dir 1) or previous (dir -1) finding event after
// ord, and the finding's index, or -1.
func (f *findingsPane) next(ord, dir int) (int, int) {
	best, bi := -1, -1
	for i, x := range f.list {
		for _, e := range x.Events {
			if dir > 0 && e > ord && (best < 0 || e < best) {
				best, bi = e, i
			}
			if dir < 0 && e < ord && (best < 0 || e > best) {
				best, bi = e, i
			}
		}
	}
	return best, bi
}

func (f *findingsPane) view(focused bool) string {
	st := f.st
	if !f.enabled {
		return strings.Join(block([]string{st.Muted.Render("protocol checks are not available in this build")}, f.w, f.h), "\n")
	}
	if len(f.list) == 0 {
		return strings.Join(block([]string{st.OK.Render(glyphDone + " no findings")}, f.w, f.h), "\n")
	}
	var lines []string
	for i := f.offset; i < len(f.list) && len(lines) < f.h; i++ {
		x := f.list[i]
		sev := st.Status.Info.Render("info ")
		switch x.Severity {
		case "error":
			sev = st.Status.Error.Render(glyphFailed + " err")
		case "warning", "warn":
			sev = st.Status.Warn.Render("! warn")
		}
		evs := ""
		if len(x.Events) > 0 {
			evs = fmt.Sprintf(" #%d", x.Events[0])
			if len(x.Events) > 1 {
				evs += fmt.Sprintf(" (+%d)", len(x.Events)-1)
			}
		}
		line := fit(sev, 7) + " " + st.Calls.Header.Render(Safe(x.Code)) + st.Muted.Render(evs) + "  " + Safe(x.Message)
		if i == f.cursor {
			style := st.Timeline.SelectedBlur
			if focused {
				style = st.Timeline.Selected
			}
			line = style.Render(fit(glyphCursor+stripANSI(line), f.w))
		}
		lines = append(lines, line)
	}
	return strings.Join(block(lines, f.w, f.h), "\n")
}
