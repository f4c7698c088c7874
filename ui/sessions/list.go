package sessions

// This file draws the sessions list: its rows and columns, the status
// line under it and the selected session's line.

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/termtext"
	"github.com/streamtap/streamtap/ui/cell"
	"github.com/streamtap/streamtap/ui/theme"
)

// sessionsPane is the list of proxied sessions, one row each.
type sessionsPane struct {
	st             *theme.Styles
	w, h           int
	cursor, offset int
	follow         bool // the newest session stays selected
}

func (p *sessionsPane) setSize(w, h int) { p.w, p.h = w, max(h, 1) }

// rows is how many sessions the list shows: its height but the column
// header, at least one (also before the list is sized).
func (p *sessionsPane) rows() int { return max(p.h-1, 1) }

// clampTo keeps the cursor on one of n sessions and its row in view,
// showing as many sessions as fit: no empty rows under the last session
// while earlier ones are scrolled away. So the list lays out the same
// whatever came first, its sessions or its size, and fills a window that
// grew.
func (p *sessionsPane) clampTo(n int) {
	rows := p.rows()
	p.cursor = cell.Clamp(p.cursor, 0, max(n-1, 0))
	p.offset = cell.Clamp(p.offset, 0, max(n-rows, 0))
	if p.cursor < p.offset {
		p.offset = p.cursor
	}
	if p.cursor >= p.offset+rows {
		p.offset = p.cursor - rows + 1
	}
}

func (p *sessionsPane) move(delta, n int) {
	p.cursor += delta
	p.follow = p.cursor >= n-1
	p.clampTo(n)
}

// sessionCol is one column of the list: its title, its width, and
// whether it is shown only when there is room.
type sessionCol struct {
	title string
	w     int
	right bool
}

// Columns in the order they are shown. The path column takes what is left.
var sessionCols = []sessionCol{
	{"#", 4, true}, {"method", 6, false}, {"path", 0, false}, {"st", 3, true},
	{"model", 12, false}, {"dialect", 9, false}, {"dur", 5, true}, {"ttfb", 5, true},
	{"tfe", 5, true}, {"calls", 5, true}, {"find", 8, true}, {"outcome", 14, false}, {"turn", 10, false},
}

// dropOrder lists the columns given up first when the list is narrow.
var dropOrder = []string{"dialect", "tfe", "ttfb", "model", "find", "dur", "turn", "calls", "method"}

// minPathWidth is the narrowest the path column gets before other columns
// are dropped.
const minPathWidth = 12

// visibleCols picks the columns that fit in w and the path width.
func visibleCols(w int) ([]sessionCol, int) {
	drop := map[string]bool{}
	for i := 0; ; i++ {
		total := 0
		var cols []sessionCol
		for _, c := range sessionCols {
			if !drop[c.title] {
				cols = append(cols, c)
				total += c.w + 1
			}
		}
		pathW := w - total
		if pathW >= minPathWidth || i >= len(dropOrder) {
			return cols, max(pathW, 1)
		}
		drop[dropOrder[i]] = true
	}
}

// view draws the list; it costs O(visible rows).
func (p *sessionsPane) view(list, marked []*proxied, keepSecrets, checked bool) string {
	st := p.st
	cols, pathW := visibleCols(p.w)
	fitCol := func(c sessionCol, s string) string {
		w := c.w
		if c.title == "path" {
			w = pathW
		}
		if c.right {
			if n := w - ansi.StringWidth(s); n > 0 {
				s = strings.Repeat(" ", n) + s
			}
		}
		return cell.Fit(s, w)
	}
	var hdr []string
	for _, c := range cols {
		hdr = append(hdr, fitCol(c, c.title))
	}
	lines := []string{st.Muted.Render(cell.Fit(strings.Join(hdr, " "), p.w))}
	rows := p.rows()
	if len(list) == 0 {
		lines = append(lines, st.Muted.Render("waiting for requests: point a client's base URL at the proxy"))
	}
	for i := p.offset; i < len(list) && i < p.offset+rows; i++ {
		ps := list[i]
		var parts []string
		for _, c := range cols {
			text, style := ps.cell(c.title, keepSecrets, checked, st)
			if c.title == "#" && slices.Contains(marked, ps) {
				text, style = markGlyph+text, st.Accent
			}
			parts = append(parts, style.Render(fitCol(c, text)))
		}
		line := strings.Join(parts, " ")
		if i == p.cursor {
			line = st.Timeline.Selected.Render(cell.Fit(cell.StripANSI(line), p.w))
		}
		lines = append(lines, line)
	}
	return strings.Join(cell.Block(lines, p.w, p.h), "\n")
}

