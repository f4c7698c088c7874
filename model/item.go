package model

import (
	"bytes"
	"slices"
	"sort"

	"github.com/streamtap/streamtap/model/jsonscan"
)

// Change is a value an item or response took at an event: a status, a
// finish reason, an id.
type Change struct {
	Ordinal int
	Value   string
}

// History is a sequence of changes in stream order.
type History []Change

// Set records value v, set by event ord, unless it is the value already
// set last.
func (h *History) Set(ord int, v string) {
	if n := len(*h); n > 0 && (*h)[n-1].Value == v {
		return
	}
	*h = append(*h, Change{Ordinal: ord, Value: v})
}

// AsOf returns the value in force at event ord, or "".
func (h History) AsOf(ord int) string {
	i := sort.Search(len(h), func(i int) bool { return h[i].Ordinal > ord })
	if i == 0 {
		return ""
	}
	return h[i-1].Value
}

// Last returns the latest value, or "".
func (h History) Last() string {
	if len(h) == 0 {
		return ""
	}
	return h[len(h)-1].Value
}

// Fragment is one piece appended to a Buffer by one event.
type Fragment struct {
	Ordinal int32 // the event that added it
	End     int32 // length of the buffer after it
}

// Buffer is text assembled fragment by fragment. The whole text is kept
// once; each fragment records only where it ended, so the text as of any
// event is a prefix found by binary search.
type Buffer struct {
	b     []byte
	Frags []Fragment
}

// Add appends fragment p, added by event ord.
func (b *Buffer) Add(ord int, p []byte) {
	b.start(len(p))
	b.b = append(b.b, p...)
	b.Frags = append(b.Frags, Fragment{Ordinal: int32(ord), End: int32(len(b.b))})
}

// SetWhole makes p the buffer's one fragment, sized to fit: a value that
// arrives whole (an Ollama call's arguments) needs neither the room start
// gives deltas nor the copy trim makes of it at the item's close.
func (b *Buffer) SetWhole(ord int, p []byte) {
	b.b = slices.Clip(append([]byte(nil), p...))
	b.Frags = []Fragment{{Ordinal: int32(ord), End: int32(len(p))}}
}

// AddString adds the decoded JSON string v, decoding it straight into the
// buffer: a 50 MB delta then costs no 50 MB scratch copy on the way.
func (b *Buffer) AddString(ord int, v []byte) {
	if len(v) > exactAbove && cap(b.b) == 0 && len(b.Frags) == 0 {
		b.b, b.Frags = jsonscan.UnquoteSized(v), make([]Fragment, 0, 16)
	} else {
		b.start(len(v))
		b.b = jsonscan.Unquote(b.b, v)
	}
	b.Frags = append(b.Frags, Fragment{Ordinal: int32(ord), End: int32(len(b.b))})
}

// exactAbove is the size of a first fragment from which AddString sizes
// the buffer to its decoded length, at the cost of a pass over its
// escapes:
// sized by the escaped length, the 50 MB delta of a call took 47.7 MiB
// for 41.4 MiB of arguments, and trim copied them whole when the call
// closed (89 MiB for a moment, beside the framer's 64 MiB).
const exactAbove = 1 << 20

// start gives an empty buffer room for a typical call's arguments before
// its first fragment. Grown from nil by 3-10 byte deltas, a 200-byte
// argument took six allocations and its fragments seven; trim returns the
// room unused when the item closes.
func (b *Buffer) start(n int) {
	if cap(b.b) == 0 && len(b.Frags) == 0 {
		b.b = make([]byte, 0, max(n, 128))
		b.Frags = make([]Fragment, 0, 16)
	}
}

// The readers below accept a nil *Buffer as an empty one, since an item's
// optional buffers stay nil until used.

// Bytes returns everything assembled. The caller must not modify it.
func (b *Buffer) Bytes() []byte {
	if b == nil {
		return nil
	}
	return b.b
}

