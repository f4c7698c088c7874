package inspector

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/termtext"
	"github.com/streamtap/streamtap/ui/cell"
	"github.com/streamtap/streamtap/ui/doc"
	"github.com/streamtap/streamtap/ui/keys"
	"github.com/streamtap/streamtap/ui/pane"
	"github.com/streamtap/streamtap/ui/plain"
	"github.com/streamtap/streamtap/ui/theme"
)

// eventPrefixMax is the size up to which the detail pane reads an event
// whole when it is selected. Of a larger one it reads the first
// eventPrefixMax bytes, enough for several screens, and shows them at
// once while a command reads the rest: reading 50 MB on the event loop
// would freeze the program for as long.
const eventPrefixMax = 256 << 10

// detailPane shows the selected event: pretty, highlighted JSON, or the raw
// bytes as received with line endings and comments made visible. A big
// event is laid out a screen at a time (see doc), so any size shows at once
// from its first byte and scrolls to its last.
type detailPane struct {
	pane.Base
	s           *model.Session
	st          *theme.Styles
	keys        *keys.Map
	keepSecrets bool
	w, h        int
	raw         bool
	scroll      int
	// bottom says G was pressed before the line count was known: the view
	// goes to the end once it is.
	bottom bool

	key     detailKey // what the body is laid out for
	n       int       // session length the header was made at
	header  []theme.Line
	notes   []theme.Line // between header and body: "data is not JSON: …"
	lines   []theme.Line // a body laid out whole (chroma, an HTTP head)
	doc     *doc.Layout  // a body laid out lazily
	readErr error
	loading bool // the whole event is still to be read
	// reading says a read command is under way, for event readOrd. A
	// resize or the raw toggle keeps the read: it does not depend on them.
	reading bool
	readOrd int
	// full is the last big event read whole, kept for the raw toggle and
	// for resizes, which lay it out again.
	full *loadedEvent

	// explain shows the selected event's explanation under the body (x).
	// It stays on while the selection moves.
	explain bool
	shape   model.Shape  // the shape of the event laid out (key.ord)
	ex      []theme.Line // the explanation laid out, when explain is on
	exKey   detailKey    // what ex was laid out for
	// The explanation sits at the bottom of the pane, in exH lines, when
	// it fits there; else it goes under the header as exInline, and
	// scrolls with the body, so that none of it is out of reach.
	exH      int
	exInline []theme.Line
}

type detailKey struct {
	ord, w int
	raw    bool
}

// loadedEvent is an event's bytes with its data and the data's JSON state,
// worked out off the event loop for a big event.
type loadedEvent struct {
	ord    int
	raw    []byte
	err    error
	data   []byte
	isData bool
	state  model.JSONState
}

// readEvent works out the data and JSON state of an event's bytes: O(size),
// so for a big event it runs in a command.
func readEvent(ord int, raw []byte, err error) *loadedEvent {
	le := &loadedEvent{ord: ord, raw: raw, err: err}
	if le.data, le.isData = plain.EventData(raw); le.isData {
		le.state = model.ArgsState(le.data, true)
	}
	return le
}

// eventLoadedMsg carries a big event of session s read whole. The session
// and the event's ordinal name the work: a result for another event, or
// for a session no longer shown (the proxy's inspector switches them), is
// dropped.
type eventLoadedMsg struct {
	s  *model.Session
	ev *loadedEvent
}

// newDetailPane returns the detail pane, pointed at no session yet.
func newDetailPane(st *theme.Styles, keys *keys.Map, keepSecrets bool) *detailPane {
	return &detailPane{st: st, keys: keys, keepSecrets: keepSecrets}
}

func (d *detailPane) Title() string {
	if d.raw {
		return "detail (raw)"
	}
	return "detail"
}

// Attach shows session s from scratch, pretty; the explanation stays on
// or off.
func (d *detailPane) Attach(s *model.Session) {
	*d = detailPane{s: s, st: d.st, keys: d.keys, keepSecrets: d.keepSecrets, explain: d.explain}
}

func (d *detailPane) SetSize(w, h int) { d.w, d.h = w, max(h, 1) }

func (d *detailPane) Restyle() { d.key = detailKey{ord: -2} }

