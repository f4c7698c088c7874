package model

// The as-of queries of sources.go return strings: a statement equal to the
// assembled arguments becomes one (made once and kept), and the deltas as
// of an event a new one each time. A view that redraws a call as of the
// selected event on every key press cannot pay that: for 20 MB arguments it
// is two 20 MB copies per frame. The queries below answer the same
// questions from the assembled bytes where they lie.

// FinalArgsViewAsOf is FinalArgsAsOf without a copy. When the arguments
// are a prefix of the assembled bytes (the fragments by then, or a
// statement equal to what they were when it was made), b is that prefix,
// which the caller must not modify, and v is ""; otherwise b is nil and v
// holds the value. For Gemini, b is the arguments rebuilt as of ord.
func (it *Item) FinalArgsViewAsOf(ord int) (b []byte, v string) {
	if ord < 0 {
		return it.finalArgsView()
	}
	if it.paths != nil {
		return it.paths.render(ord), ""
	}
	for _, n := range []SourceName{SourceItemDone, SourceArgsDone, SourceTerminal} {
		if src, ok := it.argsAsOf(n, ord); ok {
			return it.argsView(src)
		}
	}
	frags, i := it.Args.AsOf(ord)
	if src, ok := it.argsAsOf(SourceAdded, ord); ok && (it.Deltas == 0 || i < 0) {
		return it.argsView(src)
	}
	return frags[:len(frags):len(frags)], ""
}

// argsView is a statement of the arguments as a view of the assembled
// bytes when it shares them, else as its own value.
func (it *Item) argsView(src Stated) ([]byte, string) {
	if src.sharedLen > 0 {
		n := int(src.sharedLen) - 1
		return it.Args.Bytes()[:n:n], ""
	}
	return nil, src.Value
}

// SourcesDisagreeAsOf is SourcesAsOf's second result without making a
// string of any statement: a healthy call costs no allocation.
func (it *Item) SourcesDisagreeAsOf(ord int) bool {
	var first stated
	n := 0
	differs := func(st stated) bool {
		if n++; n == 1 {
			first = st
			return false
		}
		return !it.same(first, st)
	}
	for name := range SourceDeltas {
		if src, ok := it.argsAsOf(name, ord); ok && differs(stated{shared: int(src.sharedLen), value: src.Value}) {
			return true
		}
	}
	if it.Deltas == 0 || it.Resumed {
		return false
	}
	if it.paths != nil {
		d, ok := it.deltasAsOf(ord)
		return ok && differs(stated{value: d.Value})
	}
	b, i := it.Args.Bytes(), len(it.Args.Frags)-1
	if ord >= 0 {
		b, i = it.Args.AsOf(ord)
	}
	return i >= 0 && differs(stated{shared: len(b) + 1})
}

// TextSourcesDisagreeAsOf is TextSourcesAsOf's second result without
// making a string of any statement while they agree.
func (it *Item) TextSourcesDisagreeAsOf(ord int) bool {
	_, differ := it.textStatements(ord)
	return differ
}