// String returns everything assembled.
func (b *Buffer) String() string { return string(b.Bytes()) }

// Len is the length assembled.
func (b *Buffer) Len() int { return len(b.Bytes()) }

// Count is the number of fragments.
func (b *Buffer) Count() int {
	if b == nil {
		return 0
	}
	return len(b.Frags)
}

// AsOf returns the text assembled by the end of event ord and the index of
// the last fragment in it (-1 when none).
func (b *Buffer) AsOf(ord int) ([]byte, int) {
	if b == nil {
		return nil, -1
	}
	i := sort.Search(len(b.Frags), func(i int) bool { return int(b.Frags[i].Ordinal) > ord })
	if i == 0 {
		return nil, -1
	}
	return b.b[:b.Frags[i-1].End], i - 1
}

// FragmentAt returns the span [start, end) that event ord added, if it added
// one.
func (b *Buffer) FragmentAt(ord int) (start, end int, ok bool) {
	if b == nil {
		return 0, 0, false
	}
	i := sort.Search(len(b.Frags), func(i int) bool { return int(b.Frags[i].Ordinal) >= ord })
	if i == len(b.Frags) || int(b.Frags[i].Ordinal) != ord {
		return 0, 0, false
	}
	if i > 0 {
		start = int(b.Frags[i-1].End)
	}
	// One event may add several fragments (a chunk with two deltas for the
	// same call); the span covers them all.
	j := i
	for j+1 < len(b.Frags) && int(b.Frags[j+1].Ordinal) == ord {
		j++
	}
	return start, int(b.Frags[j].End), true
}

// Stated is how an item keeps one source's statement of its final
// arguments or text: a Statement without its name (where it is kept names
// it), made or not, with its value shared with the assembled bytes when
// it equals them, so that a 20 MB .done costs no copy.
type Stated struct {
	Ordinal int // the event that stated it
	Value   string
	// sharedLen, when not 0, says the value is the first sharedLen-1 bytes
	// of the assembled arguments (or text), filled in when it is read. It
	// is an int32 as a Fragment's End is (a buffer's length fits), so that
	// it and Present share a word: a statement is 32 bytes, not 40, and a
	// call's statements fit a 176-byte allocation rather than 224.
	sharedLen int32
	Present   bool
}

// SourceName names the places a Responses call's arguments come from, in
// the order clients prefer them.
type SourceName uint8

const (
	SourceItemDone SourceName = iota // response.output_item.done item.arguments
	SourceArgsDone                   // response.function_call_arguments.done arguments
	SourceTerminal                   // the terminal response's output[] arguments
	SourceDeltas                     // the concatenated deltas
	SourceAdded                      // output_item.added (or content_block_start) initial arguments
	numSources
)

var sourceKeys = [...]string{"item_done", "arguments_done", "terminal", "deltas", "added"}

func (s SourceName) String() string { return sourceKeys[s] }

// ItemRole groups item types across dialects.
type ItemRole uint8

const (
	RoleOther     ItemRole = iota
	RoleCall               // a tool or function call with arguments
	RoleMessage            // assistant text
	RoleReasoning          // reasoning, thinking, summaries
)

