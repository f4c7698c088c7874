package doc

import (
	"bytes"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/charmbracelet/x/ansi"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/termtext"
	"github.com/streamtap/streamtap/ui/plain"
	"github.com/streamtap/streamtap/ui/theme"
)

// A document is bytes laid out as display lines: pretty-printed JSON that
// may be cut short or invalid, bytes as received, or text. The layout is a
// state machine that makes one display line at a time from a layoutState,
// so a 50 MB document never has to be laid out whole: a screen starts from
// the nearest saved state (doc.go keeps one every few KiB) and costs
// O(screen). The machine is deterministic, so lines laid out from a saved
// state are exactly the lines a layout from the start would make there.

// Mode says how a document's bytes are laid out.
type Mode uint8

const (
	JSON Mode = iota // pretty-printed JSON, cut short or invalid allowed
	Raw              // bytes as received: line endings shown, SSE fields set apart
	Head             // an HTTP head as received, secret header values redacted
	Text             // prose: broken at \n, wrapped at spaces (message text, reasoning)
)

// Spec is what one document is laid out from. It is never modified once
// made, so a layout may run on any goroutine.
type Spec struct {
	Src  []byte // never modified: lines point into it
	Mode Mode
	// W is the display width in cells; 0 makes unwrapped logical lines.
	W int
	// Prefix goes before every logical line ("  " in the calls pane) and
	// sets the indent of wrapped continuation lines.
	Prefix      string
	KeepSecrets bool
	// ms and me mark the bytes [ms, me): the fragment the selected event
	// added, or where data stops being JSON.
	MarkStart, MarkEnd int
	// Partial says src is only the start of the data: lines that end near
	// its end may still change, so they are not laid out.
	Partial bool
}

// partialMargin is how far before the end of a partial document the last
// final line must end: more than any look-ahead of the layout except
// whitespace, which a partial layout treats as running on.
const partialMargin = 4 << 10

// phase is where the layout stands inside a logical line.
type phase uint8

const (
	phStart  phase = iota // a logical line starts (raw, text) or between JSON tokens
	phStr                 // JSON: inside a string, after its opening quote
	phBare                // JSON: inside a number, literal or stray token
	phSpace               // JSON: the space after a colon
	phPunct               // JSON: emit the bracket at pos, with no effect on nesting
	phBreak               // a logical line break is due
	phRun                 // raw, text: a run of one class up to stop, or to the line end when stop < 0
	phColon               // raw: the colon after a field name
	phRedact              // raw head: the redacted value stands for pos..stop
	phEnding              // raw: the line ending at pos
)

// kindNode is a persistent stack of JSON container kinds, 64 per node: a
// saved layoutState shares its stack with every other one, and a push
// allocates only once every 64 levels.
type kindNode struct {
	bits   uint64 // bit i: level i of this node is an object
	parent *kindNode
}

// layoutState is the start of one display line. It is a small value; the
// nodes of its stack are never modified.
type layoutState struct {
	pos  int // next byte of src
	line int // display line number
	stop int // phRun: end of the run, or -1 for the line end

	stack *kindNode // full nodes of the container stack
	top   uint64    // the levels above stack, bit i set for an object
	depth int       // nesting depth

	ph        phase
	cls       theme.TokClass // class of the token or run in progress
	lead      int32          // continuation indent of the current logical line
	redacted  int32          // head: how much of the redacted credential at pos is laid out
	expectKey bool           // JSON: an object key may come next
	esc       bool           // JSON: the byte at pos is escaped by a backslash
	fresh     bool           // raw, text: the next unit starts a token
	cont      bool           // this line continues a wrapped logical line
	done      bool           // past the last line
}

// push opens a container one level deeper.
func (st *layoutState) push(object bool) {
	n := st.depth % 64 // the new level's bit in top
	if n == 0 && st.depth > 0 {
		st.stack = &kindNode{bits: st.top, parent: st.stack}
		st.top = 0
	}
	if object {
		st.top |= 1 << uint(n)
	}
	st.depth++
}

