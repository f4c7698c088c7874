package lanes

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/ui/cell"
	"github.com/streamtap/streamtap/ui/keys"
	"github.com/streamtap/streamtap/ui/pane"
	"github.com/streamtap/streamtap/ui/theme"
)

// How much of the stream the lanes pane indexes at a time: a frame
// catches up on at most laneFrameStep new events (a live stream's batch
// is 256), and each piece of its background work on laneWorkStep, so
// that opening the pane on a big capture leaves the keys responsive.
const (
	laneFrameStep = 4096
	laneWorkStep  = 1 << 16
)

// Lane widths: a lane is at least laneMinW cells (a marker, a glyph, a
// space and a dozen cells of label) and at most laneMaxW, however wide
// the pane.
const (
	laneMinW = 16
	laneMaxW = 36
)

// Pane draws the stream as swimlanes: a lane per response and per
// item (call, message, content block) in output order, left to right, and
// a row per event, or per run of deltas in one lane, top to bottom. Each
// lane shows its item's life (open ●, deltas │ ┆, .done ◇, done ◆, the
// response's terminal ■), findings are marked on the lanes of the events
// they cite, and the row of the selected event is highlighted. Its rows
// come from an index built as events arrive (laneIndex), so a frame costs
// O(rows shown × lanes shown).
type Pane struct {
	pane.Base
	st   *theme.Styles
	keys *keys.Map
	host pane.Host
	s    *model.Session
	w, h int

	idx laneIndex
	// top is the first row shown, col0 the first lane; both follow the
	// selection when it changes (followed is the one they followed last),
	// and stay where the wheel or h/l put them until it does.
	top, col0 int
	followed  int
	// stepping says a piece of indexing work is under way.
	stepping bool

	// marks holds the worst severity of the findings citing each event,
	// and marked the same events sorted, to find a run's worst quickly.
	marks  map[int32]theme.Severity
	marked []int32

	geo laneGeometry // the layout of the last frame
}

// lanesStepMsg asks the lanes pane to index the next piece of the stream.
type lanesStepMsg struct{}

// New returns the lanes pane, pointed at no session yet.
func New(st *theme.Styles, keys *keys.Map, host pane.Host) *Pane {
	return &Pane{st: st, keys: keys, host: host, followed: -2}
}

func (p *Pane) Title() string { return "lanes" }

// Status says how far indexing has come, or which lanes are in view when
// not all fit.
func (p *Pane) Status() string {
	if p.idx.behind() > 0 && p.s.Len() > 0 {
		return fmt.Sprintf("indexing %d%%", 100*p.idx.scanned/p.s.Events.Len())
	}
	g := &p.geo
	if g.vis > 0 && g.vis < len(g.cols) {
		return fmt.Sprintf("lanes %d-%d of %d", g.col0+1, g.col0+g.vis, len(g.cols))
	}
	return ""
}

// Attach starts the index over s.
func (p *Pane) Attach(s *model.Session) {
	*p = Pane{st: p.st, keys: p.keys, host: p.host, s: s, idx: newLaneIndex(s), followed: -2}
}

func (p *Pane) SetSize(w, h int) {
	p.w, p.h = max(w, 0), max(h, 1)
	p.followed = -2 // bring the selection into view again
}

func (p *Pane) ShortHelp() []key.Binding {
	k := p.keys
	return []key.Binding{k.Nav.Down, k.Nav.Up, k.View.Left, k.View.Right, k.View.Zoom}
}

func (p *Pane) UpdateKeys(focused bool) {
	if focused {
		p.catchUp()
	}
	more := len(p.geo.cols) > p.geo.vis
	p.keys.View.Left.SetEnabled(focused && more)
	p.keys.View.Right.SetEnabled(focused && more)
}

// SetMarks marks the events the findings cite, each with the worst
// severity among the findings citing it.
func (p *Pane) SetMarks(list []checks.Finding) {
	p.marks = make(map[int32]theme.Severity, len(list))
	for _, x := range list {
		sev := theme.SeverityOf(x.Severity)
		for _, e := range x.Events {
			p.marks[int32(e)] = max(p.marks[int32(e)], sev)
		}
	}
	p.marked = p.marked[:0]
	for e := range p.marks {
		p.marked = append(p.marked, e)
	}
	sort.Slice(p.marked, func(i, j int) bool { return p.marked[i] < p.marked[j] })
}