// Item is an output item (Responses), content block (Anthropic), tool call
// or choice message (Chat) or function call or text part (Gemini): anything
// that is assembled across events.
type Item struct {
	Index   int // position in Session.Items
	Dialect Dialect
	Role    ItemRole
	// Resumed marks an item opened before the resume point of a resumed
	// stream (see Response.Resumed): its deltas are only the tail of its
	// content, so they are not weighed against the .done sources.
	Resumed bool
	// textDeltas counts the output_text deltas of a Responses message. It
	// and Resumed sit beside Dialect and Role, in the padding of Index's
	// word: an item stays in its allocation size class.
	textDeltas int32
	Type       string // the wire type: function_call, tool_use, text, thinking, function …
	ItemID     string // Responses item id
	CallID     string // the id a client answers with
	Name       string
	Position   int // output_index, block index or tool-call index; -1 when none
	Choice     int // Chat choice or Gemini candidate
	Response   int // index in Session.Responses, or -1
	First      int // ordinal of the first event that touched it
	Last       int // ordinal of the latest event that touched it
	Opened     int // ordinal of the event that opened it, or -1 when none did
	Closed     int // ordinal of the event that closed it, or -1
	Status     History
	Args       Buffer // a call's arguments as they arrived
	Text       Buffer // message text, reasoning text or thinking
	// Refusal and Sign (an Anthropic thinking signature) are nil until
	// their first fragment: few items have them, and a big stream has tens
	// of thousands of items.
	Refusal *Buffer
	Sign    *Buffer

	// statements holds every statement of the final arguments, so that a
	// disagreement between them is visible and provable; nil for items
	// that have none (most are not calls). Read it with Statement.
	statements *argStatements
	// IDs records each item id, call id or name seen on the item's events
	// when they differ from the first: evidence of ids changing mid-call.
	// It keeps the first MaxIDsKept observations of each field and kind;
	// MoreIDs counts them, and the rest, by field.
	IDs     []IDSeen
	MoreIDs []IDTally
	// Deltas counts the events that added argument fragments.
	Deltas int

	ext *itemExtra // text sources and replaced statements, for the few items that have them

	paths *PathArgs // arguments that arrive as values at JSON paths (Gemini partialArgs), rebuilt on query
}

// ArgsSourceOf states v as a source of the final arguments. When v equals
// the arguments assembled so far, as it does on a healthy stream, the
// source only marks that; its string is made when the source is read, and
// then shared by every source that agrees. A 50 MB call stated by its
// deltas, its .done event, output_item.done and the terminal snapshot is
// then held once while the stream is read, not four times.
func (it *Item) ArgsSourceOf(v []byte, ord int) Stated {
	if bytes.Equal(v, it.Args.Bytes()) {
		return Stated{Present: true, Ordinal: ord, sharedLen: int32(it.Args.Len() + 1)}
	}
	return Stated{Present: true, Ordinal: ord, Value: string(v)}
}

// ArgsSourceOfString is argsSourceOf for a JSON string value, compared
// with the arguments a few KiB at a time rather than decoded whole first.
func (it *Item) ArgsSourceOfString(v []byte, ord int) Stated {
	if jsonscan.EqualDecoded(v, it.Args.Bytes()) {
		return it.ArgsSourceOf(it.Args.Bytes(), ord)
	}
	return Stated{Present: true, Ordinal: ord, Value: string(jsonscan.Unquote(nil, v))}
}

// sharedArgs returns the first n bytes of the arguments as a string, made
// once for all the sources that share it. Only an item with statements
// shares its arguments, so the string is cached beside them.
func (it *Item) sharedArgs(n int) string {
	if it.statements == nil {
		return string(it.Args.Bytes()[:n])
	}
	if len(it.statements.argsStr) != n {
		it.statements.argsStr = string(it.Args.Bytes()[:n])
	}
	return it.statements.argsStr
}

// argsCached returns the arguments string sharedArgs made last, or "".
func (it *Item) argsCached() string {
	if it.statements == nil {
		return ""
	}
	return it.statements.argsStr
}

// argStatements is every statement of a call's final arguments, by
// SourceName, and the string the statements that share the arguments
// share. The string lives here rather than in Item, since only items with
// statements make it: an Item 16 bytes larger moves up a size class (352
// to 384 bytes), and a 100 MB stream holds tens of thousands of items,
// live until the end, which the collector marks again on every cycle.
type argStatements struct {
	by      [numSources]Stated
	argsStr string
}

// Statement returns source n's statement of the final arguments, and
// whether the stream made one.
func (it *Item) Statement(n SourceName) (Statement, bool) {
	if !it.Stating(n) {
		return Statement{}, false
	}
	src := it.resolveArgs(it.statements.by[n])
	return Statement{Name: n.String(), Ordinal: src.Ordinal, Value: src.Value}, true
}

