package inject

import (
	"slices"
	"strconv"
)

// The Responses defects of items and calls: their identity, lifecycle,
// arguments and text (responses.go holds the table and the stream's).

func respAddedDrop(e *edit) error {
	x := e.responses()
	var last *respItem
	for _, it := range x.items {
		if it.added >= 0 && it.done >= 0 && (last == nil || it.index > last.index) {
			last = it
		}
	}
	if last == nil {
		e.note = "no item added and closed"
		return errNoPlace
	}
	e.remove(last.added)
	e.note = "output_item.added of " + last.id + " cut"
	return nil
}

func respIndexNegative(e *edit) error {
	x := e.responses()
	var cands []int
	for _, it := range x.items {
		for _, d := range it.deltas {
			if e.st.Events[d].Type == "response.output_text.delta" {
				cands = append(cands, d)
			}
		}
	}
	i, err := e.pick(cands)
	if err != nil {
		e.note = "no output_text delta"
		return err
	}
	e.change(i, func(doc []byte) ([]byte, bool) { return setInt(doc, -1, "content_index") })
	e.note = "content_index -1"
	return nil
}

func respItemIDSwitch(e *edit) error {
	x := e.responses()
	it, err := e.pickItem(withDone(x.calls()), "call closed by output_item.done")
	if err != nil {
		return err
	}
	newID := it.id + "_final"
	e.change(it.done, func(doc []byte) ([]byte, bool) { return setString(doc, newID, "item", "id") })
	if k := e.terminalOutput(x, it); k >= 0 {
		e.change(x.terminal, func(doc []byte) ([]byte, bool) { return setString(doc, newID, "response", "output", k, "id") })
	}
	e.note = "output_item.done and the terminal output[] name " + it.id + " as " + newID
	return nil
}

func withDone(items []*respItem) []*respItem {
	return slices.DeleteFunc(slices.Clone(items), func(it *respItem) bool { return it.done < 0 })
}

func respItemIDDrop(e *edit) error {
	x := e.responses()
	var cands []int
	for _, it := range x.items {
		cands = append(cands, it.deltas...)
	}
	slices.Sort(cands)
	i, err := e.pick(cands)
	if err != nil {
		e.note = "no delta"
		return err
	}
	if !e.change(i, func(doc []byte) ([]byte, bool) { return del(doc, "item_id") }) {
		return errNoPlace
	}
	e.note = "item_id dropped from a delta"
	return nil
}

func respItemStatus(e *edit) error {
	x := e.responses()
	it, err := e.pickItem(withDone(x.items), "item closed by output_item.done")
	if err != nil {
		return err
	}
	e.change(it.done, func(doc []byte) ([]byte, bool) { return setString(doc, "in_progress", "item", "status") })
	e.note = "output_item.done of " + it.id + " says in_progress"
	return nil
}

func respItemDoneDrop(e *edit) error {
	x := e.responses()
	it, err := e.pickItem(withDone(x.items), "item closed by output_item.done")
	if err != nil {
		return err
	}
	e.remove(it.done)
	e.note = "output_item.done of " + it.id + " cut"
	return nil
}

func respItemDoneTwice(e *edit) error {
	x := e.responses()
	it, err := e.pickItem(withDone(x.items), "item closed by output_item.done")
	if err != nil {
		return err
	}
	e.insertAfter(it.done, e.like(it.done, e.st.Events[it.done].Doc, e.st.Events[it.done].Type))
	e.note = "output_item.done of " + it.id + " sent twice"
	return nil
}

// pickCall chooses a function call that output_item.added opened.
func (e *edit) pickCall(x *respIndex) (*respItem, error) {
	calls := slices.DeleteFunc(x.calls(), func(it *respItem) bool { return it.added < 0 })
	return e.pickItem(calls, "function call")
}

func respCallIDDrop(e *edit) error {
	x := e.responses()
	it, err := e.pickCall(x)
	if err != nil {
		return err
	}
	if !e.change(it.added, func(doc []byte) ([]byte, bool) { return del(doc, "item", "call_id") }) {
		return errNoPlace
	}
	e.note = "output_item.added of " + it.id + " has no call_id"
	return nil
}