func (d *detailPane) ShortHelp() []key.Binding {
	k := d.keys
	return []key.Binding{k.Nav.Down, k.Nav.Up, k.Inspect.Raw, k.Inspect.Explain, k.Inspect.Copy, k.Stream.StepBack, k.Stream.StepFwd}
}

// Update scrolls on a navigation key, and takes the results of work.
func (d *detailPane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if delta, ok := keys.NavDelta(d.keys, msg, d.h); ok {
			d.scrollBy(delta)
		}
	case eventLoadedMsg:
		d.applyLoad(msg)
	case doc.IndexedMsg:
		d.applyIndex(msg)
	}
	return nil
}

func (d *detailPane) Wheel(delta int) { d.scrollBy(delta) }

// fixed is the number of lines above the body.
func (d *detailPane) fixed() int { return len(d.header) + len(d.exInline) + len(d.notes) }

// total is the number of content lines known so far.
func (d *detailPane) total() int {
	n := d.fixed() + len(d.lines)
	if d.doc != nil {
		n += d.doc.Known()
	}
	return n
}

// bodyH is the height left to the event's body: the pane less the
// explanation shown under it.
func (d *detailPane) bodyH() int { return max(d.h-d.exH, 1) }

// scrollBy scrolls by n lines. Past the lines laid out so far it lays out
// a page more; G before the end is known waits for it (see bottom).
func (d *detailPane) scrollBy(n int) {
	next := d.scroll + n
	d.bottom = false
	h := d.bodyH()
	if d.doc != nil && !d.doc.Done() && next+h > d.total() {
		d.doc.Extend(next+h-d.fixed(), doc.SyncBudget)
		d.bottom = n >= 1<<29 && !d.doc.Done()
	}
	if d.loading && n >= 1<<29 {
		d.bottom = true
	}
	d.scroll = cell.Clamp(next, 0, max(d.total()-h, 0))
}

func (d *detailPane) prepare(ord int) {
	if ord < 0 || ord >= d.s.Events.Len() {
		d.key, d.header, d.notes, d.lines, d.doc, d.loading = detailKey{ord: -1}, nil, nil, nil, nil, false
		d.ex, d.exH, d.exInline = nil, 0, nil
		return
	}
	k := detailKey{ord: ord, w: d.w, raw: d.raw}
	if k != d.key {
		if k.ord != d.key.ord || k.raw != d.key.raw {
			d.scroll, d.bottom = 0, false
		}
		d.key = k
		d.layoutBody(ord)
		d.header = nil
	}
	if d.header == nil || d.n != d.s.Len() {
		d.n = d.s.Len()
		d.header = d.headerLines(d.s.Events.At(ord), ord, d.readErr)
	}
	d.prepareExplain(k)
}

// explainBodyMin is the least of the pane's height (a third, at least
// three lines) the explanation leaves to the event above it.
func (d *detailPane) explainBodyMin() int { return max(3, d.h/3) }

// prepareExplain lays out the explanation of the event laid out, when
// explain is on, at the bottom of the pane or, when it does not fit
// there, under the header.
func (d *detailPane) prepareExplain(k detailKey) {
	if !d.explain {
		d.ex, d.exH, d.exInline, d.exKey = nil, 0, nil, detailKey{ord: -2}
		return
	}
	k.raw = false // the explanation is the same raw or pretty
	if k != d.exKey {
		d.ex, d.exKey = explainLines(d.shape, d.w), k
	}
	d.exH, d.exInline = len(d.ex), nil
	if d.exH > d.h-d.explainBodyMin() {
		d.exH, d.exInline = 0, append(d.ex[:len(d.ex):len(d.ex)], theme.Line{})
	}
}

// layoutBody lays out the event's body: at once from its bytes when they
// are few or already read, else from its first eventPrefixMax bytes while
// a command reads the rest.
func (d *detailPane) layoutBody(ord int) {
	d.loading = false
	ev := d.s.Events.At(ord)
	switch {
	case d.full != nil && d.full.ord == ord:
		d.show(ev, d.full, false)
	case int(ev.Len) > eventPrefixMax:
		raw, err := d.s.RawPrefix(ev, eventPrefixMax)
		d.loading = true
		d.show(ev, &loadedEvent{ord: ord, raw: raw, err: err}, true)
	default:
		raw, err := d.s.Raw(ev)
		d.show(ev, readEvent(ord, raw, err), false)
	}
}