// Stating reports whether source n stated the final arguments, without
// making a string of them as Statement may.
func (it *Item) Stating(n SourceName) bool {
	return it.statements != nil && it.statements.by[n].Present
}

// SetSource records src as source n's statement of the final arguments.
func (it *Item) SetSource(n SourceName, src Stated) {
	if it.statements == nil {
		it.statements = new(argStatements)
	}
	if old := it.statements.by[n]; old.Present {
		x := it.extra()
		x.replaced = append(x.replaced, replacedSource{name: uint8(n), src: old})
	}
	it.statements.by[n] = src
}

// RefusalBuffer and SignatureBuffer return the item's refusal and signature buffers,
// making them on first use.
func (it *Item) RefusalBuffer() *Buffer {
	if it.Refusal == nil {
		it.Refusal = new(Buffer)
	}
	return it.Refusal
}

func (it *Item) SignatureBuffer() *Buffer {
	if it.Sign == nil {
		it.Sign = new(Buffer)
	}
	return it.Sign
}

// Close marks the item closed by event ord and trims its buffers: append
// leaves up to half of a buffer unused, and a long stream keeps tens of
// thousands of closed items. Fragments that arrive later still append.
func (it *Item) Close(ord int) {
	it.Closed = ord
	it.Args.trim()
	it.Text.trim()
}

// trim drops unused capacity when it is more than an eighth.
func (b *Buffer) trim() {
	if cap(b.b)-len(b.b) > len(b.b)/8 {
		b.b = slices.Clip(slices.Clone(b.b))
	}
	if cap(b.Frags)-len(b.Frags) > len(b.Frags)/8 {
		b.Frags = slices.Clip(slices.Clone(b.Frags))
	}
}

// IsCall reports whether the item is a tool call.
func (it *Item) IsCall() bool { return it.Role == RoleCall }

// LastArgsOrdinal is the event that added the last fragment of the
// arguments, or the item's last event when none did.
func (it *Item) LastArgsOrdinal() int {
	if n := len(it.Args.Frags); n > 0 {
		return int(it.Args.Frags[n-1].Ordinal)
	}
	return it.Last
}

// AddTextDelta counts an output_text delta of a Responses message: the
// deltas then state its final text (see TextSourcesAsOf).
func (it *Item) AddTextDelta() { it.textDeltas++ }

// Touch widens the item's span of events (First, Last) to event ord.
func (it *Item) Touch(ord int) {
	if it.First < 0 || ord < it.First {
		it.First = ord
	}
	if ord > it.Last {
		it.Last = ord
	}
}

// SawID records an identifier observed on an event when it differs from the
// item's own.
func (it *Item) SawID(ord int, field, own, value string) {
	if value == "" || value == own {
		return
	}
	it.RecordID(ord, field, own, value)
}

// SawIDUnlessLearnt is seen for a call id or name, except that an item no
// output_item.added opened (an orphan, or one opened before a resumed
// stream's resume point) had none to change: its first value is learnt,
// not a change. Only an item opened with an empty value records the
// value's late arrival.
func (it *Item) SawIDUnlessLearnt(ord int, field, own, value string) {
	if own == "" && it.Opened < 0 {
		return
	}
	it.SawID(ord, field, own, value)
}

// FinalArgs returns the arguments a client would execute: for Responses the
// first present of item_done, arguments_done, terminal and the deltas; for
// the other dialects the assembled fragments (Gemini's built from its
// partial arguments).
func (it *Item) FinalArgs() string {
	b, v := it.finalArgsView()
	switch {
	case b == nil:
		return v
	case len(b) == len(it.argsCached()):
		return it.argsCached() // the same prefix of the same arguments
	}
	return string(b) // not cached: a report asks once
}