// pop closes the innermost container, if any.
func (st *layoutState) pop() {
	if st.depth == 0 {
		return
	}
	n := (st.depth - 1) % 64
	st.top &^= 1 << uint(n)
	st.depth--
	if n == 0 && st.depth > 0 && st.stack != nil {
		st.top, st.stack = st.stack.bits, st.stack.parent
	}
}

// inObject reports whether the innermost open container is an object.
func (st *layoutState) inObject() bool {
	if st.depth == 0 {
		return false
	}
	return st.top&(1<<uint((st.depth-1)%64)) != 0
}

// unitKind says what a layout step produced.
type unitKind uint8

const (
	uText    unitKind = iota // text to place on the line
	uBreak                   // end of the logical line
	uEnd                     // end of the document (ends the line too)
	uNothing                 // a change of phase only
)

// unit is one step of the layout: a piece of text that is never split
// across lines (a run of ASCII cut to the room left, a grapheme cluster,
// an escape), or a break.
type unit struct {
	kind   unitKind
	text   string // terminal-safe
	width  int
	cls    theme.TokClass
	at     int  // first source byte, or -1 for text the layout adds
	newTok bool // starts a token: never merged into the segment before
}

// lineOut receives one display line.
type lineOut struct {
	keep    bool // build segments; false only counts
	segs    theme.Line
	used    int
	lastSrc bool // the last segment holds source text, so it may grow
}

// start is the state of the first line.
func (sp *Spec) start() layoutState { return layoutState{stop: -1} }

// fill lays out one display line from st into out and moves st to the
// start of the next line. It returns false, and marks st done, when there
// is no line left (a raw document ends after its last line ending).
func (sp *Spec) fill(st *layoutState, out *lineOut) bool {
	if st.done {
		return false
	}
	out.segs, out.used, out.lastSrc = nil, 0, false
	if st.cont {
		out.place(unit{text: spaces(int(st.lead)), width: int(st.lead), at: -1, newTok: true}, sp)
	} else {
		if (sp.Mode == Raw || sp.Mode == Head) && st.pos >= len(sp.Src) {
			st.done = true
			return false
		}
		sp.beginLine(st, out)
	}
	placed := false
	for {
		room := 1 << 30
		if sp.W > 0 {
			room = sp.W - out.used
		}
		u, next := sp.peek(st, max(room, 1))
		switch u.kind {
		case uNothing:
			*st = next
			continue
		case uBreak:
			*st = next
			st.cont = false
			st.line++
			return true
		case uEnd:
			*st = next
			st.done = true
			st.line++
			return true
		}
		if sp.Mode == Text && sp.W > 0 && placed && sp.wrapsWord(u, room, int(st.lead), out.used) {
			// Prose wraps between words: the word goes to the next line
			// whole, where it fits.
			st.cont = true
			st.line++
			return true
		}
		if sp.W > 0 && u.width > room && placed && (room <= 0 || out.used > int(st.lead)) {
			if sp.Mode == Text {
				st.pos, st.fresh = skipSpaces(sp.Src, st.pos), true // the spaces the line broke at
			}
			st.cont = true
			st.line++
			return true
		}
		*st = next
		out.place(u, sp)
		placed = true
	}
}

// wrapsWord says prose breaks the line before unit u, room cells being
// left on a line used cells full, lead of them the continuation indent:
// u starts a word (it follows a space) that does not fit in room but
// fits a line of its own. A word longer than a line is cut where the line
// ends, as before.
func (sp *Spec) wrapsWord(u unit, room, lead, used int) bool {
	src := sp.Src
	if u.kind != uText || u.at <= 0 || used <= lead || src[u.at-1] != ' ' || src[u.at] == ' ' {
		return false
	}
	if end := u.at + len(u.text); u.width <= room && (end >= len(src) || src[end] == ' ' || src[end] == '\n' || src[end-1] == ' ') {
		return false // the unit holds the whole word, and it fits
	}
	line := sp.W - lead
	w := sp.wordWidth(u.at, line+1)
	return w > room && w <= line
}