// show lays out le, which holds only the start of the event when partial.
func (d *detailPane) show(ev *model.Event, le *loadedEvent, partial bool) {
	d.notes, d.lines, d.doc, d.readErr = nil, nil, nil, le.err
	var data []byte // what Shape may read: the data of a small event read whole
	if le.isData && !partial {
		data = le.data
	}
	d.shape = d.s.Shape(ev, le.ord, data)
	mk := func(mode doc.Mode, src []byte, ms, me int) {
		d.doc = doc.New(&doc.Spec{Src: src, Mode: mode, W: d.w, KeepSecrets: d.keepSecrets, MarkStart: ms, MarkEnd: me, Partial: partial})
	}
	rawMode := doc.Raw
	if ev.Source == capture.FrameHead {
		rawMode = doc.Head
	}
	if d.raw {
		mk(rawMode, le.raw, -1, -1)
		return
	}
	if isEventStream(ev, le.raw, partial) {
		d.lines = d.wrapAll(eventStreamLines(le.raw, d.w))
		return
	}
	switch ev.Source {
	case capture.FrameHead:
		d.lines = d.wrapAll(d.headLines(le.ord))
		return
	case capture.FrameComment, capture.FrameRemainder:
		mk(doc.Raw, le.raw, -1, -1)
		return
	}
	data, ok := le.data, le.isData
	if partial {
		data, ok = plain.EventData(le.raw)
	}
	switch {
	case !ok:
		mk(doc.Raw, le.raw, -1, -1)
		return
	case partial:
		mk(doc.JSON, data, -1, -1) // JSON or not is known once all is read
		return
	}
	if le.state.Complete && len(data) <= theme.ChromaLimit {
		var ind bytes.Buffer
		if json.Indent(&ind, data, "", "  ") == nil {
			d.lines = d.wrapAll(theme.ChromaLines(ind.String()))
			return
		}
	}
	// Not JSON ([DONE], a cut-off or broken payload): show it with the
	// place where it stops being JSON marked.
	mark := len(data)
	if st := le.state; !st.Complete && !st.Empty {
		mark = st.Offset
		d.notes = d.wrapAll([]theme.Line{{{Text: "data is not JSON: " + st.String(), Class: theme.TokError}}})
	}
	mk(doc.JSON, data, mark, mark+1)
}

// Work starts what the pane waits for to show event ord: reading a big
// event whole, then indexing its layout. It returns nil when nothing is
// left or under way.
func (d *detailPane) Work(ord int) tea.Cmd {
	d.prepare(ord)
	if d.loading {
		if (d.reading && d.readOrd == d.key.ord) || d.key.ord < 0 {
			return nil
		}
		d.reading, d.readOrd = true, d.key.ord
		s, ev, ord := d.s, *d.s.Events.At(d.key.ord), d.key.ord
		return func() tea.Msg {
			raw, err := s.Raw(&ev)
			return eventLoadedMsg{s: s, ev: readEvent(ord, raw, err)}
		}
	}
	if d.doc != nil {
		return d.doc.IndexCmd()
	}
	return nil
}

// applyLoad lays out the whole event in place of its start, keeping the
// scroll position: the lines of the start are the same.
func (d *detailPane) applyLoad(msg eventLoadedMsg) {
	if msg.s != d.s || !d.reading || msg.ev.ord != d.readOrd {
		return // a read for another session, or one since superseded
	}
	d.reading = false
	if !d.loading || msg.ev.ord != d.key.ord {
		return // the selection moved on meanwhile
	}
	d.full, d.loading = msg.ev, false
	d.show(d.s.Events.At(d.key.ord), msg.ev, false)
	d.header = nil
}

// applyIndex takes the result of the doc's index command.
func (d *detailPane) applyIndex(msg doc.IndexedMsg) {
	if d.doc != nil && d.doc.Spec == msg.Spec {
		d.doc.Apply(msg)
	}
}

// Status says what the pane is still working on, or else where it stands
// in a body longer than the pane, for its title.
func (d *detailPane) Status() string {
	if st := d.busy(); st != "" {
		return st
	}
	if n := d.total(); n > d.bodyH() && d.key.ord >= 0 {
		return fmt.Sprintf("line %d/%d", d.scroll+1, n)
	}
	return ""
}