// finalArgsView returns FinalArgs as a view of the assembled bytes when it
// is one (b != nil), or else as a string: a report writer then streams a
// 50 MB call from the bytes instead of copying it first.
func (it *Item) finalArgsView() (b []byte, v string) {
	if it.paths != nil {
		return it.paths.render(-1), ""
	}
	st := it.finalStated()
	if st.shared > 0 {
		return it.Args.Bytes()[: st.shared-1 : st.shared-1], ""
	}
	return nil, st.value
}

// stated is a statement of the arguments as stored: either the first
// shared-1 bytes of the assembled arguments (shared > 0) or a value of
// its own.
type stated struct {
	shared int
	value  string
}

func (it *Item) stated(n SourceName) (stated, bool) {
	if n == SourceDeltas && it.Deltas > 0 {
		return stated{shared: it.Args.Len() + 1}, true
	}
	if !it.Stating(n) {
		return stated{}, false
	}
	src := it.statements.by[n]
	return stated{shared: int(src.sharedLen), value: src.Value}, true
}

// finalStated is the statement FinalArgs picks.
func (it *Item) finalStated() stated {
	for _, n := range []SourceName{SourceItemDone, SourceArgsDone, SourceTerminal} {
		if st, ok := it.stated(n); ok {
			return st
		}
	}
	if st, ok := it.stated(SourceAdded); it.Deltas == 0 && ok {
		return st
	}
	return stated{shared: it.Args.Len() + 1}
}

// same reports whether two statements are the same value, without making
// strings of shared ones.
func (it *Item) same(a, b stated) bool {
	switch {
	case a.shared > 0 && b.shared > 0:
		return a.shared == b.shared
	case a.shared > 0:
		return string(it.Args.Bytes()[:a.shared-1]) == b.value
	case b.shared > 0:
		return string(it.Args.Bytes()[:b.shared-1]) == a.value
	}
	return a.value == b.value
}

// ArgsAsOf returns the arguments assembled by the end of event ord.
func (it *Item) ArgsAsOf(ord int) []byte {
	if it.paths != nil {
		return it.paths.render(ord)
	}
	b, _ := it.Args.AsOf(ord)
	return b
}

// ArgsFragmentAt returns the span [start, end) of ArgsAsOf(ord) that event
// ord added, if it added one: what a view marks as the event's fragment.
// A dialect whose arguments are rebuilt from values (DialectInfo's
// ArgsRebuilt: Gemini's args objects and partialArgs) has no such span,
// since no event's bytes are a piece of the rendering.
func (it *Item) ArgsFragmentAt(ord int) (start, end int, ok bool) {
	if it.Dialect.Info().ArgsRebuilt {
		return 0, 0, false
	}
	return it.Args.FragmentAt(ord)
}

// SourcesDisagree reports whether the stated sources of the final arguments
// differ, and when they do, every stated value by source name. A healthy
// call, the common case by far, costs no allocation: a report over tens of
// thousands of calls asks this of each, and a 50 MB call is not copied to
// be compared.
func (it *Item) SourcesDisagree() (map[string]string, bool) {
	var first stated
	n, differ := 0, false
	for s := range SourceAdded {
		st, ok := it.stated(s)
		if !ok || (s == SourceDeltas && it.Resumed) {
			continue // a resumed item's deltas are only the tail
		}
		if n == 0 {
			first = st
		} else if !it.same(first, st) {
			differ = true
		}
		n++
	}
	if !differ {
		return nil, false
	}
	present := make(map[string]string, n)
	for s := range SourceAdded {
		if st, ok := it.stated(s); ok && (s != SourceDeltas || !it.Resumed) {
			if st.shared > 0 {
				st.value = it.sharedArgs(st.shared - 1)
			}
			present[s.String()] = st.value
		}
	}
	return present, true
}

// StatusLast is the item's latest status, "" when it never had one.
func (it *Item) StatusLast() string { return it.Status.Last() }