func respCallIDSwitch(e *edit) error {
	x := e.responses()
	it, err := e.pickItem(withDone(x.calls()), "call closed by output_item.done")
	if err != nil {
		return err
	}
	ok := e.change(it.done, func(doc []byte) ([]byte, bool) {
		id, ok := getString(doc, "item", "call_id")
		if !ok {
			return doc, false
		}
		return setString(doc, id+"_2", "item", "call_id")
	})
	if !ok {
		return errNoPlace
	}
	e.note = "output_item.done of " + it.id + " names another call_id"
	return nil
}

func respNameLate(e *edit) error {
	x := e.responses()
	calls := slices.DeleteFunc(x.calls(), func(it *respItem) bool { return it.added < 0 || it.argsDone < 0 && it.done < 0 })
	it, err := e.pickItem(calls, "call named again after output_item.added")
	if err != nil {
		return err
	}
	if !e.change(it.added, func(doc []byte) ([]byte, bool) { return setString(doc, "", "item", "name") }) {
		return errNoPlace
	}
	e.note = "output_item.added of " + it.id + " has name \"\""
	return nil
}

func respNameSwitch(e *edit) error {
	x := e.responses()
	it, err := e.pickCall(x)
	if err != nil {
		return err
	}
	at, path := it.argsDone, []any{"name"}
	if at < 0 {
		at, path = it.done, []any{"item", "name"}
	}
	if at < 0 {
		return errNoPlace
	}
	ok := e.change(at, func(doc []byte) ([]byte, bool) {
		name, ok := getString(doc, path...)
		if !ok {
			return doc, false
		}
		return setString(doc, name+"_v2", path...)
	})
	if !ok {
		return errNoPlace
	}
	e.note = "a later event names " + it.id + " otherwise"
	return nil
}

// finalArgs returns the places that state a call's final arguments:
// function_call_arguments.done, output_item.done and the terminal
// output[], each as an event and a path.
func (e *edit) finalArgs(x *respIndex, it *respItem) []textRef {
	var out []textRef
	if it.argsDone >= 0 {
		out = append(out, textRef{i: it.argsDone, path: []any{"arguments"}})
	}
	if it.done >= 0 {
		out = append(out, textRef{i: it.done, path: []any{"item", "arguments"}})
	}
	if k := e.terminalOutput(x, it); k >= 0 {
		out = append(out, textRef{i: x.terminal, path: []any{"response", "output", k, "arguments"}})
	}
	return out
}

func respArgsDiffer(e *edit) error {
	x := e.responses()
	it, err := e.pickCall(x)
	if err != nil {
		return err
	}
	refs := e.finalArgs(x, it)
	if len(refs) == 0 || len(it.deltas) == 0 {
		e.note = "the call has no deltas or no .done"
		return errNoPlace
	}
	args, _ := getString(e.st.Events[refs[0].i].Doc, refs[0].path...)
	changed := changedArgs(args)
	for _, r := range refs {
		e.change(r.i, func(doc []byte) ([]byte, bool) { return setString(doc, changed, r.path...) })
	}
	e.note = it.id + ": the deltas spell " + args + ", .done and after state " + changed
	return nil
}

func respTextDiffer(e *edit) error {
	x := e.responses()
	msgs := slices.DeleteFunc(slices.Clone(x.items), func(it *respItem) bool { return it.textDone < 0 || len(it.deltas) == 0 })
	it, err := e.pickItem(msgs, "message with output_text.done")
	if err != nil {
		return err
	}
	e.change(it.textDone, func(doc []byte) ([]byte, bool) {
		text, _ := getString(doc, "text")
		return setString(doc, text+" (changed)", "text")
	})
	e.note = "output_text.done of " + it.id + " states another text"
	return nil
}