// cell is the text and style of one column of a session's row. Every
// string from the exchange goes through Safe.
func (p *proxied) cell(col string, keepSecrets, checked bool, st *theme.Styles) (string, lipgloss.Style) {
	in := &p.info
	switch col {
	case "#":
		return strconv.Itoa(in.ID), st.Timeline.Ord
	case "method":
		return termtext.Safe(in.Method), st.Base
	case "path":
		path := in.Path
		if !keepSecrets {
			path = capture.RedactURL(path)
		}
		return termtext.Safe(path), st.Base
	case "st":
		switch {
		case in.Status == 0:
			return "-", st.Muted
		case in.Status >= 400:
			return strconv.Itoa(in.Status), st.Err
		}
		return strconv.Itoa(in.Status), st.OK
	case "model":
		if in.Model == "" && in.Request != nil {
			// What a JSON-RPC request (MCP) calls, where the model would
			// be: the column is narrow, so a method that names its target
			// ("tools/call slow_count") shows the target.
			rpc := in.Request.RPC
			if method, target, ok := strings.Cut(rpc, " "); ok && strings.Contains(method, "/") && !strings.ContainsAny(target, " ,") {
				rpc = target
			}
			return termtext.Safe(rpc), st.Accent
		}
		return termtext.Safe(in.Model), st.Accent
	case "dialect":
		if d := p.dialect; d != model.DialectUnknown {
			return d.Info().Short, st.Base
		}
		return "-", st.Muted
	case "dur":
		return cellDur(in.Dur), st.Timeline.Time
	case "ttfb":
		return cellDur(in.TTFB), st.Timeline.Time
	case "tfe":
		return cellDur(in.TFE), st.Timeline.Time
	case "calls":
		return strconv.Itoa(p.calls), st.Base
	case "find":
		if !checked {
			return "-", st.Muted
		}
		if w := p.findings.worst(); w != theme.SevNone {
			return p.findings.String(), st.Timeline.Finding[w]
		}
		return "0", st.Muted
	case "outcome":
		if p.notKept != "" && p.live == nil {
			// What matters most about the row now: it cannot be opened
			// (the status line and the selected line say why).
			return notKeptGlyph + " not kept", st.Status.Error
		}
		return p.outcome(st, checked)
	case "turn":
		var parts []string
		if in.TurnOf > 0 {
			parts = append(parts, "of #"+strconv.Itoa(in.TurnOf))
		}
		if in.LegOf > 0 {
			// A model call of an application's session: step N of #M.
			parts = append(parts, fmt.Sprintf("s%d of #%d", in.Step, in.LegOf))
		}
		if len(in.Legs) > 0 {
			parts = append(parts, "legs "+legIDs(in.Legs))
		}
		if n := len(in.Unanswered); n > 0 {
			// !N: calls of that turn this request sends no output for.
			parts = append(parts, fmt.Sprintf("!%d", n))
			return strings.Join(parts, " "), st.Warn
		}
		return strings.Join(parts, " "), st.Muted
	}
	return "", st.Base
}

// legIDs is "#2,#3", or "#2–#5" for consecutive ids.
func legIDs(ids []int) string {
	consecutive := len(ids) > 2
	for i := 1; i < len(ids) && consecutive; i++ {
		consecutive = ids[i] == ids[i-1]+1
	}
	if consecutive {
		return fmt.Sprintf("#%d–#%d", ids[0], ids[len(ids)-1])
	}
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = "#" + strconv.Itoa(id)
	}
	return strings.Join(parts, ",")
}

// outcome is how the exchange stands: its final state, or how far it got.
// A session that completed with error findings is not shown as a success:
// its outcome reads in red, with the error glyph.
func (p *proxied) outcome(st *theme.Styles, checked bool) (string, lipgloss.Style) {
	in := &p.info
	state := in.Outcome
	if state == "" {
		if in.Status == 0 {
			return theme.GlyphPending + " waiting", st.Status.Live
		}
		return theme.GlyphPending + " streaming", st.Status.Live
	}
	errs := checked && p.findings[theme.SevError] > 0
	switch {
	case state == "completed" && errs:
		return theme.GlyphFailed + " " + state, st.Status.Error
	case state == "completed":
		return theme.GlyphDone + " " + state, st.OK
	case (state == "incomplete" || state == "client-canceled" || state == "empty") && !errs:
		return "! " + termtext.Safe(state), st.Status.Warn
	}
	return theme.GlyphFailed + " " + termtext.Safe(state), st.Status.Error
}

// markGlyph marks a session m marked for d.
const markGlyph = "*"

// notKeptGlyph marks a session whose bytes could not be kept.
const notKeptGlyph = "⊘"

// cellDur prints a duration in at most five cells, "-" when unknown.
func cellDur(d time.Duration) string {
	switch {
	case d == capture.NoTime || d < 0:
		return "-"
	case d < time.Second:
		return strconv.Itoa(int(d/time.Millisecond)) + "ms"
	case d < 100*time.Second:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
	case d < 100*time.Minute:
		return fmt.Sprintf("%dm%02d", int(d/time.Minute), int(d/time.Second)%60)
	}
	return strconv.Itoa(int(d/time.Hour)) + "h"
}

