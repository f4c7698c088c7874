package inspector

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/termtext"
	"github.com/streamtap/streamtap/ui/cell"
	"github.com/streamtap/streamtap/ui/keys"
	"github.com/streamtap/streamtap/ui/pane"
	"github.com/streamtap/streamtap/ui/plain"
	"github.com/streamtap/streamtap/ui/theme"
)

// findingsPane lists the findings with their messages wrapped to the pane
// width. Moving onto one shows its first event; enter walks through the
// events it cites.
type findingsPane struct {
	pane.Base
	st      *theme.Styles
	keys    *keys.Map
	host    pane.Host
	w, h    int
	list    []checks.Finding
	enabled bool // Options.Checks was given
	cursor  int
	offset  int // first finding shown

	// cycle is the index, in the selected finding's Events, of the event
	// enter went to last, and landed the timeline row it selected: enter
	// goes on to the next event only while the selection is still there.
	cycle  int
	landed int

	rule ruleView // the selected finding's rule text, shown in place of the list (o)
}

// newFindingsPane returns the findings pane; enabled says the inspector
// runs checks (Options.Checks).
func newFindingsPane(st *theme.Styles, keys *keys.Map, host pane.Host, enabled bool) *findingsPane {
	return &findingsPane{st: st, keys: keys, host: host, enabled: enabled, landed: -1}
}

func (f *findingsPane) Title() string {
	if f.enabled {
		return fmt.Sprintf("findings (%d)", len(f.list))
	}
	return "findings"
}

// Attach drops the findings: the inspector runs the checks on s.
func (f *findingsPane) Attach(*model.Session) {
	*f = findingsPane{st: f.st, keys: f.keys, host: f.host, enabled: f.enabled, landed: -1}
}

func (f *findingsPane) SetSize(w, h int) { f.w, f.h = w, max(h, 1) }

func (f *findingsPane) ShortHelp() []key.Binding {
	k := f.keys
	if f.rule.shown() {
		return []key.Binding{k.Nav.Down, k.Nav.Up, k.Nav.PageDown, k.Inspect.RuleBack}
	}
	return []key.Binding{k.Nav.Down, k.Nav.Up, k.Inspect.Cited, k.Inspect.Rule, k.Inspect.NextFinding, k.Inspect.PrevFinding}
}

func (f *findingsPane) UpdateKeys(focused bool) {
	k := &f.keys.Inspect
	k.Cited.SetEnabled(focused && len(f.list) > 0 && !f.rule.shown())
	k.Rule.SetEnabled(focused && len(f.list) > 0)
	k.RuleBack.SetEnabled(focused && f.rule.shown())
	if k.RuleBack.Enabled() {
		// esc leaves the rule text first: it clears nothing else then.
		f.keys.Search.Clear.SetEnabled(false)
		f.keys.Sessions.Back.SetEnabled(false)
	}
}

// Update moves through the findings, showing each one's first event, and
// on enter walks through the events the selected one cites; o shows the
// selected one's rule text, which the navigation keys then scroll, until
// o again (or esc, which the inspector routes here).
func (f *findingsPane) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	switch {
	case key.Matches(k, f.keys.Inspect.Rule):
		if f.rule.shown() || f.cursor >= len(f.list) {
			f.rule.close()
		} else {
			f.rule.open(f.list[f.cursor].Rule)
		}
		return nil
	case f.rule.shown():
		if delta, ok := keys.NavDelta(f.keys, k, f.h); ok {
			f.rule.scroll(f.st, cell.Clamp(delta, -1<<20, 1<<20), f.w, f.h)
		}
		return nil
	case key.Matches(k, f.keys.Inspect.Cited):
		return f.jumpCited()
	}
	delta, ok := keys.NavDelta(f.keys, k, f.h)
	if !ok {
		return nil
	}
	f.move(cell.Clamp(delta, -len(f.list), len(f.list)))
	if e := f.selectedEvent(); e >= 0 {
		f.host.SelectEvent(e)
		f.landedOn(f.host.Selected())
	}
	return nil
}

// jumpCited selects the next event the selected finding cites: its first,
// then on each enter the one after, around again at the end.
func (f *findingsPane) jumpCited() tea.Cmd {
	h := f.host
	e := f.nextCited(h.Selected())
	if e < 0 {
		return h.Flash("this finding cites no event", false)
	}
	h.SelectEvent(e)
	f.landedOn(h.Selected())
	if h.Selected() != e {
		return h.Flash(fmt.Sprintf("event %d is hidden by the filter: showing #%d", e, h.Selected()), true)
	}
	return nil
}

// Wheel moves through the findings without moving the selection, or
// scrolls the rule text shown.
func (f *findingsPane) Wheel(delta int) {
	if f.rule.shown() {
		f.rule.scroll(f.st, delta, f.w, f.h)
		return
	}
	f.move(delta)
}

// set replaces the findings, in the order the report gives them (as
// `streamtap check` prints them): by severity, then by the event that
// tells each apart.
func (f *findingsPane) set(list []checks.Finding) {
	f.list = list
	f.cursor = cell.Clamp(f.cursor, 0, max(len(list)-1, 0))
}

// counts returns the number of findings per severity.
func (f *findingsPane) counts() (errs, warns, infos int) {
	for _, x := range f.list {
		switch theme.SeverityOf(x.Severity) {
		case theme.SevError:
			errs++
		case theme.SevWarning:
			warns++
		default:
			infos++
		}
	}
	return
}