// wordWidth is the width of the word at pos, up to the next space or line
// end, measured as the layout places it; it stops counting past limit.
func (sp *Spec) wordWidth(pos, limit int) int {
	src, w := sp.Src, 0
	for pos < len(src) && src[pos] != ' ' && src[pos] != '\n' && w <= limit {
		u, n := sp.textUnit(pos, len(src), limit-w+1, &wordSpecial)
		w += u.width
		pos += n
	}
	return w
}

// skipSpaces is the index of the first byte at or after i that is not a
// space.
func skipSpaces(src []byte, i int) int {
	for i < len(src) && src[i] == ' ' {
		i++
	}
	return i
}

// beginLine places what starts a logical line (the prefix, the JSON
// indent) and sets the indent of its continuation lines.
func (sp *Spec) beginLine(st *layoutState, out *lineOut) {
	first := 0
	if sp.Prefix != "" {
		first = len(sp.Prefix)
		out.place(unit{text: sp.Prefix, width: len(sp.Prefix), at: -1, newTok: true}, sp)
	}
	if sp.Mode == JSON {
		ind := sp.indent(st.depth)
		if sp.Prefix == "" {
			first = ind
		}
		if ind > 0 {
			out.place(unit{text: spaces(ind), width: ind, at: -1, newTok: true}, sp)
		}
	}
	st.lead = int32(first)
	if sp.W > 0 {
		st.lead = int32(min(first, sp.W/4))
	}
}

// indent is the indent of a JSON line at depth, in cells: two per level,
// but at most half the width, so deep nesting still leaves room to read.
func (sp *Spec) indent(depth int) int {
	ind := 2 * depth
	if sp.W > 0 {
		ind = min(ind, max(sp.W/2-len(sp.Prefix), 0)&^1)
	}
	return ind
}

// place adds u to the line, merging it into the last segment when it
// continues the same token with the same marking.
func (o *lineOut) place(u unit, sp *Spec) {
	o.used += u.width
	if !o.keep || u.text == "" {
		return
	}
	mark := u.at >= 0 && u.at >= sp.MarkStart && u.at < sp.MarkEnd
	if n := len(o.segs); n > 0 && o.lastSrc && !u.newTok && o.segs[n-1].Class == u.cls && o.segs[n-1].Mark == mark {
		o.segs[n-1].Text += u.text
		return
	}
	o.segs = append(o.segs, theme.Seg{Text: u.text, Class: u.cls, Mark: mark})
	o.lastSrc = u.at >= 0
}

// peek returns the next unit at st, with room cells left on the line, and
// the state after it; st itself is not changed.
func (sp *Spec) peek(st *layoutState, room int) (unit, layoutState) {
	if sp.Mode == JSON {
		return sp.peekJSON(st, room)
	}
	return sp.peekLines(st, room)
}

