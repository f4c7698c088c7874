package model

import (
	"slices"

	"github.com/streamtap/streamtap/model/jsonscan"
)

// TextSourceName names the places a Responses message's final text is
// stated, beside the deltas that build it.
type TextSourceName uint8

const (
	TextItemDone TextSourceName = iota // response.output_item.done item.content[].text
	TextDone                           // response.output_text.done text
	TextPartDone                       // response.content_part.done part.text
	TextTerminal                       // the terminal response's output[] content[].text
	TextDeltas                         // the concatenated output_text deltas
	numTextSources
)

var textSourceKeys = [...]string{"item_done", "text_done", "part_done", "terminal", "deltas"}

func (n TextSourceName) String() string { return textSourceKeys[n] }

// textStatements is every statement of a message's final text, by
// TextSourceName. A statement made per content part (.done events) is the
// concatenation of the parts stated so far, in content_index order, as the
// item-level statements are.
type textStatements [numTextSources]Stated

// replacedSource is a statement that a later one of the same source
// replaced (a second .done, a second terminal event): kept so that the
// sources as of an earlier event are those stated by then.
type replacedSource struct {
	text bool // a text source, else an arguments source
	name uint8
	src  Stated
}

// textParts holds the per-part statements of a message with more than one
// content part, by source and content_index; nil for the common single part.
type textParts map[TextSourceName]map[int]string

// itemExtra is what few items need: the text sources of a message,
// statements replaced by later ones. Kept apart so that the tens of
// thousands of items of a big stream do not each carry it.
type itemExtra struct {
	text     textStatements // every zero statement (not Present) until stated
	parts    textParts
	replaced []replacedSource
	textStr  string // the text as a string, shared by the text sources that state it
	run      *ToolRun
}

func (it *Item) extra() *itemExtra {
	if it.ext == nil {
		it.ext = new(itemExtra)
	}
	return it.ext
}

// TextStatement returns source n's statement of a message's final text,
// and whether the stream made one. The deltas are not a statement here:
// they are the item's Text.
func (it *Item) TextStatement(n TextSourceName) (Statement, bool) {
	if it.ext == nil || n >= TextDeltas || !it.ext.text[n].Present {
		return Statement{}, false
	}
	src := it.resolveText(it.ext.text[n])
	return Statement{Name: n.String(), Ordinal: src.Ordinal, Value: src.Value}, true
}

// resolveText fills in the value of a statement shared with the text.
func (it *Item) resolveText(src Stated) Stated {
	if src.sharedLen > 0 {
		n, x := int(src.sharedLen)-1, it.extra()
		if len(x.textStr) != n {
			x.textStr = string(it.Text.Bytes()[:n])
		}
		src.Value, src.sharedLen = x.textStr, 0
	}
	return src
}

// resolveArgs fills in the value of a statement shared with the arguments.
func (it *Item) resolveArgs(src Stated) Stated {
	if src.sharedLen > 0 {
		src.Value, src.sharedLen = it.sharedArgs(int(src.sharedLen)-1), 0
	}
	return src
}

func (it *Item) setTextSource(n TextSourceName, src Stated) {
	x := it.extra()
	if old := x.text[n]; old.Present {
		x.replaced = append(x.replaced, replacedSource{text: true, name: uint8(n), src: old})
	}
	x.text[n] = src
}

// textSourceOf states v as a source of the final text, shared with the
// text when it equals the text so far (see argsSourceOf).
func (it *Item) textSourceOf(v []byte, ord int) Stated {
	if string(v) == string(it.Text.Bytes()) {
		return Stated{Present: true, Ordinal: ord, sharedLen: int32(it.Text.Len() + 1)}
	}
	return Stated{Present: true, Ordinal: ord, Value: string(v)}
}

// StateTextPart records a per-part statement (output_text.done,
// content_part.done): raw is the part's text as a JSON string, ci its
// content_index.
func (it *Item) StateTextPart(n TextSourceName, ci int, raw []byte, ord int) {
	x := it.extra()
	if x.parts == nil && ci == 0 {
		if jsonscan.EqualDecoded(raw, it.Text.Bytes()) {
			it.setTextSource(n, Stated{Present: true, Ordinal: ord, sharedLen: int32(it.Text.Len() + 1)})
		} else {
			it.setTextSource(n, Stated{Present: true, Ordinal: ord, Value: string(jsonscan.Unquote(nil, raw))})
		}
		return
	}
	if x.parts == nil {
		x.parts = textParts{}
	}
	byIndex := x.parts[n]
	if byIndex == nil {
		byIndex = map[int]string{}
		x.parts[n] = byIndex
		if x.text[n].Present {
			byIndex[0] = it.resolveText(x.text[n]).Value // stated before a second part came
		}
	}
	byIndex[ci] = string(jsonscan.Unquote(nil, raw))
	var all []byte
	for _, k := range slices.Sorted(func(yield func(int) bool) {
		for k := range byIndex {
			if !yield(k) {
				return
			}
		}
	}) {
		all = append(all, byIndex[k]...)
	}
	it.setTextSource(n, it.textSourceOf(all, ord))
}

