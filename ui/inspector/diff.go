package inspector

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/jsonscan"
	"github.com/streamtap/streamtap/termtext"
	"github.com/streamtap/streamtap/ui/cell"
	"github.com/streamtap/streamtap/ui/keys"
	"github.com/streamtap/streamtap/ui/pane"
	"github.com/streamtap/streamtap/ui/plain"
	"github.com/streamtap/streamtap/ui/theme"
)

// diffPane shows what the selected event changed: status transitions, the
// structural difference between an item's or a response's first and final
// snapshots, and the sequence numbers around it.
type diffPane struct {
	pane.Base
	s    *model.Session
	st   *theme.Styles
	keys *keys.Map
	w, h int

	scroll int
	key    callsKey
	lines  []string

	// Snapshots bigger than diffSyncMax are compared off the event loop:
	// wanted lists the pairs the selected event shows and still waits for,
	// running those under way, results those compared (the events'
	// bytes never change, so a result stays true; the last few are kept).
	wanted  []snapPair
	running map[snapPair]bool
	results map[snapPair]snapResult
}

// diffSyncMax is the size of two events up to which their snapshots are
// compared when the event is selected. Larger ones are read back and
// compared by a command, and the pane says so meanwhile: the frame after
// a key press must not wait for 2 × 20 MB to be read and walked.
const diffSyncMax = 256 << 10

// diffResultsMax is how many comparisons of big snapshots are kept, so
// that going back and forth between events does not compare them again.
const diffResultsMax = 16

// snapPair names two snapshots to compare: member name ("item",
// "response") of events a and b.
type snapPair struct {
	a, b int
	name string
}

// snapResult is the differences of a pair, or why they could not be read.
type snapResult struct {
	entries []diffEntry
	more    bool // past diffEntriesMax
	err     error
}

// snapDiffMsg carries the comparison of a pair of session s. A result for
// another session (the proxy's inspector switches them) is dropped; one
// for a pair the selected event no longer shows is kept for when the
// selection comes back.
type snapDiffMsg struct {
	s    *model.Session
	pair snapPair
	res  snapResult
}

// newDiffPane returns the diffs pane, pointed at no session yet.
func newDiffPane(st *theme.Styles, keys *keys.Map) *diffPane { return &diffPane{st: st, keys: keys} }

func (d *diffPane) Title() string { return "diffs" }

// Attach shows session s, dropping the comparisons of the session before.
func (d *diffPane) Attach(s *model.Session) { *d = diffPane{s: s, st: d.st, keys: d.keys} }

func (d *diffPane) SetSize(w, h int) { d.w, d.h = w, max(h, 1) }

func (d *diffPane) Restyle() { d.key = callsKey{ord: -2} }

func (d *diffPane) ShortHelp() []key.Binding {
	k := d.keys
	return []key.Binding{k.Nav.Down, k.Nav.Up, k.Stream.StepBack, k.Stream.StepFwd}
}

// Update scrolls on a navigation key, and takes the comparisons work
// started.
func (d *diffPane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if delta, ok := keys.NavDelta(d.keys, msg, d.h); ok {
			d.scrollBy(delta)
		}
	case snapDiffMsg:
		d.applyDiff(msg)
	}
	return nil
}

func (d *diffPane) Wheel(delta int) { d.scrollBy(delta) }

func (d *diffPane) scrollBy(n int) {
	d.scroll = cell.Clamp(d.scroll+n, 0, max(len(d.lines)-d.h, 0))
}

func (d *diffPane) View(ord int, _ bool) string {
	d.prepare(ord)
	d.scroll = cell.Clamp(d.scroll, 0, max(len(d.lines)-d.h, 0))
	end := min(d.scroll+d.h, len(d.lines))
	return strings.Join(cell.Block(d.lines[d.scroll:end], d.w, d.h), "\n")
}

// prepare lays out the pane for ord, once per (ord, width, events) and
// again when a comparison it waits for arrives.
func (d *diffPane) prepare(ord int) {
	k := callsKey{ord: ord, w: d.w, n: d.s.Len()}
	if k == d.key && d.lines != nil {
		return
	}
	if k.ord != d.key.ord {
		d.scroll = 0
	}
	d.key, d.wanted = k, nil
	d.lines = d.build(ord)
}

// Work starts comparing the big snapshots event ord shows, each pair
// once, or returns nil when nothing is left to start.
func (d *diffPane) Work(ord int) tea.Cmd {
	d.prepare(ord)
	var cmds []tea.Cmd
	for _, p := range d.wanted {
		if d.running[p] {
			continue
		}
		if d.running == nil {
			d.running = map[snapPair]bool{}
		}
		d.running[p] = true
		s, ea, eb := d.s, *d.s.Events.At(p.a), *d.s.Events.At(p.b)
		cmds = append(cmds, func() tea.Msg {
			return snapDiffMsg{s: s, pair: p, res: compareSnapshots(s, &ea, &eb, p.name)}
		})
	}
	return tea.Batch(cmds...)
}