// peekJSON lays out JSON (cut short or invalid too, token by token, so
// that arguments show as they stream in): one member or element per
// line, two spaces per level, strings kept whole and marked as keys where
// an object key may come.
func (sp *Spec) peekJSON(st *layoutState, room int) (unit, layoutState) {
	src, n := sp.Src, *st
	switch st.ph {
	case phBreak:
		n.ph = phStart
		return unit{kind: uBreak}, n
	case phSpace:
		n.ph = phStart
		return unit{text: " ", width: 1, at: -1, newTok: true}, n
	case phPunct:
		n.pos++
		n.ph, n.expectKey = phStart, false
		return sp.char(st.pos, theme.TokPunct, true), n
	case phStr:
		if st.pos >= len(src) {
			return unit{kind: uEnd}, n
		}
		if st.esc {
			// The escaped byte never ends the string.
			u, size := sp.textUnit(st.pos, len(src), 1, &noSpecial)
			u.cls = st.cls
			n.pos += size
			n.esc = false
			return u, n
		}
		switch src[st.pos] {
		case '"':
			n.pos++
			n.ph = phStart
			return sp.char(st.pos, st.cls, false), n
		case '\\':
			n.pos++
			n.esc = true
			return sp.char(st.pos, st.cls, false), n
		}
		u, size := sp.textUnit(st.pos, len(src), room, &strSpecial)
		u.cls = st.cls
		n.pos += size
		return u, n
	case phBare:
		if st.pos >= len(src) || theme.IsDelim(src[st.pos]) {
			n.ph = phStart
			return unit{kind: uNothing}, n
		}
		u, size := sp.textUnit(st.pos, len(src), room, &delimSpecial)
		u.cls = st.cls
		n.pos += size
		return u, n
	}
	i := skipSpace(src, st.pos)
	n.pos = i
	if i >= len(src) {
		return unit{kind: uEnd}, n
	}
	switch c := src[i]; c {
	case '{', '[':
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		j := skipSpace(src, i+1)
		if j < len(src) && src[j] == closer {
			n.pos, n.ph = j, phPunct // an empty container stays on its line
			return sp.char(i, theme.TokPunct, true), n
		}
		n.push(c == '{')
		n.expectKey = c == '{'
		n.pos = i + 1
		if j < len(src) {
			n.ph = phBreak
		}
		return sp.char(i, theme.TokPunct, true), n
	case '}', ']':
		n.pop()
		n.ph = phPunct // on the next line, one level out
		return unit{kind: uBreak}, n
	case ',':
		n.expectKey = n.inObject()
		n.pos = i + 1
		if skipSpace(src, i+1) < len(src) {
			n.ph = phBreak
		}
		return sp.char(i, theme.TokPunct, true), n
	case ':':
		n.pos, n.ph, n.expectKey = i+1, phSpace, false
		return sp.char(i, theme.TokPunct, true), n
	case '"':
		n.cls = theme.TokString
		if st.expectKey {
			n.cls = theme.TokKey
		}
		n.pos, n.ph = i+1, phStr
		return sp.char(i, n.cls, true), n
	}
	n.cls, n.ph, n.expectKey = bareClass(src[i:]), phBare, false
	u, next := sp.peekJSON(&n, room)
	u.newTok = true
	return u, next
}

// bareClass classifies the number, literal or stray token at the start of
// b as scalarClass does, looking at no more than its first six bytes: a
// token longer than a literal is a number or an error by its first byte.
func bareClass(b []byte) theme.TokClass {
	k := 1
	for k < len(b) && k < 6 && !theme.IsDelim(b[k]) {
		k++
	}
	if k == 6 && k < len(b) && !theme.IsDelim(b[k]) {
		if b[0] == '-' || (b[0] >= '0' && b[0] <= '9') {
			return theme.TokNumber
		}
		return theme.TokError
	}
	return theme.ScalarClass(b[:k])
}

func skipSpace(src []byte, i int) int {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
		i++
	}
	return i
}

// peekLines lays out raw bytes, HTTP heads and text line by line, as
// rawLines and the calls pane's text always have.
func (sp *Spec) peekLines(st *layoutState, room int) (unit, layoutState) {
	src, n := sp.Src, *st
	switch st.ph {
	case phStart:
		return sp.classifyLine(st)
	case phBreak:
		n.ph = phStart
		return unit{kind: uBreak}, n
	case phColon:
		if sp.Mode == Head {
			return sp.headValue(st)
		}
		n.pos++
		n.ph, n.cls, n.stop, n.fresh = phRun, theme.TokPlain, -1, true
		return unit{text: ":", width: 1, at: st.pos, newTok: true}, n
	case phRedact:
		n.pos, n.ph, n.stop, n.fresh = st.stop, phEnding, -1, true
		return unit{text: capture.Redacted, width: ansi.StringWidth(capture.Redacted), at: -1, newTok: true}, n
	case phEnding:
		return sp.ending(st)
	}
	// phRun
	if st.stop >= 0 && st.pos >= st.stop {
		if st.cls == theme.TokField {
			n.ph = phColon
			return unit{kind: uNothing}, n
		}
		if sp.Mode == Head && !sp.KeepSecrets {
			if u, next, ok := sp.secretInValue(st, room); ok {
				return u, next
			}
		}
		n.pos = lineEnd(src, st.pos, sp.Mode == Text) // a head value's trailing spaces
		n.ph, n.stop, n.fresh = phEnding, -1, true
		return unit{kind: uNothing}, n
	}
	if st.pos >= len(src) {
		return unit{kind: uEnd}, n
	}
	if c := src[st.pos]; c == '\n' || (c == '\r' && sp.Mode != Text) {
		n.ph, n.fresh = phEnding, true
		return unit{kind: uNothing}, n
	}
	special := &rawSpecial
	if sp.Mode == Text {
		special = &textSpecial
	}
	limit := len(src)
	if st.stop >= 0 {
		limit = st.stop
	}
	u, size := sp.textUnit(st.pos, limit, room, special)
	u.cls, u.newTok = st.cls, st.fresh
	n.pos += size
	n.fresh = false
	return u, n
}