func respArgsTruncated(e *edit) error {
	x := e.responses()
	calls := slices.DeleteFunc(x.calls(), func(it *respItem) bool {
		return it.added < 0 || len(it.deltas) == 0 || len(e.finalArgs(x, it)) == 0
	})
	it, err := e.pickItem(calls, "call with argument deltas and .done")
	if err != nil {
		return err
	}
	last := -1
	for _, d := range it.deltas {
		if s, _ := getString(e.st.Events[d].Doc, "delta"); s != "" {
			last = d
		}
	}
	if last < 0 {
		return errNoPlace
	}
	cut := func(path ...any) func(doc []byte) ([]byte, bool) {
		return func(doc []byte) ([]byte, bool) {
			s, ok := getString(doc, path...)
			if !ok || s == "" {
				return doc, false
			}
			return setString(doc, s[:len(s)-1], path...)
		}
	}
	e.change(last, cut("delta"))
	for _, r := range e.finalArgs(x, it) {
		e.change(r.i, cut(r.path...))
	}
	e.note = "the arguments of " + it.id + " lose their last character everywhere"
	return nil
}

func respArgsDoneOnly(e *edit) error {
	x := e.responses()
	calls := slices.DeleteFunc(x.calls(), func(it *respItem) bool { return len(it.deltas) == 0 || it.argsDone < 0 })
	it, err := e.pickItem(calls, "call with deltas and .done")
	if err != nil {
		return err
	}
	for _, d := range it.deltas {
		e.remove(d)
	}
	e.note = "the argument deltas of " + it.id + " cut"
	return nil
}

func respArgsInAdded(e *edit) error {
	x := e.responses()
	calls := slices.DeleteFunc(x.calls(), func(it *respItem) bool { return it.added < 0 || len(it.deltas) == 0 })
	it, err := e.pickItem(calls, "call with argument deltas")
	if err != nil {
		return err
	}
	refs := e.finalArgs(x, it)
	if len(refs) == 0 {
		return errNoPlace
	}
	args, _ := getString(e.st.Events[refs[0].i].Doc, refs[0].path...)
	if args == "" || !e.change(it.added, func(doc []byte) ([]byte, bool) { return setString(doc, args, "item", "arguments") }) {
		return errNoPlace
	}
	e.note = "output_item.added of " + it.id + " carries the whole arguments"
	return nil
}

func respOutputOrder(e *edit) error {
	x := e.responses()
	// Two neighbouring items, both added and closed, trade their
	// output_index on every event (and their places in the terminal
	// output[], which lists items in output_index order): the second is
	// added first.
	var cands []int
	for k := 0; k+1 < len(x.items); k++ {
		a, b := x.items[k], x.items[k+1]
		if a.added >= 0 && b.added >= 0 && a.done >= 0 && b.done >= 0 && b.index == a.index+1 && a.added < b.added {
			cands = append(cands, k)
		}
	}
	k, err := e.pick(cands)
	if err != nil {
		e.note = "no two neighbouring items"
		return err
	}
	a, b := x.items[k], x.items[k+1]
	for _, pair := range [][2]*respItem{{a, b}, {b, a}} {
		for _, i := range pair[0].events {
			e.change(i, func(doc []byte) ([]byte, bool) { return setInt(doc, pair[1].index, "output_index") })
		}
	}
	ka, kb := e.terminalOutput(x, a), e.terminalOutput(x, b)
	if ka >= 0 && kb >= 0 {
		e.change(x.terminal, func(doc []byte) ([]byte, bool) {
			va, vb := get(doc, "response", "output", ka), get(doc, "response", "output", kb)
			sa, _ := within(doc, va)
			sb, _ := within(doc, vb)
			if sa > sb {
				sa, sb, va, vb = sb, sa, vb, va
			}
			out := append([]byte(nil), doc[:sa]...)
			out = append(out, vb...)
			out = append(out, doc[sa+len(va):sb]...)
			out = append(out, va...)
			return append(out, doc[sb+len(vb):]...), true
		})
	}
	e.note = a.id + ", added first, says output_index " + strconv.Itoa(b.index) + "; " + b.id + " says " + strconv.Itoa(a.index)
	return nil
}