// move selects the finding n below (or above) the selected one.
func (f *findingsPane) move(n int) {
	f.cursor = cell.Clamp(f.cursor+n, 0, max(len(f.list)-1, 0))
	f.cycle, f.landed = 0, -1
	if f.cursor < len(f.list) {
		f.cycle = max(slices.Index(f.list[f.cursor].Events, f.list[f.cursor].Key()), 0)
	}
}

// selectedEvent is the event that tells the selected finding apart
// (checks.Finding.Key), or -1.
func (f *findingsPane) selectedEvent() int {
	if f.cursor < len(f.list) {
		return f.list[f.cursor].Key()
	}
	return -1
}

// nextCited returns the event enter should go to: the one after the event
// it went to last while the timeline still selects the row it landed on,
// else the first. It returns -1 when the selected finding cites no event.
// The caller records where the timeline landed with landedOn.
func (f *findingsPane) nextCited(selected int) int {
	if f.cursor >= len(f.list) || len(f.list[f.cursor].Events) == 0 {
		return -1
	}
	evs := f.list[f.cursor].Events
	if f.landed >= 0 && selected == f.landed {
		f.cycle = (f.cycle + 1) % len(evs)
	} else {
		f.cycle = max(slices.Index(evs, f.list[f.cursor].Key()), 0)
	}
	return evs[f.cycle]
}

// landedOn records the timeline row selected after showing the cycle'th
// event of the selected finding.
func (f *findingsPane) landedOn(selected int) { f.landed = selected }

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

// maxEventsShown bounds the event numbers listed in a finding's first line;
// the rest are counted.
const maxEventsShown = 8

// findingMessageMax bounds, in bytes, the message the pane wraps: screens
// of it at any width, while a message that quotes a hostile stream's 4 MB
// name would be wrapped whole on every frame. `check` prints it whole.
const findingMessageMax = 4096

// entry renders finding i: a line with its severity, rule and events, then
// its whole message wrapped to the pane. The lines hold no cursor column;
// sel is the selected event, shown marked in the list of events.
func (f *findingsPane) entry(i, sel int) []string {
	st, x := f.st, f.list[i]
	w := max(f.w-1, 1) // one column for the cursor
	var sev string
	switch theme.SeverityOf(x.Severity) {
	case theme.SevError:
		sev = st.Status.Error.Render(theme.GlyphFindingErr + " err")
	case theme.SevWarning:
		sev = st.Status.Warn.Render(theme.GlyphFindingWarn + " warn")
	default:
		sev = st.Status.Info.Render(theme.GlyphFindingInfo + " info")
	}
	var evs []string
	for j, e := range x.Events {
		if j == maxEventsShown {
			evs = append(evs, st.Muted.Render("(+"+strconv.Itoa(len(x.Events)-j)+")"))
			break
		}
		style := st.Muted
		if e == sel {
			style = st.Accent
		}
		evs = append(evs, style.Render("#"+strconv.Itoa(e)))
	}
	head := cell.Fit(sev, 7) + " " + st.Calls.Header.Render(termtext.Safe(x.Rule))
	if len(evs) > 0 {
		head += "  " + strings.Join(evs, " ")
	}
	lines := []string{cell.Fit(head, w)}
	const indent = "  "
	msg := ansi.Wrap(termtext.Safe(plain.Truncate(x.Message, findingMessageMax)), max(w-len(indent), 1), "")
	for l := range strings.SplitSeq(msg, "\n") {
		lines = append(lines, indent+l)
	}
	return lines
}

// scrollToCursor moves the first finding shown so that the selected one is
// in view, as much of it as fits. It looks at the entries between the
// first shown and the selected one only, so a jump far down costs a
// screenful of wrapping, not the whole list.
func (f *findingsPane) scrollToCursor() {
	if f.cursor < f.offset {
		f.offset = f.cursor
		return
	}
	room := f.h - min(len(f.entry(f.cursor, -1)), f.h)
	lo := f.cursor
	for lo > f.offset {
		n := len(f.entry(lo-1, -1))
		if n > room {
			break
		}
		room -= n
		lo--
	}
	f.offset = lo
}

func (f *findingsPane) View(sel int, focused bool) string {
	st := f.st
	if !f.enabled {
		return strings.Join(cell.Block([]string{st.Muted.Render("protocol checks are not available in this build")}, f.w, f.h), "\n")
	}
	if len(f.list) == 0 {
		return strings.Join(cell.Block([]string{st.OK.Render(theme.GlyphDone + " no findings")}, f.w, f.h), "\n")
	}
	if f.rule.shown() {
		return f.rule.view(st, f.w, f.h)
	}
	f.scrollToCursor()
	var lines []string
	for i := f.offset; i < len(f.list) && len(lines) < f.h; i++ {
		for _, l := range f.entry(i, sel) {
			if i == f.cursor {
				style := st.Timeline.SelectedBlur
				if focused {
					style = st.Timeline.Selected
				}
				l = style.Render(cell.Fit(theme.GlyphCursor+cell.StripANSI(l), f.w))
			} else {
				l = " " + l
			}
			lines = append(lines, l)
		}
	}
	return strings.Join(cell.Block(lines, f.w, f.h), "\n")
}
