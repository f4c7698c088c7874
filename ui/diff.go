package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// diffPane shows what the selected event changed: status transitions, the
// structural difference between an item's or a response's first and final
// snapshots, and the sequence numbers around it.
type diffPane struct {
	s    *model.Session
	st   *styles
	w, h int

	scroll int
	key    callsKey
	lines  []string
}

func (d *diffPane) setSize(w, h int) { d.w, d.h = w, max(h, 1) }

func (d *diffPane) scrollBy(n int) {
	d.scroll = clamp(d.scroll+n, 0, max(len(d.lines)-d.h, 0))
}

func (d *diffPane) view(ord int) string {
	k := callsKey{ord: ord, w: d.w, n: d.s.Len()}
	if k != d.key || d.lines == nil {
		if k.ord != d.key.ord {
			d.scroll = 0
		}
		d.key = k
		d.lines = d.build(ord)
	}
	d.scroll = clamp(d.scroll, 0, max(len(d.lines)-d.h, 0))
	end := min(d.scroll+d.h, len(d.lines))
	return strings.Join(block(d.lines[d.scroll:end], d.w, d.h), "\n")
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
		wrapped = append(wrapped, fit(l, d.w))
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
			out = append(out, "  "+st.Diff.Del.Render(Safe(from))+" "+glyphArrow+" "+st.Diff.Add.Render(Safe(c.Value))+"  "+st.Muted.Render(Safe(what)))
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
		line("item "+itemLabel(it), it.Status)
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
			out = append(out, "  added #"+strconv.Itoa(it.Opened)+" "+glyphArrow+" done "+ordOrNone(it.Closed)+d.st.Muted.Render("  item "+itemLabel(it)))
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
		out = append(out, "  created #"+strconv.Itoa(r.Created)+" "+glyphArrow+" terminal "+ordOrNone(r.Final)+d.st.Muted.Render("  response "+Safe(r.ID)))
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

// diffMembers reads member name of events a and b and diffs them.
func (d *diffPane) diffMembers(a, b int, name string) []string {
	va, erra := d.member(a, name)
	vb, errb := d.member(b, name)
	if erra != nil || errb != nil {
		return []string{d.st.Err.Render("    cannot read the snapshots back")}
	}
	var out []string
	jsonDiff("", va, vb, func(op byte, path, from, to string) {
		p := d.st.Diff.Path.Render(Safe(path))
		switch op {
		case '+':
			out = append(out, d.st.Diff.Add.Render("    + ")+p+" "+d.st.Diff.Add.Render(Safe(to)))
		case '-':
			out = append(out, d.st.Diff.Del.Render("    - ")+p+" "+d.st.Diff.Del.Render(Safe(from)))
		default:
			out = append(out, d.st.Diff.Change.Render("    ~ ")+p+" "+d.st.Diff.Del.Render(Safe(from))+" "+glyphArrow+" "+d.st.Diff.Add.Render(Safe(to)))
		}
	})
	if len(out) == 0 {
		out = append(out, d.st.Muted.Render("    identical"))
	}
	return out
}

func (d *diffPane) member(ord int, name string) (any, error) {
	raw, err := d.s.Raw(d.s.Events.At(ord))
	if err != nil {
		return nil, err
	}
	data, _ := eventData(raw)
	v := data
	if name == "response" && jsonscan.Get(data, "response") == nil {
		v = data // a non-streaming body is the response itself
	} else {
		v = jsonscan.Get(data, name)
	}
	return decodeJSON(v)
}

func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// diffValueMax bounds a value printed in a diff line.
const diffValueMax = 80

// jsonDiff walks two decoded JSON values and reports each difference:
// '+' added, '-' removed, '~' changed, with the JSON path.
func jsonDiff(path string, a, b any, emit func(op byte, path, from, to string)) {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			break
		}
		keys := make([]string, 0, len(x)+len(y))
		for k := range x {
			keys = append(keys, k)
		}
		for k := range y {
			if _, ok := x[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			p := path + "." + k
			va, ina := x[k]
			vb, inb := y[k]
			switch {
			case !ina:
				emit('+', p, "", short(vb))
			case !inb:
				emit('-', p, short(va), "")
			default:
				jsonDiff(p, va, vb, emit)
			}
		}
		return
	case []any:
		y, ok := b.([]any)
		if !ok {
			break
		}
		for i := range max(len(x), len(y)) {
			p := path + "[" + strconv.Itoa(i) + "]"
			switch {
			case i >= len(x):
				emit('+', p, "", short(y[i]))
			case i >= len(y):
				emit('-', p, short(x[i]), "")
			default:
				jsonDiff(p, x[i], y[i], emit)
			}
		}
		return
	}
	if sa, sb := short(a), short(b); sa != sb || !sameJSON(a, b) {
		if path == "" {
			path = "."
		}
		emit('~', path, sa, sb)
	}
}

func sameJSON(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

// short prints a value compactly on one line.
func short(v any) string {
	b, _ := json.Marshal(v)
	s := string(b)
	if len(s) > diffValueMax {
		s = truncate(s, diffValueMax)
	}
	return s
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