// applyDiff keeps a comparison of the session shown, and shows it when
// the selected event waits for it. The pair names the events, so a result
// that comes after the selection moved on lands where it belongs.
func (d *diffPane) applyDiff(msg snapDiffMsg) {
	if msg.s != d.s {
		return // the inspector switched to another session meanwhile
	}
	delete(d.running, msg.pair)
	if d.results == nil || len(d.results) >= diffResultsMax {
		d.results = map[snapPair]snapResult{}
	}
	d.results[msg.pair] = msg.res
	if slices.Contains(d.wanted, msg.pair) {
		d.lines = nil
	}
}

func (d *diffPane) build(ord int) []string {
	st := d.st
	if ord < 0 || ord >= d.s.Events.Len() {
		return []string{st.Muted.Render("no event selected")}
	}
	var out []string
	title := func(t string) { out = append(out, st.Calls.Header.Render(t)) }

	title("Status at this event")
	changes := d.transitions(ord)
	if len(changes) == 0 {
		out = append(out, st.Muted.Render("  no status changed"))
	}
	out = append(out, changes...)

	out = append(out, "")
	title("Snapshots")
	snaps := d.snapshots(ord)
	if len(snaps) == 0 {
		out = append(out, st.Muted.Render("  select an output_item.added/.done or a response.created/terminal event"))
	}
	out = append(out, snaps...)

	out = append(out, "")
	title("Sequence numbers")
	out = append(out, d.sequence(ord)...)
	var wrapped []string
	for _, l := range out {
		wrapped = append(wrapped, cell.Fit(l, d.w))
	}
	return wrapped
}

// transitions lists the status and finish-reason changes made by ord.
func (d *diffPane) transitions(ord int) []string {
	st := d.st
	var out []string
	line := func(what string, h model.History) {
		for i, c := range h {
			if c.Ordinal != ord {
				continue
			}
			from := "(none)"
			if i > 0 {
				from = h[i-1].Value
			}
			out = append(out, "  "+st.Diff.Del.Render(termtext.Safe(from))+" "+theme.GlyphArrow+" "+st.Diff.Add.Render(termtext.Safe(c.Value))+"  "+st.Muted.Render(termtext.Safe(what)))
		}
	}
	for _, r := range d.s.Responses {
		if r.First > ord {
			continue
		}
		name := "response"
		if r.ID != "" {
			name += " " + r.ID
		}
		line(name, r.Status)
		for _, cf := range r.Finish {
			line(fmt.Sprintf("%s finish (choice %d)", name, cf.Choice), cf.Reasons)
		}
	}
	if ev := d.s.Events.At(ord); ev.Item >= 0 && int(ev.Item) < len(d.s.Items) {
		it := d.s.Items[ev.Item]
		line("item "+plain.ItemLabel(it), it.Status)
	}
	return out
}

// snapshots diffs the first and final snapshots of the item or response
// the event opened or closed, read back from the stream's bytes.
func (d *diffPane) snapshots(ord int) []string {
	var out []string
	ev := d.s.Events.At(ord)
	if ev.Item >= 0 && int(ev.Item) < len(d.s.Items) {
		it := d.s.Items[ev.Item]
		if (it.Opened == ord || it.Closed == ord) && it.Opened >= 0 {
			out = append(out, "  added #"+strconv.Itoa(it.Opened)+" "+theme.GlyphArrow+" done "+ordOrNone(it.Closed)+d.st.Muted.Render("  item "+plain.ItemLabel(it)))
			if it.Closed >= 0 {
				out = append(out, d.diffMembers(it.Opened, it.Closed, "item")...)
			} else {
				out = append(out, d.st.Muted.Render("    not done yet"))
			}
		}
	}
	for _, r := range d.s.Responses {
		if r.Created != ord && r.Final != ord || r.Created < 0 {
			continue
		}
		out = append(out, "  created #"+strconv.Itoa(r.Created)+" "+theme.GlyphArrow+" terminal "+ordOrNone(r.Final)+d.st.Muted.Render("  response "+termtext.Safe(r.ID)))
		if r.Final >= 0 && r.Final != r.Created {
			out = append(out, d.diffMembers(r.Created, r.Final, "response")...)
		} else {
			out = append(out, d.st.Muted.Render("    no terminal snapshot yet"))
		}
	}
	return out
}

func ordOrNone(o int) string {
	if o < 0 {
		return "(none)"
	}
	return "#" + strconv.Itoa(o)
}