// TextSourcesDisagree reports whether the statements of a message's final
// text differ from each other or from its deltas, and when they do, every
// stated value by source name. Like SourcesDisagree it costs nothing on a
// healthy message.
func (it *Item) TextSourcesDisagree() (map[string]string, bool) {
	return it.textStatements(-1)
}

// textStatements is TextSourcesDisagree as of event ord (all when ord < 0).
func (it *Item) textStatements(ord int) (map[string]string, bool) {
	if it.ext == nil {
		return nil, false
	}
	var first Stated
	n, differ := 0, false
	each := func(yield func(TextSourceName, Stated) bool) {
		for name := range TextDeltas {
			if src, ok := it.textAsOf(name, ord); ok && !yield(name, src) {
				return
			}
		}
		if d, ok := it.textDeltasAsOf(ord); ok {
			yield(TextDeltas, d)
		}
	}
	for _, src := range each {
		if n == 0 {
			first = src
		} else if !it.sameText(first, src) {
			differ = true
		}
		n++
	}
	if !differ {
		return nil, false
	}
	out := make(map[string]string, n)
	for name, src := range each {
		out[name.String()] = it.resolveText(src).Value
	}
	return out, true
}

// sameText compares two text statements without making strings of shared
// ones.
func (it *Item) sameText(a, b Stated) bool {
	switch {
	case a.sharedLen > 0 && b.sharedLen > 0:
		return a.sharedLen == b.sharedLen
	case a.sharedLen > 0:
		return string(it.Text.Bytes()[:a.sharedLen-1]) == b.Value
	case b.sharedLen > 0:
		return string(it.Text.Bytes()[:b.sharedLen-1]) == a.Value
	}
	return a.Value == b.Value
}

// textAsOf returns the statement of source n in force at the end of event
// ord (the latest when ord < 0), unresolved.
func (it *Item) textAsOf(n TextSourceName, ord int) (Stated, bool) {
	if it.ext == nil {
		return Stated{}, false
	}
	return it.sourceAsOf(true, uint8(n), it.ext.text[n], ord)
}

// sourceAsOf picks, of a source's latest statement and the ones it
// replaced, the one in force at the end of event ord.
func (it *Item) sourceAsOf(text bool, name uint8, latest Stated, ord int) (Stated, bool) {
	if !latest.Present {
		return Stated{}, false
	}
	if ord < 0 || latest.Ordinal <= ord {
		return latest, true
	}
	if it.ext == nil {
		return Stated{}, false
	}
	for i := len(it.ext.replaced) - 1; i >= 0; i-- {
		r := it.ext.replaced[i]
		if r.text == text && r.name == name && r.src.Ordinal <= ord {
			return r.src, true
		}
	}
	return Stated{}, false
}

// textDeltasAsOf states the output_text deltas received by the end of
// event ord as a source: the whole text so far, shared. A resumed item's
// deltas are only its tail and state nothing.
func (it *Item) textDeltasAsOf(ord int) (Stated, bool) {
	if it.textDeltas == 0 || it.Resumed {
		return Stated{}, false
	}
	b, last := it.Text.Bytes(), len(it.Text.Frags)-1
	if ord >= 0 {
		b, last = it.Text.AsOf(ord)
	}
	if last < 0 {
		return Stated{}, false
	}
	return Stated{Present: true, Ordinal: int(it.Text.Frags[last].Ordinal), sharedLen: int32(len(b) + 1)}, true
}

// Statement is one source's statement of an item's final content as of an
// event: its name (a SourceName or TextSourceName key, as calls --json
// writes them), the event that made it (for the deltas, the latest delta
// by then) and the value.
type Statement struct {
	Name    string
	Ordinal int
	Value   string
}

// SourcesAsOf returns the statements of a call's final arguments made by
// the end of event ord (all when ord < 0), in the order clients prefer
// them (item_done, arguments_done, terminal, deltas; the arguments of
// output_item.added are not a statement of the final ones), and whether
// they disagree. At the event that brings a disagreeing .done it reports
// the disagreement as of that event. A resumed item's deltas are left out,
// as SourcesDisagree leaves them out.
func (it *Item) SourcesAsOf(ord int) ([]Statement, bool) {
	var out []Statement
	for n := range SourceDeltas {
		if src, ok := it.argsAsOf(n, ord); ok {
			src = it.resolveArgs(src)
			out = append(out, Statement{Name: n.String(), Ordinal: src.Ordinal, Value: src.Value})
		}
	}
	if d, ok := it.deltasAsOf(ord); ok && !it.Resumed {
		out = append(out, d)
	}
	return out, disagree(out)
}