// fieldScanMax bounds the search for an SSE field name's colon at a line
// start, so a 50 MB line without one costs nothing to classify.
const fieldScanMax = 1 << 10

// classifyLine starts a logical line of a raw, head or text document.
func (sp *Spec) classifyLine(st *layoutState) (unit, layoutState) {
	src, n := sp.Src, *st
	n.ph, n.stop, n.cls, n.fresh = phRun, -1, theme.TokPlain, true
	if sp.Mode == Text || st.pos >= len(src) {
		return unit{kind: uNothing}, n
	}
	if src[st.pos] == ':' {
		n.cls = theme.TokComment
		if sp.Mode == Head && !sp.KeepSecrets {
			// A recording's header block: the run stops at the line's
			// first credential (secretInValue takes it from there).
			if spans, _, _, _ := sp.headSecrets(st.pos); len(spans) > 0 {
				n.stop = spans[0][0]
			}
		}
		return unit{kind: uNothing}, n
	}
	if sp.Mode == Head {
		end := lineEnd(src, st.pos, false)
		if c := bytes.IndexByte(src[st.pos:end], ':'); c >= 0 {
			n.cls, n.stop = theme.TokField, st.pos+c
		} else {
			n.cls = theme.TokKey
		}
		return unit{kind: uNothing}, n
	}
	for k := st.pos; k < len(src) && k-st.pos < fieldScanMax; k++ {
		switch src[k] {
		case ':':
			n.cls, n.stop = theme.TokField, k
		case ' ', '{', '"', '\r', '\n':
		default:
			continue
		}
		break
	}
	return unit{kind: uNothing}, n
}

// headValue lays out ": " and the value of a head line at the colon at
// st.pos, trimmed, and redacted when the header is secret.
func (sp *Spec) headValue(st *layoutState) (unit, layoutState) {
	src, n := sp.Src, *st
	start := st.pos
	for start > 0 && src[start-1] != '\n' && src[start-1] != '\r' {
		start--
	}
	vs, ve := headValueAt(src, st.pos+1)
	n.pos, n.ph, n.cls, n.stop, n.fresh = vs, phRun, theme.TokPlain, ve, true
	switch name := string(src[start:st.pos]); {
	case plain.RedactHeader(name, "x", sp.KeepSecrets) != "x":
		n.ph, n.stop = phRedact, lineEnd(src, st.pos, false)
	case !sp.KeepSecrets && capture.URLHeader(name):
		// The run stops at the first credential in the URL (secretInValue
		// takes it from there).
		spans, _, _, _ := sp.headSecrets(st.pos)
		n.stop = nextSecret(spans, vs, ve)
	}
	return unit{text: ": ", width: 2, at: -1, newTok: true}, n
}

// headValueAt returns the bounds of the value, trimmed, of the head line
// holding pos, a byte past its first colon.
func headValueAt(src []byte, pos int) (vs, ve int) {
	start := pos
	for start > 0 && src[start-1] != '\n' && src[start-1] != '\r' {
		start--
	}
	vs = start + bytes.IndexByte(src[start:pos], ':') + 1
	ve = lineEnd(src, pos, false)
	for vs < ve && isSpaceByte(src[vs]) {
		vs++
	}
	for ve > vs && isSpaceByte(src[ve-1]) {
		ve--
	}
	return vs, ve
}