// Status is the status line under the list.
func (sp *Page) Status() string {
	if sp.diff != nil {
		return sp.diff.Status()
	}
	if sp.cur != nil {
		return sp.insp.Status()
	}
	st := &sp.Styles
	live, failed := sp.pxCount[classLive], sp.pxCount[classFailed]
	sep := st.Subtle.Render(" · ")
	left := st.Base.Render(fmt.Sprintf("%d sessions", len(sp.px)))
	if sp.dropped > 0 {
		left += sep + st.Muted.Render(fmt.Sprintf("%d older dropped", sp.dropped))
	}
	if live > 0 {
		left += sep + st.Status.Live.Render(fmt.Sprintf("%d live", live))
	}
	if failed > 0 {
		left += sep + st.Status.Warn.Render(fmt.Sprintf("%d not completed", failed))
	}
	if sp.notKept > 0 {
		// As long as it lasts: opening those sessions cannot work.
		left += sep + st.Status.Error.Render(fmt.Sprintf("%d %s", sp.notKept, termtext.Safe(sp.notKeptAs)))
	}
	if n := len(sp.marked); n > 0 {
		left += sep + st.Accent.Render(fmt.Sprintf("%d marked", n))
	}
	// The source comes after the counts, which matter more when the line
	// is cut: the proxy's own address, at its start, still shows.
	left += sep + st.Accent.Render(termtext.Safe(sp.Opts.Source))
	right := ""
	if sp.Note.Text != "" {
		style := st.Status.Info
		if sp.Note.IsErr {
			style = st.Status.Error
		}
		right = style.Render(termtext.Safe(sp.Note.Text))
	}
	if sp.sl.follow {
		if right != "" {
			right += sep
		}
		right += st.Status.Live.Render("follow on")
	}
	return cell.JoinLR(left, right, sp.w)
}

// Body draws the title, the list and the selected session's line.
func (sp *Page) Body() []string {
	if sp.diff != nil {
		return sp.diff.Body()
	}
	if sp.cur != nil {
		return sp.insp.Body()
	}
	title := sp.Styles.Title.Focused.Render("sessions")
	list := sp.list()
	if n := len(list); n > 0 {
		title += sp.Styles.Muted.Render(fmt.Sprintf("  %d/%d", sp.sl.cursor+1, n))
	}
	if sp.view.active() {
		title += sp.Styles.Muted.Render(fmt.Sprintf(" of %d", len(sp.px))) + "  " + sp.Styles.Accent.Render(sp.view.note())
	}
	lines := []string{cell.Fit(title, sp.w)}
	lines = append(lines, strings.Split(sp.sl.view(list, sp.marked, sp.Opts.KeepSecrets, sp.Opts.Checks != nil), "\n")...)
	return append(lines, sp.selectedLine())
}

// selectedLine tells what the row of the selected session cannot: the
// turn it answers, the ids of the calls it leaves unanswered, the error,
// the recording.
func (sp *Page) selectedLine() string {
	ps := sp.selectedSession()
	if ps == nil {
		return cell.Fit("", sp.w)
	}
	st, in := &sp.Styles, &ps.info
	sep := st.Subtle.Render(" · ")
	parts := []string{st.Accent.Render(fmt.Sprintf("#%d", in.ID))}
	if in.TurnOf > 0 {
		parts = append(parts, st.Base.Render(fmt.Sprintf("%s #%d", cmp.Or(termtext.Safe(in.Link), "answers"), in.TurnOf)))
	}
	if len(in.Unanswered) > 0 {
		parts = append(parts, st.Warn.Render("no tool output for "+termtext.Safe(strings.Join(in.Unanswered, ", "))))
	}
	if in.LegOf > 0 {
		by := ""
		if len(in.LegsBy) > 0 {
			by = " (linked by " + in.LegsBy[0] + ")"
		}
		parts = append(parts, st.Base.Render(fmt.Sprintf("step %d of #%d%s", in.Step, in.LegOf, by)))
	}
	if len(in.Legs) > 0 {
		steps := make([]string, len(in.Legs))
		for i, id := range in.Legs {
			steps[i] = fmt.Sprintf("#%d", id)
			if i < len(in.LegsBy) {
				steps[i] += " by " + in.LegsBy[i]
			}
		}
		parts = append(parts, st.Base.Render("model calls "+strings.Join(steps, ", ")))
	}
	if in.Err != "" {
		parts = append(parts, st.Err.Render(termtext.Safe(in.Err)))
	}
	if ps.notKept != "" && ps.live == nil {
		parts = append(parts, st.Err.Render(termtext.Safe(ps.notKept)))
	}
	if in.Record != "" {
		parts = append(parts, st.Muted.Render("recorded to "+termtext.Safe(in.Record)))
	}
	if len(parts) == 1 {
		parts = append(parts, st.Muted.Render("enter opens it"))
	}
	return cell.Fit(strings.Join(parts, sep), sp.w)
}

// selectedSession is the session under the list cursor, or nil.
func (sp *Page) selectedSession() *proxied {
	if list := sp.list(); sp.sl.cursor >= 0 && sp.sl.cursor < len(list) {
		return list[sp.sl.cursor]
	}
	return nil
}
