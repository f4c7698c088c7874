package doc

import (
	"sort"

	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/ui/theme"
)

// Saved layout states: one at the first line start after every
// markEveryBytes of source or markEveryLines lines, whichever comes first,
// so drawing any screen lays out at most that much before it.
const (
	markEveryBytes = 4 << 10
	markEveryLines = 256
)

// Work bounds. A document up to syncIndexMax is indexed when it is made;
// a larger one is indexed off the event loop, IndexChunk per command,
// while the event loop lays out at most SyncBudget past the indexed
// part per key press (a page down beyond it) and waits for the rest.
const (
	syncIndexMax = 256 << 10
	IndexChunk   = 4 << 20
	SyncBudget   = 512 << 10
)

// Layout is one document laid out lazily: the index of saved layout states
// grows from the start, on the event loop a screen at a time or off it a
// chunk at a time, until it reaches the end and the line count is exact.
// A doc belongs to the event loop; commands get only its immutable spec
// and copies of states.
type Layout struct {
	Spec  *Spec         // also names the doc in its commands' messages
	marks []layoutState // saved line starts, in order
	front layoutState   // the first line start not laid out yet
	stuck bool          // a partial doc reached the end of what it has
	busy  bool          // an index command is under way

	// judge asks for the JSON state of the source, as arguments that are
	// final or may still grow: worked out at once for a small doc, by the
	// first index command for a big one (it costs O(size)).
	judge, final bool
	Judged       bool
	State        model.JSONState
}

// New makes the document of sp. A small one is indexed at once.
func New(sp *Spec) *Layout {
	d := &Layout{Spec: sp}
	d.front = sp.start()
	d.marks = []layoutState{d.front}
	if len(sp.Src) <= syncIndexMax {
		d.Extend(1<<62, len(sp.Src)+1)
	}
	return d
}

// NewJudged makes the document of JSON arguments whose state the pane
// shows (final: no more fragments can come).
func NewJudged(sp *Spec, final bool) *Layout {
	d := New(sp)
	d.judge, d.final = true, final
	if len(sp.Src) <= syncIndexMax {
		d.State, d.Judged = model.ArgsState(sp.Src, final), true
	}
	return d
}

// Done reports whether every line is laid out, so known is exact.
func (d *Layout) Done() bool { return d.front.done }

// Known is the number of lines laid out so far: all of them once done.
func (d *Layout) Known() int { return d.front.line }

// Progress is the share of the source laid out, for "indexing n%".
func (d *Layout) Progress() float64 {
	if len(d.Spec.Src) == 0 || d.Done() {
		return 1
	}
	return float64(d.front.pos) / float64(len(d.Spec.Src))
}

// indexRun lays out lines from st until maxLine, until budget bytes of
// source are consumed, or to the end, saving states as it goes (last is
// the last state saved before st). It is a pure function of its
// arguments, so it may run in a command.
func (sp *Spec) indexRun(st, last layoutState, maxLine, budget int) (marks []layoutState, front layoutState, stuck bool) {
	var out lineOut
	limit := st.pos + budget
	for !st.done && st.line < maxLine && st.pos < limit {
		prev := st
		if !sp.fill(&st, &out) {
			break
		}
		if sp.Partial && (st.done || st.pos > len(sp.Src)-partialMargin) {
			return marks, prev, true
		}
		if !st.done && (st.pos-last.pos >= markEveryBytes || st.line-last.line >= markEveryLines) {
			marks = append(marks, st)
			last = st
		}
	}
	return marks, st, false
}

// Extend lays out lines on the event loop until at least line toLine is
// known, within budget bytes of source.
func (d *Layout) Extend(toLine, budget int) {
	if d.Done() || d.stuck || d.front.line >= toLine {
		return
	}
	marks, front, stuck := d.Spec.indexRun(d.front, d.marks[len(d.marks)-1], toLine, budget)
	d.marks = append(d.marks, marks...)
	d.front, d.stuck = front, stuck
}

// Lines lays out display lines [from, to), as far as they are known after
// laying out up to a page more on the event loop.
func (d *Layout) Lines(from, to int) []theme.Line {
	d.Extend(to, SyncBudget)
	to = min(to, d.Known())
	if from >= to {
		return nil
	}
	st := d.markBefore(from)
	out := lineOut{}
	for st.line < from && d.Spec.fill(&st, &out) {
	}
	res := make([]theme.Line, 0, to-from)
	out.keep = true
	for st.line < to && d.Spec.fill(&st, &out) {
		res = append(res, out.segs)
	}
	return res
}

// markBefore is the last saved state at or before line.
func (d *Layout) markBefore(line int) layoutState {
	i := sort.Search(len(d.marks), func(i int) bool { return d.marks[i].line > line })
	return d.marks[max(i-1, 0)]
}

// LineOf is the display line that shows source byte pos, or -1 when the
// layout has not got there yet. With more, it first lays out up to
// SyncBudget further to get there.
func (d *Layout) LineOf(pos int, more bool) int {
	if pos < 0 {
		return -1
	}
	if !d.Done() && pos >= d.front.pos {
		if more {
			d.Extend(1<<62, min(pos-d.front.pos+1, SyncBudget))
		}
		if !d.Done() && pos >= d.front.pos {
			return -1
		}
	}
	i := sort.Search(len(d.marks), func(i int) bool { return d.marks[i].pos > pos })
	st := d.marks[max(i-1, 0)]
	var out lineOut
	for {
		prev := st
		if !d.Spec.fill(&st, &out) || st.pos > pos || st.done {
			return prev.line
		}
	}
}

// IndexedMsg carries the states an index command laid out for the doc
// of spec sp. The spec is unique to its doc (a new doc, for a new
// event, width or mode, has a new one), so it serves as the generation: a
// message whose doc is no longer shown is dropped.
type IndexedMsg struct {
	Spec  *Spec
	marks []layoutState
	front layoutState
	State *model.JSONState // the source's JSON state, when asked for
}

// IndexCmd lays out the next chunk of the doc off the event loop, or is
// nil when there is nothing to do or a command is already under way.
func (d *Layout) IndexCmd() tea.Cmd {
	judge := d.judge && !d.Judged
	if (d.Done() && !judge) || d.stuck || d.busy || d.Spec.Partial {
		return nil
	}
	d.busy = true
	sp, st, last, final := d.Spec, d.front, d.marks[len(d.marks)-1], d.final
	return func() tea.Msg {
		msg := IndexedMsg{Spec: sp, front: st}
		if judge {
			state := model.ArgsState(sp.Src, final)
			msg.State = &state
		}
		if !st.done {
			msg.marks, msg.front, _ = sp.indexRun(st, last, 1<<62, IndexChunk)
		}
		return msg
	}
}

// Apply takes the states of an index command. The layout is deterministic,
// so when the event loop laid out some of the same lines meanwhile, the
// states agree and only the ones past its own are new.
func (d *Layout) Apply(msg IndexedMsg) {
	d.busy = false
	if msg.State != nil {
		d.State, d.Judged = *msg.State, true
	}
	if msg.front.line <= d.front.line {
		return
	}
	last := d.marks[len(d.marks)-1].line
	for _, mk := range msg.marks {
		if mk.line > last {
			d.marks = append(d.marks, mk)
		}
	}
	d.front = msg.front
}
