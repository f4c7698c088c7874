package inject

import (
	"errors"
	"fmt"
	"strings"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

// Options tune Apply.
type Options struct {
	// Seed chooses where each defect acts when it fits in several
	// places: 0 takes the first place, any other value draws one, the
	// same one for the same stream and seed.
	Seed uint64
}

// Applied says where one defect acted. Ordinals count every frame of a
// stream from 0, as `streamtap events` and `check` count them: changed
// and added events in the output, dropped events in the input.
type Applied struct {
	Defect  string `json:"defect"`
	Dialect string `json:"dialect"`
	Rule    string `json:"rule"`
	// Also lists the rules check raises beside Rule for this defect.
	Also     []string `json:"also"`
	Changed  []int    `json:"changed"`
	Inserted []int    `json:"inserted"`
	Removed  []int    `json:"removed"`
	// Note says what the defect did there, in words.
	Note string `json:"note"`
}

// Report is what Apply did: the seed and each defect in the order
// applied. Its JSON shape is a contract (docs/json.md).
type Report struct {
	Seed    uint64    `json:"seed"`
	Defects []Applied `json:"defects"`
}

// NotApplicableError says a defect has no form for the stream's dialect,
// or finds no place in the stream.
type NotApplicableError struct {
	Defect  string
	Dialect string
	Why     string
}

func (e *NotApplicableError) Error() string {
	return fmt.Sprintf("%s: %s", e.Defect, e.Why)
}

// step is one defect's edit: for each event of its output, the index of
// the event of its input it came from, or -1 for an added one.
type step struct{ from []int }

// Apply applies the defects to data, one after the other (each to the
// stream the one before left), and returns the stream written back and
// where each defect acted.
func Apply(data []byte, defects []Defect, opt Options) ([]byte, Report, error) {
	rep := Report{Seed: opt.Seed, Defects: []Applied{}}
	var steps []step
	cur := data
	for _, d := range defects {
		st, err := Parse(cur)
		if err != nil {
			return nil, rep, err
		}
		// A wrapped stream (InvokeModel chunks) takes the variants its
		// carrier lists, which include those of the events inside.
		wrapped := st.dialect()
		v, ok := d.Variant(wrapped)
		if !ok {
			return nil, rep, &NotApplicableError{Defect: d.Name, Dialect: wrapped.String(),
				Why: fmt.Sprintf("applies to %s, not to this %s stream", strings.Join(d.Dialects(), ", "), wrapped)}
		}
		e := newEdit(st, opt.Seed, d.Name)
		if err := v.apply(e); err != nil {
			if errors.Is(err, errNoPlace) {
				why := "no place for it in this stream"
				if e.note != "" {
					why += ": " + e.note
				}
				return nil, rep, &NotApplicableError{Defect: d.Name, Dialect: wrapped.String(), Why: why}
			}
			return nil, rep, fmt.Errorf("%s: %w", d.Name, err)
		}
		if e.afterCut {
			return nil, rep, &NotApplicableError{Defect: d.Name, Dialect: wrapped.String(),
				Why: "it adds an event after one the stream cuts short, which would swallow it"}
		}
		events, changed, inserted, removed := e.done()
		if len(changed)+len(inserted)+len(removed) == 0 {
			return nil, rep, &NotApplicableError{Defect: d.Name, Dialect: wrapped.String(), Why: "it would change nothing in this stream"}
		}
		s := step{from: make([]int, len(events))}
		for i, ev := range events {
			s.from[i] = ev.from
		}
		st.Events = events
		cur = st.Bytes()
		steps = append(steps, s)
		rep.Defects = append(rep.Defects, Applied{Defect: d.Name, Dialect: wrapped.String(), Rule: v.Rule, Also: nonNil(v.Also),
			Changed: changed, Inserted: inserted, Removed: removed, Note: e.note})
	}
	// Each defect's ordinals are in the stream it produced (changed,
	// inserted) or read (removed): carry them to the final output and to
	// the input.
	for k := range rep.Defects {
		a := &rep.Defects[k]
		for m := k + 1; m < len(steps); m++ {
			a.Changed = forward(a.Changed, steps[m])
			a.Inserted = forward(a.Inserted, steps[m])
		}
		for m := k - 1; m >= 0; m-- {
			a.Removed = backward(a.Removed, steps[m])
		}
	}
	return cur, rep, nil
}

// forward maps ordinals of a step's input to its output, dropping those
// it removed.
func forward(ords []int, s step) []int {
	to := map[int]int{}
	for j, from := range s.from {
		if from >= 0 {
			to[from] = j
		}
	}
	out := []int{}
	for _, o := range ords {
		if j, ok := to[o]; ok {
			out = append(out, j)
		}
	}
	return out
}

// backward maps ordinals of a step's output to its input, dropping those
// it added.
func backward(ords []int, s step) []int {
	out := []int{}
	for _, o := range ords {
		if o < len(s.from) && s.from[o] >= 0 {
			out = append(out, s.from[o])
		}
	}
	return out
}

// dialect returns the dialect whose defects apply to the stream: the one
// most of its events have, or dInvoke for an
// InvokeModel stream, whose chunks wrap another dialect's events.
func (st *Stream) dialect() model.Dialect {
	var n [256]int
	invoke := false
	for _, ev := range st.Events {
		if ev.Kind != capture.FrameEvent || ev.Dialect == model.DialectUnknown {
			continue
		}
		n[ev.Dialect]++
		if ev.Wrapper == dInvoke || ev.Dialect == dInvoke {
			invoke = true
		}
	}
	best := model.DialectUnknown
	for d := range n {
		if n[d] > n[best] {
			best = model.Dialect(d)
		}
	}
	if invoke {
		return dInvoke
	}
	return best
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