// TextSourcesAsOf is SourcesAsOf for a Responses message's text: the
// statements of output_item.done, output_text.done, content_part.done,
// the terminal output[] and the deltas made by the end of event ord.
func (it *Item) TextSourcesAsOf(ord int) ([]Statement, bool) {
	var out []Statement
	for n := range TextDeltas {
		if src, ok := it.textAsOf(n, ord); ok {
			src = it.resolveText(src)
			out = append(out, Statement{Name: n.String(), Ordinal: src.Ordinal, Value: src.Value})
		}
	}
	if d, ok := it.textDeltasAsOf(ord); ok {
		d = it.resolveText(d)
		out = append(out, Statement{Name: TextDeltas.String(), Ordinal: d.Ordinal, Value: d.Value})
	}
	return out, disagree(out)
}

func disagree(stmts []Statement) bool {
	for _, s := range stmts[min(1, len(stmts)):] {
		if s.Value != stmts[0].Value {
			return true
		}
	}
	return false
}

// argsAsOf returns arguments source n's statement in force at the end of
// event ord, unresolved.
func (it *Item) argsAsOf(n SourceName, ord int) (Stated, bool) {
	if it.statements == nil {
		return Stated{}, false
	}
	return it.sourceAsOf(false, uint8(n), it.statements.by[n], ord)
}

// deltasAsOf states the argument fragments received by the end of event
// ord (Gemini's rebuilt from its partial arguments).
func (it *Item) deltasAsOf(ord int) (Statement, bool) {
	if it.Deltas == 0 {
		return Statement{}, false
	}
	if it.paths != nil {
		last := -1
		for _, op := range it.paths.Ops {
			if ord >= 0 && op.Ord > ord {
				break
			}
			last = op.Ord
		}
		if last < 0 {
			return Statement{}, false
		}
		return Statement{Name: SourceDeltas.String(), Ordinal: last, Value: string(it.paths.render(ord))}, true
	}
	b, i := it.Args.Bytes(), len(it.Args.Frags)-1
	if ord >= 0 {
		b, i = it.Args.AsOf(ord)
	}
	if i < 0 {
		return Statement{}, false
	}
	return Statement{Name: SourceDeltas.String(), Ordinal: int(it.Args.Frags[i].Ordinal), Value: string(b)}, true
}

// FinalArgsAsOf returns the arguments `calls` would report for the call if
// the stream had ended with event ord (FinalArgs when ord < 0): the first
// stated by then of output_item.done, function_call_arguments.done and the
// terminal output[], else the fragments so far (or output_item.added's
// arguments while no fragment has come). ArgsAsOf, by contrast, is the
// fragments alone, which a view marks the event's fragment in.
func (it *Item) FinalArgsAsOf(ord int) string {
	if ord < 0 {
		return it.FinalArgs()
	}
	b, v := it.FinalArgsViewAsOf(ord)
	if b != nil {
		return string(b)
	}
	return v
}

// FinalTextAsOf returns the text `calls` reports for the item as of event
// ord (all when ord < 0): the text assembled so far, from the deltas, or
// from a .done or snapshot when no delta came.
func (it *Item) FinalTextAsOf(ord int) []byte {
	if ord < 0 {
		return it.Text.Bytes()
	}
	b, _ := it.Text.AsOf(ord)
	return b
}

// StateSnapshotText records a Responses message snapshot's text
// (output_item.done, the terminal output[]: its output_text parts,
// concatenated) as a source of the final text. The common single part that
// equals the text is compared where it lies, not decoded first. Only the
// Responses assembly calls it, with its own items.
func (s *Session) StateSnapshotText(it *Item, n TextSourceName, content []byte, ord int) {
	if it.Role != RoleMessage {
		return
	}
	var raws [][]byte
	s.idx.Elements(content, func(_ int, part []byte) bool {
		if jsonscan.Equal(s.idx.Get(part, "type"), "output_text") {
			raws = append(raws, s.idx.Get(part, "text"))
		}
		return true
	})
	switch {
	case len(raws) == 0:
		return
	case len(raws) == 1 && jsonscan.Kind(raws[0]) == '"' && jsonscan.EqualDecoded(raws[0], it.Text.Bytes()):
		it.setTextSource(n, Stated{Present: true, Ordinal: ord, sharedLen: int32(it.Text.Len() + 1)})
		return
	}
	var text []byte
	for _, raw := range raws {
		text = jsonscan.Unquote(text, raw)
	}
	it.setTextSource(n, it.textSourceOf(text, ord))
}
