package model

import (
	"bytes"
	"cmp"
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// maxKeptScratch is the scratch buffer size kept between events. Larger
// buffers, grown for one huge event, are released after it.
const maxKeptScratch = 1 << 20

// Options tune a Session.
type Options struct {
	// KeepEvents keeps the per-event index (about 48 bytes an event). The
	// timeline needs it; a headless `calls` over a huge file does not.
	KeepEvents bool
	// Raw reads the stream's bytes back by offset, for Session.Raw.
	Raw io.ReaderAt
	// Observer, when set, sees every event as it is added.
	Observer Observer
	// Exchange, when set, is the exchange the stream answers, its request
	// included (see SetExchange): an archive's entry, the proxy's,
	// --request's.
	Exchange *capture.Exchange
	// Earlier, when set, is the exchange the stream continues (see
	// SetEarlier, Turns.LinkExchange).
	Earlier Earlier
}

// Response is one response (Responses), message (Anthropic), completion
// (Chat) or generation (Gemini): the envelope the items belong to.
type Response struct {
	Index   int
	Dialect Dialect
	// Resumed marks a response whose stream starts mid-way: its first
	// event is not response.created and is numbered past 0, as a stream
	// resumed with starting_after is (Responses). It sits beside Dialect,
	// in the padding of its word: at the end it took a word of its own,
	// and a response its allocation size class up (176 to 192 bytes).
	Resumed  bool
	ID       string
	Model    string
	Status   History // statuses with the events that set them
	First    int     // ordinal of its first event
	Terminal int     // ordinal of its terminal event, or -1
	// Finish holds each choice's finish reasons (Chat, Gemini) or the stop
	// reasons (Anthropic, choice 0), in stream order.
	Finish []ChoiceFinish
	// Created and Final are the ordinals of the first and terminal
	// snapshots of the whole response (Responses), or -1.
	Created, Final int
	// IDs records each response id seen on a later snapshot of the same
	// response when it differs from ID (field "id"): evidence of a
	// gateway that rotates ids mid-stream. Like Item.IDs it keeps the
	// first MaxIDsKept; MoreIDs counts them and the rest.
	IDs     []IDSeen
	MoreIDs []IDTally
}

// AddFinish records choice's finish reason, given by event ord (see
// Finish).
func (r *Response) AddFinish(choice, ord int, reason string) {
	for i := range r.Finish {
		if r.Finish[i].Choice == choice {
			r.Finish[i].Reasons = append(r.Finish[i].Reasons, Change{Ordinal: ord, Value: reason})
			return
		}
	}
	r.Finish = append(r.Finish, ChoiceFinish{Choice: choice, Reasons: History{{Ordinal: ord, Value: reason}}})
}

// ChoiceFinish is the finish reasons one choice received, in stream order.
// A slice of them rather than a map keeps a response small: a 100 MB stream
// holds thousands of responses, almost all with one choice.
type ChoiceFinish struct {
	Choice  int
	Reasons History
}

// FinishOf returns the finish reasons of a choice, or nil.
func (r *Response) FinishOf(choice int) History {
	for _, cf := range r.Finish {
		if cf.Choice == choice {
			return cf.Reasons
		}
	}
	return nil
}

// Head is an HTTP response head that preceded the stream.
type Head struct {
	Ordinal int
	Proto   string
	Status  int
	Header  []capture.Field // copies, safe to keep
}

// Get returns the value of the head's first header named name (compared
// without regard to case, as HTTP header names are), or "".
func (h *Head) Get(name string) string {
	for _, f := range h.Header {
		if strings.EqualFold(string(f.Name), name) {
			return string(f.Value)
		}
	}
	return ""
}

// ErrorInfo is an error reported inside the stream or by the HTTP status.
type ErrorInfo struct {
	Ordinal int
	Status  int // HTTP status, when known
	Code    string
	Message string
}

// Session is the model of one stream: its events, items and responses.
// Feed it frames with Add in stream order; it is not safe for concurrent
// use, so a UI that reads it while a reader goroutine adds to it must hand
// frames over by message (as package ui does).
type Session struct {
	opts      Options
	Events    EventLog // when Options.KeepEvents
	Items     []*Item
	Responses []*Response
	Heads     []Head
	Errors    []ErrorInfo

	outputs    []outputList // the items of each response in output order: see ResponseItems
	placed     int          // Items placed in outputs so far
	outputFree []*Item      // room for the lists of responses to come: see outputRoom

	count    int
	bytes    int64
	types    *interner
	dialects [maxDialects]int // events per dialect
	// data counts the events that carry data: neither a comment, a
	// keep-alive nor a sentinel (see OutcomeNotAStream).
	data     int
	last     Event
	lastDial Dialect
	headDial Dialect // the dialect that claimed the latest head: see HeadClaimer
	done     int     // ordinal of the first [DONE], or -1
	ended    bool
	endErr   error
	top      members         // the declared members of the event being added: see Member
	idx      *jsonscan.Index // the structure of the event being added: &scanIdx, or &batchIdx
	scanIdx  jsonscan.Index  // indexes events that Add validates itself
	batchIdx jsonscan.Index  // reads an event a Batch validated
	// scan is what the scan of each event records: the declared members,
	// and a fingerprint when an observer reads one (see Fingerprinter).
	scan jsonscan.ScanOptions
	// fp is the fingerprint of the event being added, when fpOK.
	fp       uint64
	fpOK     bool
	scratch  []byte
	cur      []byte                // the data of the event being added, when it is a JSON object
	status   int                   // HTTP status of the latest head
	upgraded bool                  // a head switched protocols: see Upgraded
	states   [maxDialects]Assembly // each dialect's assembly, made when first needed
	// typeOwners holds, by interned type, 1 + the dialect that claims the
	// type (see typeOwner), or 0 while unasked.
	typeOwners []Dialect
	notes      []Note // the event being added's: see Notes
	// chunk is the inner document of the wrapped event being added, when
	// its Batch decoded and scanned it already (see Wrapper).
	chunk prefocus
	// unwrapped is the decoded bytes of the wrapped event being added,
	// when its payload was validated by decoding them (see
	// unwrapShaped), and inner the buffer they are decoded into.
	unwrapped, inner []byte
	// exchange is the exchange the stream answers, when known, and reqDial
	// the dialect that claimed its request (see SetExchange); reqApplied
	// says the request was handed to it.
	exchange   *capture.Exchange
	reqDial    Dialect
	reqApplied bool
	frame      *capture.Frame // the frame being added: see Frame
	earlier    Earlier        // the exchange the stream continues: see SetEarlier
}

// NewSession returns an empty session.
func NewSession(opts Options) *Session {
	s := &Session{opts: opts, types: newInterner(), done: -1}
	s.idx = &s.scanIdx
	s.scan.Names = &memberNames
	if fp, ok := findObserver[Fingerprinter](opts.Observer); ok {
		s.scan.Hash, s.scan.Skip = true, fp.FingerprintSkip()
	}
	if opts.Exchange != nil {
		s.SetExchange(opts.Exchange)
	}
	s.earlier = opts.Earlier
	return s
}

// ScanOptions is what the scan of each event records, for a Batch that
// validates events ahead of the session (Batch.Scan). The caller must
// not modify it.
func (s *Session) ScanOptions() *jsonscan.ScanOptions { return &s.scan }

// Len is the number of events added so far.
func (s *Session) Len() int { return s.count }

// Bytes is the number of stream bytes framed so far.
func (s *Session) Bytes() int64 { return s.bytes }

// TypeName returns an interned type or event name.
func (s *Session) TypeName(id uint16) string { return s.types.names[id] }

// Done is the ordinal of the first data: [DONE], or -1.
func (s *Session) Done() int { return s.done }

// Raw reads the bytes of event ev back from the stream. It needs
// Options.Raw.
func (s *Session) Raw(ev *Event) ([]byte, error) {
	if s.opts.Raw == nil {
		return nil, io.ErrUnexpectedEOF
	}
	buf := make([]byte, ev.Len)
	n, err := s.opts.Raw.ReadAt(buf, ev.Offset)
	if n == len(buf) {
		err = nil
	}
	return buf[:n], err
}

// RawPrefix reads at most the first n bytes of event ev back from the
// stream, so a viewer can show the start of a 50 MB event without reading
// (and allocating) all of it first. It needs Options.Raw.
func (s *Session) RawPrefix(ev *Event, n int) ([]byte, error) {
	if s.opts.Raw == nil {
		return nil, io.ErrUnexpectedEOF
	}
	buf := make([]byte, min(max(n, 0), int(ev.Len)))
	k, err := s.opts.Raw.ReadAt(buf, ev.Offset)
	if k == len(buf) {
		err = nil
	}
	return buf[:k], err
}

// End records the end of the stream: err is nil for a clean EOF. It
// places the last items in output order, so that the queries of an ended
// session only read it, and may run on other goroutines (the diff page
// compares two ended sessions in the background while it draws them).
func (s *Session) End(err error) {
	s.placeItems()
	s.ended, s.endErr = true, err
}

// Ended reports whether the stream has ended, and how.
func (s *Session) Ended() (bool, error) { return s.ended, s.endErr }

// statusSwitchingProtocols is the HTTP status of a response that switched
// the connection to another protocol, such as a WebSocket.
const statusSwitchingProtocols = 101

// Upgraded reports whether an HTTP head of the stream switched protocols
// (101 Switching Protocols), as a WebSocket's does: what follows is not a
// response body but the connection's messages, as the proxy writes them
// (capture.WSMessage.AppendSSE: the server's Responses events as data,
// everything else as comments). Such a connection carries response after
// response, one per request the client sends on it (OpenAI's Responses
// WebSocket mode: one response.create per turn), or no events at all.
func (s *Session) Upgraded() bool { return s.upgraded }

// Dialect is the stream's main dialect: the one most events belong to,
// else the one that claimed its request (a POST answered 202 with no body
// is still MCP's: see RequestClaimer).
func (s *Session) Dialect() Dialect {
	best := DialectUnknown
	for d := DialectUnknown + 1; int(d) < len(s.dialects); d++ {
		if s.dialects[d] > s.dialects[best] {
			best = d
		}
	}
	if best == DialectUnknown {
		return s.reqDial
	}
	return best
}

// Dialects lists every dialect seen, main one first.
func (s *Session) Dialects() []Dialect {
	var out []Dialect
	for d := DialectUnknown + 1; int(d) < len(s.dialects); d++ {
		if s.dialects[d] > 0 {
			out = append(out, d)
		}
	}
	slices.SortStableFunc(out, func(a, b Dialect) int { return cmp.Compare(s.dialects[b], s.dialects[a]) })
	return out
}

// Add turns a frame into an event, updates the assembly and returns the
// event. The pointer is valid until the next Add.
func (s *Session) Add(f *capture.Frame) *Event { return s.add(f, nil, jsonscan.Scanned{}) }

// add is Add for a frame whose data a Batch may have validated already:
// then pre holds its index and sc what the scan found.
func (s *Session) add(f *capture.Frame, pre *jsonscan.Indexes, sc jsonscan.Scanned) *Event {
	ord := s.count
	s.count++
	s.bytes = f.End
	s.last = Event{Offset: f.Start, Len: int32(f.End - f.Start), At: f.At, Seq: -1, Item: -1,
		Frame: f.Flags, Source: f.Kind}
	ev := &s.last
	s.frame = f
	s.cur, s.fpOK = nil, false
	s.top.reset() // Member answers nil for any event without members, not the last one's
	s.notes = s.notes[:0]
	if ord == 0 && f.Kind == capture.FrameEvent {
		s.applyRequest(ord) // no head: the first event already answers the request
	}
	switch f.Kind {
	case capture.FrameComment:
		ev.Type, ev.Kind = s.types.id([]byte(TypeComment)), KindKeepalive
	case capture.FrameRemainder:
		ev.Type = s.types.id([]byte(TypeRemainder))
	case capture.FrameHead:
		s.head(ev, f, ord)
	default:
		s.event(ev, f, ord, pre, sc)
	}
	if ord == 0 && !s.reqApplied {
		s.learnExchange(f)
		s.applyRequest(ord)
	}
	if ev.Dialect != DialectUnknown {
		s.dialects[ev.Dialect]++
		s.lastDial = ev.Dialect
	}
	if f.Kind == capture.FrameEvent && ev.Kind != KindKeepalive && ev.Kind != KindSentinel {
		s.data++
	}
	if s.opts.KeepEvents {
		s.Events.append(*ev)
	}
	if s.opts.Observer != nil {
		s.opts.Observer.Observe(s, ord, ev, f)
	}
	s.cur, s.unwrapped, s.frame = nil, nil, nil // the frame's bytes are not ours to keep
	s.idx.Reset()
	s.idx = &s.scanIdx
	if cap(s.scratch) > maxKeptScratch {
		s.scratch = nil // do not hold on to the copy of one huge delta
	}
	return ev
}

func (s *Session) head(ev *Event, f *capture.Frame, ord int) {
	ev.Type, ev.Kind = s.types.id([]byte(TypeHTTP)), KindLifecycle
	h := Head{Ordinal: ord, Proto: f.Proto, Status: f.Status}
	for _, fl := range f.Header {
		h.Header = append(h.Header, capture.Field{Name: bytes.Clone(fl.Name), Value: bytes.Clone(fl.Value)})
	}
	s.Heads = append(s.Heads, h)
	s.headDial = claimHead(&s.Heads[len(s.Heads)-1])
	s.status = f.Status
	if f.Status == statusSwitchingProtocols {
		s.upgraded = true
	}
	if f.Status >= 400 {
		ev.Kind = KindError
		s.Errors = append(s.Errors, ErrorInfo{Ordinal: ord, Status: f.Status, Message: "HTTP " + strconv.Itoa(f.Status)})
	}
}

func (s *Session) event(ev *Event, f *capture.Frame, ord int, pre *jsonscan.Indexes, sc jsonscan.Scanned) {
	if f.HasEvent {
		ev.Name = s.types.id(f.Event)
	}
	if f.Flags&capture.EventStream != 0 && s.eventStream(ev, f, ord) {
		return
	}
	if !f.HasData {
		ev.Type = ev.Name
		if ev.Type == 0 {
			ev.Type = s.types.id([]byte(TypeNoData))
		}
		for _, r := range detection {
			if r.p.Keepalive(f.Event) {
				ev.Kind, ev.Dialect = KindKeepalive, r.id
				break
			}
		}
		return
	}
	if f.Flags&capture.Coded != 0 {
		s.coded(ev, f, ord, pre, sc)
		return
	}
	data := f.Data
	if len(data) == 0 && len(emptyClaimers) > 0 {
		if d := s.emptyOwner(f); d != DialectUnknown {
			ev.Dialect = d
			s.Assembly(d).Event(s, ev, "", nil, ord)
			return
		}
	}
	if isDoneSentinel(data) {
		ev.Type, ev.Kind, ev.Dialect = s.types.id([]byte(TypeDone)), KindSentinel, s.lastDial
		if s.done < 0 {
			s.done = ord
		}
		if s.lastDial != DialectUnknown {
			s.Assembly(s.lastDial).Sentinel(s, ord)
		}
		return
	}
	var isObj bool
	var err error
	switch {
	case s.chunk.in != nil:
		// A wrapped event the Batch decoded and scanned already: its outer
		// document is read no more (its dialect reads the event it wraps),
		// so it is neither loaded nor walked again.
		isObj, err = sc.IsObject, sc.Err
	case pre != nil:
		s.idx = &s.batchIdx
		pre.Load(s.idx, data, sc)
		if isObj, err = sc.IsObject, sc.Err; isObj && err == nil {
			s.loadMembers(data)
		}
		s.fp, s.fpOK = s.idx.Hash()
	default:
		if inner, ok := s.unwrapShaped(f); ok {
			// Valid JSON, since it decoded: its dialect reads the event it
			// wraps, so its outer document is not scanned (see Wrapper).
			s.unwrapped, isObj = inner, true
		} else if isObj, err = s.idx.ScanWith(data, &s.scan); isObj && err == nil {
			s.loadMembers(data)
		}
		s.fp, s.fpOK = s.idx.Hash()
	}
	if err != nil {
		ev.Flags |= DecodeError
		ev.Type = s.types.id([]byte(TypeInvalid))
		if s.status >= 400 {
			ev.Kind = KindError
		}
		return
	}
	if !isObj {
		s.array(ev, data, ord)
		return
	}
	s.cur = data
	t := &s.top.vals
	if f.Flags&capture.EventStream != 0 {
		ev.Type = ev.Name // an event stream message is typed by its :event-type header
	} else if len(t[mType]) > 0 {
		typ, plain := jsonscan.Raw(t[mType])
		switch {
		case plain && f.HasEvent && string(typ) == string(f.Event):
			ev.Type = ev.Name // the usual SSE event: named as it is typed
		case plain:
			ev.Type = s.types.id(typ)
			ev.Flags |= nameMismatch(f, typ)
		default:
			s.scratch = jsonscan.Unquote(s.scratch[:0], t[mType])
			ev.Type = s.types.id(s.scratch)
			ev.Flags |= nameMismatch(f, s.scratch)
		}
	} else if jsonscan.Kind(t[mObject]) == '"' {
		ev.Type = s.types.id(jsonscan.Unquote(s.scratch[:0], t[mObject])) // chat.completion.chunk
	} else {
		ev.Type = ev.Name
	}
	if n, ok := jsonscan.Int(t[mSeq]); ok {
		ev.Seq = n
	}
	typ := s.types.names[ev.Type]
	if ev.Dialect = s.detect(ev.Type, typ); ev.Dialect != DialectUnknown {
		st := s.states[ev.Dialect] // Assembly, inlined by hand: this runs for every event
		if st == nil {
			st = s.Assembly(ev.Dialect)
		}
		st.Event(s, ev, typ, data, ord)
	} else if t[mError] != nil {
		s.ErrorEvent(ev, t[mError], ord)
	}
	if ev.Type == 0 {
		ev.Type = s.types.id([]byte("(untyped)"))
	}
	if s.status >= 400 && ev.Kind != KindError {
		s.ErrorEvent(ev, t[mError], ord)
	}
}

// nameMismatch is NameMismatch when frame f has an SSE event name other
// than typ, the type its data says.
func nameMismatch(f *capture.Frame, typ []byte) Flags {
	if f.HasEvent && !bytes.Equal(typ, f.Event) {
		return NameMismatch
	}
	return 0
}

// loadMembers records the declared members of data, the object s.idx
// holds: those its scan found as it passed them, or, for a document too
// large to index, those a walk of its top level finds.
func (s *Session) loadMembers(data []byte) {
	if !s.idx.Holds() {
		s.idx.Members(data, s.top.member)
		return
	}
	s.top.load(data, s.idx.Found())
}

// coded adds a coded line (capture.Coded: the AI SDK data stream's
// CODE:JSON). It is typed by its code, whatever its JSON value is (a
// string, an array, an object), and handed to the dialect that claims it
// with the value as data; Member and Data answer only for an object. A
// line without a code has the type "" until its dialect names it. Its
// JSON is validated as any event's: a value that does not parse is
// invalid JSON, claimed by no dialect.
func (s *Session) coded(ev *Event, f *capture.Frame, ord int, pre *jsonscan.Indexes, sc jsonscan.Scanned) {
	data := f.Data
	var isObj bool
	var err error
	if pre != nil {
		s.idx = &s.batchIdx
		pre.Load(s.idx, data, sc)
		isObj, err = sc.IsObject, sc.Err
	} else {
		isObj, err = s.idx.ScanWith(data, &s.scan)
	}
	if isObj && err == nil {
		s.loadMembers(data)
	}
	s.fp, s.fpOK = s.idx.Hash()
	if err != nil {
		ev.Flags |= DecodeError
		ev.Type = s.types.id([]byte(TypeInvalid))
		return
	}
	if isObj {
		s.cur = data
	}
	ev.Type = ev.Name
	typ := s.types.names[ev.Type]
	if ev.Dialect = s.detect(ev.Type, typ); ev.Dialect != DialectUnknown {
		s.Assembly(ev.Dialect).Event(s, ev, typ, data, ord)
	} else if !isObj {
		ev.Flags |= NotObject
	}
	if ev.Type == 0 {
		ev.Type = s.types.id([]byte("(untyped)"))
	}
}

// array handles a JSON value that is not an object: a dialect's array
// body (see Protocol.Array), or anything else, shown as it is.
func (s *Session) array(ev *Event, data []byte, ord int) {
	ev.Flags |= NotObject
	ev.Type = s.types.id([]byte("(not an object)"))
	if jsonscan.Kind(data) != '[' {
		return
	}
	for _, r := range detection {
		if r.p.Array(s, ev, data, ord) {
			ev.Dialect = r.id
			ev.Flags &^= NotObject
			return
		}
	}
}

// ErrorEvent records an error payload: {"error": {...}}, a flat
// {"code", "message"} (the documented Responses shape), or the body of an
// HTTP error.
func (s *Session) ErrorEvent(ev *Event, errV []byte, ord int) {
	ev.Kind = KindError
	info := ErrorInfo{Ordinal: ord, Status: s.status}
	obj := errV
	if jsonscan.Kind(obj) != '{' {
		obj = nil
	}
	// A member is its string, or a number as written (Gemini's "code":
	// 401); null, which OpenAI sends for a code it has none of, is none.
	str := func(v []byte) string {
		if x, ok := jsonscan.String(v); ok {
			return x
		}
		if jsonscan.IsNull(v) {
			return ""
		}
		return string(v)
	}
	if obj != nil {
		info.Code = str(s.idx.Get(obj, "code"))
		if info.Code == "" {
			info.Code = str(s.idx.Get(obj, "type"))
		}
		info.Message = str(s.idx.Get(obj, "message"))
	} else {
		info.Code = str(s.top.vals[mCode])
		info.Message = str(s.top.vals[mMessage])
		if errV != nil && info.Message == "" {
			info.Message = str(errV)
		}
	}
	s.Errors = append(s.Errors, info)
}

// NewItem starts an item.
func (s *Session) NewItem(d Dialect, role ItemRole, typ string, ord int) *Item {
	it := &Item{Index: len(s.Items), Dialect: d, Role: role, Type: typ, Position: -1, Response: -1,
		First: ord, Last: ord, Opened: -1, Closed: -1}
	if n := len(s.Responses); n > 0 {
		it.Response = n - 1
	}
	s.Items = append(s.Items, it)
	return it
}

// NewResponse starts a response envelope.
func (s *Session) NewResponse(d Dialect, ord int) *Response {
	r := &Response{Index: len(s.Responses), Dialect: d, First: ord, Terminal: -1, Created: -1, Final: -1}
	s.Responses = append(s.Responses, r)
	return r
}

// StringOf returns the JSON string v unquoted, "" when v is no string.
func StringOf(v []byte) string {
	x, _ := jsonscan.String(v)
	return x
}

// IntOr returns the JSON integer v, or def when v is no integer.
func IntOr(v []byte, def int) int {
	if n, ok := jsonscan.Int(v); ok {
		return int(n)
	}
	return def
}

// CompactJSON returns v without insignificant whitespace, keys in their
// original order.
func CompactJSON(v []byte) string {
	if !hasSpace(v) {
		// Nothing to take out, valid or not (json.Compact's error then
		// gives v back too): the usual {} of a tool_use block's start.
		return string(v)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		return string(v)
	}
	return b.String()
}

// hasSpace reports whether v holds a byte JSON counts as whitespace.
func hasSpace(v []byte) bool {
	for _, c := range v {
		if c <= ' ' && (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			return true
		}
	}
	return false
}

// Assemble frames and models a whole stream held in memory, such as an
// embedded sample or a test fixture.
func Assemble(data []byte, format capture.Format, opts Options) *Session {
	s := NewSession(opts)
	fr := capture.NewFramer(format)
	emit := func(f *capture.Frame) { s.Add(f) }
	fr.Feed(data, capture.NoTime, emit)
	fr.Finish(capture.NoTime, emit)
	s.End(nil)
	return s
}