// markOf is the worst severity of the findings citing an event of row r.
func (p *Pane) markOf(r *laneRow) theme.Severity {
	if r.n == 1 {
		return p.marks[r.ord]
	}
	worst := theme.SevNone
	i := sort.Search(len(p.marked), func(i int) bool { return p.marked[i] >= r.ord })
	for ; i < len(p.marked) && int(p.marked[i]) <= r.last(); i++ {
		worst = max(worst, p.marks[p.marked[i]])
	}
	return worst
}

// Update moves the selection a row at a time, scrolls the lanes with
// h/l, and indexes the next piece of the stream when its work asks.
func (p *Pane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case lanesStepMsg:
		p.stepping = false
		if p.s != nil {
			p.idx.extend(laneWorkStep)
		}
	case tea.KeyPressMsg:
		p.catchUp()
		switch {
		case key.Matches(msg, p.keys.View.Left):
			p.scrollLanes(-1)
		case key.Matches(msg, p.keys.View.Right):
			p.scrollLanes(1)
		default:
			if delta, ok := keys.NavDelta(p.keys, msg, p.rowsH()); ok {
				p.moveRows(delta)
			}
		}
	}
	return nil
}

// Work indexes the stream a piece at a time while the pane is behind it.
func (p *Pane) Work(int) tea.Cmd {
	if p.stepping || p.idx.behind() <= laneFrameStep {
		return nil
	}
	p.stepping = true
	return func() tea.Msg { return lanesStepMsg{} }
}

// rowsH is the number of rows under the lane headers.
func (p *Pane) rowsH() int { return max(p.h-p.headerH(), 1) }

// headerH is the lines the lane headers take: the name, then the type
// and id, when there is room for rows under both.
func (p *Pane) headerH() int {
	if p.h >= 5 {
		return 2
	}
	return 1
}

// moveRows selects the event of the row delta rows from the selected
// one's (the first event of a run). A filter may hide that event: the
// timeline then selects the next one it shows, which, going up, can be
// back in the row left, so going up tries the rows above in turn.
func (p *Pane) moveRows(delta int) {
	n := len(p.idx.rows)
	if n == 0 {
		return
	}
	cur := p.idx.rowOf(p.host.Selected())
	if cur < 0 {
		cur = n - 1
	}
	target := cell.Clamp(cur+cell.Clamp(delta, -n, n), 0, n-1)
	p.host.SelectEvent(int(p.idx.rows[target].ord))
	for tries := 0; delta < 0 && target > 0 && tries < 1024; tries++ {
		if r := p.idx.rowOf(p.host.Selected()); r >= 0 && r < cur {
			break
		}
		target--
		p.host.SelectEvent(int(p.idx.rows[target].ord))
	}
}

// scrollLanes moves the lanes in view by n, until the selection moves.
func (p *Pane) scrollLanes(n int) {
	g := &p.geo
	p.col0 = cell.Clamp(p.col0+n, 0, max(len(g.cols)-g.vis, 0))
}

// Wheel scrolls the rows without moving the selection.
func (p *Pane) Wheel(delta int) {
	p.catchUp()
	p.top = cell.Clamp(p.top+delta, 0, max(len(p.idx.rows)-p.rowsH(), 0))
}

// Click selects the row clicked (below the headers).
func (p *Pane) Click(_, y int) {
	p.catchUp()
	row := p.top + y - p.headerH()
	if y >= p.headerH() && row < len(p.idx.rows) {
		p.host.SelectEvent(int(p.idx.rows[row].ord))
	}
}

// follow scrolls the rows and the lanes so that the row of selected
// event sel, selRow, is in view, when the selection changed since the
// last frame it followed. A selection not indexed yet (selRow -1) is
// followed once it is.
func (p *Pane) follow(sel, selRow int) {
	if sel == p.followed || selRow < 0 {
		return
	}
	p.followed = sel
	rh := p.rowsH()
	if selRow < p.top {
		p.top = selRow
	}
	if selRow >= p.top+rh {
		p.top = selRow - rh + 1
	}
	g := &p.geo
	if c := p.idx.colOf(p.idx.rows[selRow].cell.lane); c >= 0 && g.vis > 0 {
		if c < p.col0 {
			p.col0 = c
		}
		if c >= p.col0+g.vis {
			p.col0 = c - g.vis + 1
		}
	}
}