// busy says what the pane is still working on.
func (d *detailPane) busy() string {
	switch {
	case d.key.ord < 0:
		return ""
	case d.loading:
		return "reading " + plain.Bytes(int64(d.s.Events.At(d.key.ord).Len))
	case d.doc != nil && !d.doc.Done():
		return fmt.Sprintf("indexing %d%%", int(100*d.doc.Progress()))
	}
	return ""
}

func (d *detailPane) wrapAll(ls []theme.Line) []theme.Line {
	var out []theme.Line
	for _, l := range ls {
		out = append(out, theme.WrapSegs(l, d.w)...)
	}
	return out
}

// headerLines describe the event: what it is and where it sits.
func (d *detailPane) headerLines(ev *model.Event, ord int, rerr error) []theme.Line {
	s := d.s
	first := fmt.Sprintf("#%d  %s  %s  %s", ord, termtext.Safe(s.TypeName(ev.Type)), ev.Kind, ev.Dialect)
	second := fmt.Sprintf("bytes %d..%d (%d)  at %s", ev.Offset, ev.Offset+int64(ev.Len), ev.Len, plain.FormatTime(ev.At))
	if ev.Seq >= 0 {
		second += "  seq " + strconv.FormatInt(ev.Seq, 10)
	}
	if ev.Item >= 0 && int(ev.Item) < len(s.Items) {
		second += "  item " + plain.ItemLabel(s.Items[ev.Item])
	}
	out := []theme.Line{{{Text: first, Class: theme.TokKey}}, {{Text: second, Class: theme.TokComment}}}
	if fl := plain.FlagNames(ev); len(fl) > 0 {
		out = append(out, theme.Line{{Text: "flags: " + strings.Join(fl, ", "), Class: theme.TokError}})
	}
	if rerr != nil {
		out = append(out, theme.Line{{Text: "cannot read bytes back: " + termtext.Safe(rerr.Error()), Class: theme.TokError}})
	}
	return append(out, theme.Line{})
}

// headLines show an HTTP head with credentials redacted.
func (d *detailPane) headLines(ord int) []theme.Line {
	for _, h := range d.s.Heads {
		if h.Ordinal != ord {
			continue
		}
		out := []theme.Line{{{Text: termtext.Safe(fmt.Sprintf("%s %d", h.Proto, h.Status)), Class: theme.TokKey}}}
		for _, f := range h.Header {
			v := plain.RedactHeader(string(f.Name), string(f.Value), d.keepSecrets)
			out = append(out, theme.Line{{Text: termtext.Safe(string(f.Name)), Class: theme.TokField}, {Text: ": "}, {Text: termtext.Safe(v), Class: theme.TokString}})
		}
		return out
	}
	return nil
}

// View renders the visible lines of event ord.
func (d *detailPane) View(ord int, _ bool) string {
	d.prepare(ord)
	if ord < 0 {
		return strings.Join(cell.Block([]string{d.st.Muted.Render("no event selected")}, d.w, d.h), "\n")
	}
	if d.bottom && d.doc != nil && d.doc.Done() {
		d.scroll, d.bottom = 1<<30, false
	}
	h := d.bodyH()
	d.scroll = cell.Clamp(d.scroll, 0, max(d.total()-h, 0))
	lines := make([]string, 0, d.h)
	add := func(ls []theme.Line, from int) {
		for i := max(d.scroll-from, 0); i < len(ls) && len(lines) < h; i++ {
			lines = append(lines, theme.RenderSegs(ls[i], d.st))
		}
	}
	add(d.header, 0)
	add(d.exInline, len(d.header))
	add(d.notes, len(d.header)+len(d.exInline))
	add(d.lines, d.fixed())
	if d.doc != nil && len(lines) < h {
		from := max(d.scroll-d.fixed()-len(d.lines), 0)
		for _, l := range d.doc.Lines(from, from+h-len(lines)) {
			lines = append(lines, theme.RenderSegs(l, d.st))
		}
	}
	if d.exH > 0 {
		lines = cell.Block(lines, d.w, h)
		for _, l := range d.ex {
			lines = append(lines, theme.RenderSegs(l, d.st))
		}
	}
	return strings.Join(cell.Block(lines, d.w, d.h), "\n")
}