// diffMembers diffs member name of events a and b: at once when they are
// small, else when the command comparing them is done.
func (d *diffPane) diffMembers(a, b int, name string) []string {
	ea, eb := d.s.Events.At(a), d.s.Events.At(b)
	p := snapPair{a: a, b: b, name: name}
	res, ok := d.results[p]
	switch {
	case ok:
	case int64(ea.Len)+int64(eb.Len) <= diffSyncMax:
		res = compareSnapshots(d.s, ea, eb, name)
	default:
		d.wanted = append(d.wanted, p)
		size := plain.Bytes(int64(ea.Len) + int64(eb.Len))
		return []string{d.st.Muted.Render("    comparing " + size + " of snapshots" + theme.GlyphEllipsis)}
	}
	if res.err != nil {
		return []string{d.st.Err.Render("    cannot read the snapshots back")}
	}
	var out []string
	for _, e := range res.entries {
		out = append(out, wrapRuns(d.entryRuns(e), d.w, diffIndent)...)
	}
	switch {
	case res.more:
		out = append(out, d.st.Muted.Render(fmt.Sprintf("    … more differences past the first %d", diffEntriesMax)))
	case len(out) == 0:
		out = append(out, d.st.Muted.Render("    identical"))
	}
	return out
}

// diffIndent is the indent of a difference's continuation lines: under
// its path.
const diffIndent = 6

// entryRuns styles one difference: marker, path, and the values.
func (d *diffPane) entryRuns(e diffEntry) []styledRun {
	st := &d.st.Diff
	switch e.op {
	case '+':
		return []styledRun{{"    + ", &st.Add}, {termtext.Safe(e.path), &st.Path}, {" ", nil}, {termtext.Safe(e.to), &st.Add}}
	case '-':
		return []styledRun{{"    - ", &st.Del}, {termtext.Safe(e.path), &st.Path}, {" ", nil}, {termtext.Safe(e.from), &st.Del}}
	}
	return []styledRun{{"    ~ ", &st.Change}, {termtext.Safe(e.path), &st.Path}, {" ", nil}, {termtext.Safe(e.from), &st.Del}, {" " + theme.GlyphArrow + " ", nil}, {termtext.Safe(e.to), &st.Add}}
}

// compareSnapshots reads member name of events ea and eb back from the
// stream and diffs them. It reads only the session's stream, never its
// live state, so it may run in a command.
func compareSnapshots(s *model.Session, ea, eb *model.Event, name string) snapResult {
	va, erra := snapshotMember(s, ea, name)
	vb, errb := snapshotMember(s, eb, name)
	if err := cmp.Or(erra, errb); err != nil {
		return snapResult{err: err}
	}
	var res snapResult
	jsonDiff("", va, vb, func(e diffEntry) bool {
		if len(res.entries) == diffEntriesMax {
			res.more = true
			return false
		}
		res.entries = append(res.entries, e)
		return true
	})
	return res
}

// errNoSnapshot says an event holds no snapshot where its kind has one.
var errNoSnapshot = errors.New("no snapshot in the event")

// snapshotMember returns member name of an event's data: the item of an
// output_item event, the response of a lifecycle event (or the whole body
// of a non-streaming response).
func snapshotMember(s *model.Session, ev *model.Event, name string) ([]byte, error) {
	raw, err := s.Raw(ev)
	if err != nil {
		return nil, err
	}
	data, _ := plain.EventData(raw)
	v := jsonscan.Get(data, name)
	if name == "response" && v == nil {
		v = data // a non-streaming body is the response itself
	}
	if jsonscan.Kind(v) == 0 {
		return nil, errNoSnapshot
	}
	return v, nil
}

// sequence shows expected against actual sequence numbers around ord,
// marking gaps and repeats.
func (d *diffPane) sequence(ord int) []string {
	st := d.st
	evs := &d.s.Events
	if evs.At(ord).Seq < 0 {
		has := false
		for i := range min(evs.Len(), 64) {
			if evs.At(i).Seq >= 0 {
				has = true
				break
			}
		}
		if !has {
			return []string{st.Muted.Render("  this stream carries no sequence numbers")}
		}
	}
	out := []string{st.Muted.Render("     event  expected  actual")}
	span := max(d.h/3, 3)
	lo, hi := max(ord-span, 0), min(ord+span, evs.Len()-1)
	prev := int64(-1)
	for i := lo - 1; i >= 0 && i >= lo-256; i-- { // the last seq before the window
		if evs.At(i).Seq >= 0 {
			prev = evs.At(i).Seq
			break
		}
	}
	for i := lo; i <= hi; i++ {
		ev := evs.At(i)
		if ev.Seq < 0 {
			continue
		}
		exp, note, style := "", "", st.Base
		if prev >= 0 {
			exp = strconv.FormatInt(prev+1, 10)
			switch {
			case ev.Seq == prev:
				note, style = "  repeat", st.Diff.Gap
			case ev.Seq < prev:
				note, style = "  goes back", st.Diff.Gap
			case ev.Seq > prev+1:
				note, style = fmt.Sprintf("  gap: %d missing", ev.Seq-prev-1), st.Diff.Gap
			}
		}
		cursor := "  "
		if i == ord {
			cursor = st.Accent.Render("▶ ")
		}
		row := fmt.Sprintf("%7d  %8s  %6d", i, exp, ev.Seq)
		out = append(out, "  "+cursor+style.Render(row+note))
		prev = ev.Seq
	}
	return out
}