// View draws the lane headers and the rows in view for selected event
// sel.
func (p *Pane) View(sel int, focused bool) string {
	if p.s == nil || p.w == 0 {
		return strings.Join(cell.Block(nil, p.w, p.h), "\n")
	}
	p.catchUp()
	selRow := p.idx.rowOf(sel)
	p.follow(sel, selRow)
	g := &p.geo
	p.top = cell.Clamp(p.top, 0, max(len(p.idx.rows)-p.rowsH(), 0))
	p.col0 = cell.Clamp(p.col0, 0, max(len(g.cols)-g.vis, 0))
	g.col0 = p.col0

	lines := p.header()
	if len(p.idx.rows) == 0 {
		text := "waiting for events…"
		switch {
		case p.idx.behind() > 0:
			text = "indexing…"
		case !p.host.IsLive():
			text = "no events" // the stream ended without one
		}
		lines = append(lines, p.st.Muted.Render("  "+text))
		return strings.Join(cell.Block(lines, p.w, p.h), "\n")
	}
	g.life = cell.Fit(" "+p.st.Subtle.Render(theme.GlyphLaneLife), g.laneW)
	g.lifePlain = cell.Fit(" "+theme.GlyphLaneLife, g.laneW)
	g.blank = strings.Repeat(" ", g.laneW)
	g.spans = g.spans[:0]
	for c := g.col0; c < g.col0+g.vis; c++ {
		g.spans = append(g.spans, p.span(g.cols[c]))
	}
	for i := p.top; i < len(p.idx.rows) && len(lines) < p.h; i++ {
		if i == selRow {
			style := p.st.Timeline.SelectedBlur
			if focused {
				style = p.st.Timeline.Selected
			}
			plain := theme.GlyphCursor + p.row(i, sel, false)[1:]
			lines = append(lines, style.Render(cell.Fit(plain, p.w)))
			continue
		}
		lines = append(lines, p.row(i, sel, true))
	}
	return strings.Join(cell.Block(lines, p.w, p.h), "\n")
}

// catchUp indexes the events that arrived since, up to laneFrameStep of
// them, and lays the lanes out for them: before a frame, and before
// a key, a click or the wheel acts on what the frame showed.
func (p *Pane) catchUp() {
	if p.s == nil {
		return
	}
	p.idx.extend(laneFrameStep)
	p.layout()
}

// laneGeometry is how the lanes are laid out in the pane for one frame.
type laneGeometry struct {
	cols   []laneID // every lane, left to right
	ordW   int      // digits of the ordinal column
	gutter int      // the cursor, the ordinal, and the "‹" column
	laneW  int      // the width of each lane shown
	vis    int      // lanes shown
	col0   int      // the first lane shown
	more   bool     // lanes are hidden: keep room at the right for how many
	spans  []laneSpan
	// life and blank are a lane's part of a row where it is alive
	// without a mark (styled, and plain for the highlighted row), and
	// where it is not: made once a frame.
	life, lifePlain, blank string
}

// layout sizes the lanes for the pane's width: as wide as they can be,
// up to laneMaxW, when all fit; else laneMinW or a little more, as many
// as fit beside the room for the " +N›" of the ones beyond. The gutter
// holds the "‹+N" of the ones before: there are no more lanes than
// events.
func (p *Pane) layout() {
	g := &p.geo
	g.cols = p.idx.columns()
	g.ordW = max(3, len(strconv.Itoa(max(p.s.Events.Len()-1, 0))))
	g.gutter = g.ordW + 2
	room := max(p.w-g.gutter, 0)
	n := len(g.cols)
	g.more = n*laneMinW > room
	if g.more {
		room = max(room-len(" +›")-len(strconv.Itoa(n)), 0)
	}
	g.vis = min(n, max(room/laneMinW, 1))
	if g.vis == 0 {
		g.laneW = 0
		return
	}
	g.laneW = min(room/g.vis, laneMaxW)
}