// headSecrets returns the credentials on the head line holding pos
// (capture.SecretHeadLine), as offsets into src, and the text that
// stands for them; end is where a run that holds them ends, and stop
// the run's stop after the last one: a header's value ends at its
// trimmed end, a comment line (a recording's header block) runs to the
// line's end (stop -1, as a comment line without credentials).
func (sp *Spec) headSecrets(pos int) (spans [][2]int, text string, end, stop int) {
	src := sp.Src
	start := pos
	for start > 0 && src[start-1] != '\n' && src[start-1] != '\r' {
		start--
	}
	end = lineEnd(src, pos, false)
	spans, text = capture.SecretHeadLine(string(src[start:end]))
	for i := range spans {
		spans[i][0] += start
		spans[i][1] += start
	}
	if start < len(src) && src[start] == ':' {
		return spans, text, end, -1
	}
	_, end = headValueAt(src, pos)
	return spans, text, end, end
}

// nextSecret is the start of the first span that starts at or after from,
// or def.
func nextSecret(spans [][2]int, from, def int) int {
	for _, s := range spans {
		if s[0] >= from {
			return s[0]
		}
	}
	return def
}

// secretInValue lays out the credential of a head line that starts at
// st.pos, where the run before it stopped: the redacted text stands for
// its bytes, in pieces of at most room cells, and the run goes on to the
// next one or the run's end. ok is false when no credential starts there.
func (sp *Spec) secretInValue(st *layoutState, room int) (u unit, n layoutState, ok bool) {
	spans, text, end, stop := sp.headSecrets(st.pos)
	if st.pos >= end {
		return unit{}, *st, false
	}
	for _, s := range spans {
		if s[0] != st.pos {
			continue
		}
		n = *st
		text := text[st.redacted:]
		if len(text) > room {
			text = text[:room]
			n.redacted += int32(room)
		} else {
			n.pos, n.redacted = s[1], 0
			n.stop = nextSecret(spans, s[1]+1, stop)
		}
		n.fresh = true
		return unit{text: text, width: len(text), at: -1, cls: st.cls, newTok: st.redacted == 0}, n, true
	}
	return unit{}, *st, false
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' }

// lineEnd is the index of the \n (or \r, unless textMode) ending the line
// at i, or len(src).
func lineEnd(src []byte, i int, textMode bool) int {
	var k int
	if textMode {
		k = bytes.IndexByte(src[i:], '\n')
	} else {
		k = bytes.IndexAny(src[i:], "\r\n")
	}
	if k < 0 {
		return len(src)
	}
	return i + k
}

// ending lays out the line ending at st.pos: made visible in raw
// documents, a plain break in text.
func (sp *Spec) ending(st *layoutState) (unit, layoutState) {
	src, n := sp.Src, *st
	n.ph, n.stop = phBreak, -1
	if st.pos >= len(src) {
		return unit{kind: uEnd}, n
	}
	if sp.Mode == Text {
		n.pos++
		n.ph = phStart
		return unit{kind: uBreak}, n
	}
	u := unit{text: theme.GlyphLF, width: 1, cls: theme.TokControl, at: st.pos, newTok: st.fresh}
	n.pos++
	if src[st.pos] == '\r' {
		u.text = theme.GlyphCR
		if st.pos+1 < len(src) && src[st.pos+1] == '\n' {
			// ␍ and ␊ are one segment, which a wrap may split.
			n.ph, n.fresh = phEnding, false
		}
	}
	return u, n
}

// char is the one-byte unit at i: JSON punctuation or a quote.
func (sp *Spec) char(i int, cls theme.TokClass, newTok bool) unit {
	return unit{text: asciiText[sp.Src[i]], width: 1, cls: cls, at: i, newTok: newTok}
}

// Bytes that end a run of plain ASCII in each context.
var (
	noSpecial    [256]bool
	strSpecial   = specials(`"\`)
	delimSpecial = specials(" \t\n\r{}[],:\"")
	rawSpecial   = specials("\r\n")
	textSpecial  = specials("\n")
	wordSpecial  = specials("\n ")
)

func specials(s string) [256]bool {
	var t [256]bool
	for i := 0; i < len(s); i++ {
		t[s[i]] = true
	}
	return t
}

// asciiText holds each byte below 0x80 as a string, and escapeText the
// escape Safe shows for each control byte and for each byte that is not
// valid UTF-8, so neither allocates per byte.
var asciiText, escapeText = func() (a, e [256]string) {
	for i := range 256 {
		a[i] = string(rune(i))
		e[i] = termtext.EscapeByte(byte(i))
	}
	return a, e
}()

// textUnit returns the unit of text at pos (before limit): a run of plain
// ASCII of at most room cells that stops at a special byte, at a mark
// boundary and before a byte that may join it in a grapheme cluster; else
// one grapheme cluster, or the escape Safe shows for one byte or rune. It
// also returns how many source bytes the unit covers.
func (sp *Spec) textUnit(pos, limit, room int, special *[256]bool) (unit, int) {
	src := sp.Src
	end := limit
	for _, b := range [2]int{sp.MarkStart, sp.MarkEnd} {
		if b > pos && b < end {
			end = b
		}
	}
	i := pos
	for i < end && i-pos < room {
		c := src[i]
		if c < 0x20 || c >= 0x7f || special[c] {
			break
		}
		i++
	}
	if i > pos && i < len(src) && src[i] >= 0x80 {
		i-- // the last character may join a cluster with what follows
	}
	if special == &textSpecial && i > pos && i < len(src) && src[i] != ' ' && src[i] != '\n' && src[i-1] != ' ' {
		// Prose: a run that stops inside a word stops before it instead,
		// so that the word starts a unit and may wrap whole (wrapsWord).
		for k := i - 1; k > pos; k-- {
			if src[k-1] == ' ' && src[k] != ' ' {
				i = k
				break
			}
		}
	}
	if i > pos {
		return unit{text: unsafe.String(&src[pos], i-pos), width: i - pos, at: pos}, i - pos
	}
	c := src[pos]
	if c < 0x80 && (c < 0x20 || c == 0x7f) {
		e := escapeText[c]
		return unit{text: e, width: len(e), at: pos}, 1
	}
	if c < 0x80 && (pos+1 >= limit || src[pos+1] < 0x80) {
		return unit{text: asciiText[c], width: 1, at: pos}, 1
	}
	return sp.cluster(pos, limit)
}

// clusterMax bounds the bytes one grapheme cluster may take.
const clusterMax = 64

// cluster is the unit at pos when it is not plain ASCII: a grapheme
// cluster of printable runes, or the escape for an invalid byte or an
// unsafe rune (which are never part of a cluster).
func (sp *Spec) cluster(pos, limit int) (unit, int) {
	src := sp.Src
	r, size := utf8.DecodeRune(src[pos:limit])
	switch {
	case r == utf8.RuneError && size <= 1:
		e := escapeText[src[pos]]
		return unit{text: e, width: len(e), at: pos}, 1
	case termtext.Escaped(r):
		e := termtext.EscapeRune(r)
		return unit{text: e, width: len(e), at: pos}, size
	}
	end := pos + size
	for end < limit && end-pos < clusterMax && src[end] >= 0x80 {
		end++
	}
	cl, w := ansi.FirstGraphemeCluster(src[pos:end], ansi.GraphemeWidth)
	n := len(cl)
	// Keep only the valid, safe runes at the start of the cluster.
	for k := size; k < n; {
		r, s := utf8.DecodeRune(cl[k:])
		if (r == utf8.RuneError && s <= 1) || termtext.Escaped(r) {
			n = k
			w = ansi.StringWidth(string(cl[:n]))
			break
		}
		k += s
	}
	if n < size {
		n = size
	}
	return unit{text: string(src[pos : pos+n]), width: w, at: pos}, n
}

// spaces returns n spaces.
func spaces(n int) string {
	if n <= len(spaceRun) {
		return spaceRun[:n]
	}
	return strings.Repeat(" ", n)
}

var spaceRun = strings.Repeat(" ", 256)
