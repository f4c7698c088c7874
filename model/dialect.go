package model

import (
	"fmt"
	"slices"
)

// Dialect is the API whose stream an event belongs to: the id Register
// gave its Protocol. Ids follow the order of registration, which is also
// the order reports list dialects in; DialectUnknown (0) is no dialect.
// Each dialect is a package of its own (model/dialect/<name>), and
// model/dialects registers them all.
type Dialect uint8

// DialectUnknown is the dialect of an event no dialect claims.
const DialectUnknown Dialect = 0

// maxDialects bounds the registry, so that a session keeps its counts and
// states per dialect in arrays instead of allocating them.
const maxDialects = 16

// Protocol is what a dialect provides the core: how its events are
// recognised (the claims), assembled into responses and items (its
// Assembly), and explained (its shapes and its rows of the explanations
// table). Its methods run for every event, so they must be cheap and must
// not allocate on the common path. Implement it by embedding Base, which
// gives the optional hooks and claims their defaults and holds the
// dialect's id, and register it once (Register, from model/dialects).
//
// How an event is judged: the core frames it, validates its JSON once,
// records the top-level members any dialect declared (MemberOf) and
// types it (its "type" member, else its "object", else its SSE event
// name). Then it asks the dialects, in detection order, whose it is (see
// ClaimType, ClaimShape, ClaimError) and hands the event to that
// dialect's Assembly in the session. Optional hooks a Protocol may add:
// HeadClaimer (a response whose head names the dialect is its, whatever
// its events' types), FinishOutcomer (what its finish reasons mean for the outcome),
// CompleteWithout (a response complete without its terminal event), and
// Wrapper (events that carry another document encoded inside).
type Protocol interface {
	// Info describes the dialect; it is read once, at registration.
	Info() DialectInfo
	// ClaimType reports whether every event of type typ is the
	// dialect's. It judges the type alone, so a session asks it once per
	// type (a stream repeats a few types over and over): no two dialects
	// may claim one type.
	ClaimType(typ string) bool
	// ClaimShape reports whether the event being added, of type typ,
	// which no dialect claims by type, is the dialect's by a member or
	// object tag only the dialect's payloads have: read them with
	// Session.Member (members declared with MemberOf are at hand; others
	// cost a walk over the event, Session.Field). When two dialects claim
	// one shape, the first in detection order takes it.
	ClaimShape(s *Session, typ string) bool
	// ClaimError reports whether the event, an error no dialect claimed by
	// type or shape, is the dialect's error in a stream that has shown no
	// dialect yet (later errors belong to the stream's dialect).
	ClaimError(s *Session, typ string) bool
	// Keepalive reports whether an event with no data, named name, is the
	// dialect's keepalive (Anthropic's "event: ping").
	Keepalive(name []byte) bool
	// Array applies a JSON array body, element by element, when its
	// elements are the dialect's (Gemini answers streamGenerateContent
	// without alt=sse with an array of chunks), and reports whether they
	// were.
	Array(s *Session, ev *Event, data []byte, ord int) bool
	// NewAssembly returns the dialect's assembly state for a new session.
	NewAssembly() Assembly
	// Shape names the shape of event ev, of type typ, that the dialect
	// claimed (see Session.Shape); data is the event's data, nil when not
	// at hand. Base's shapes an event by its type alone.
	Shape(s *Session, ev *Event, ord int, typ string, data []byte) Shape
	// Explanations are the dialect's rows of the explanations table, which
	// keys them by shape (NewExplanation builds one): every shape the
	// dialect's Shape names has its row. It is read once, at registration,
	// when ID is known.
	Explanations() []Explanation
	base() *Base
}

// Assembly is a dialect's assembly in one session: the responses and items
// it has open. A session makes it when the dialect's first event arrives
// (Protocol.NewAssembly); it is not safe for concurrent use, like the
// session.
type Assembly interface {
	// Event applies an event the dialect claimed: data is its JSON object,
	// whose declared members Session.Member holds; typ is its type. It
	// sets ev.Kind (and ev.Item, ev.Flags as they apply), and grows the
	// session's responses (Session.NewResponse) and items
	// (Session.NewItem).
	Event(s *Session, ev *Event, typ string, data []byte, ord int)
	// Sentinel applies a data: [DONE] that follows the dialect's events.
	Sentinel(s *Session, ord int)
}

// Base gives a Protocol the optional hooks and claims it does without, and
// holds the id Register gave it: embed it.
type Base struct{ id Dialect }

// ID is the dialect's id, DialectUnknown until it is registered.
func (b *Base) ID() Dialect { return b.id }

func (b *Base) base() *Base { return b }

// ClaimType claims no type.
func (*Base) ClaimType(string) bool { return false }

// ClaimShape claims no shape.
func (*Base) ClaimShape(*Session, string) bool { return false }

// ClaimError claims no error.
func (*Base) ClaimError(*Session, string) bool { return false }

// Keepalive knows no keepalive.
func (*Base) Keepalive([]byte) bool { return false }

// Array takes no array.
func (*Base) Array(*Session, *Event, []byte, int) bool { return false }

// Shape shapes an event by its type alone.
func (*Base) Shape(_ *Session, ev *Event, _ int, typ string, _ []byte) Shape {
	return Shape{Dialect: ev.Dialect, Type: typ}
}

// Explanations has no rows.
func (*Base) Explanations() []Explanation { return nil }

// NoSentinel gives an Assembly the Sentinel of a dialect whose streams do
// not end with data: [DONE]: embed it.
type NoSentinel struct{}

// Sentinel ignores the [DONE].
func (NoSentinel) Sentinel(*Session, int) {}

// FinishOutcomer is the optional hook of a dialect whose terminal event
// carries a finish or stop reason (Chat's finish_reason, Anthropic's
// stop_reason, Gemini's finishReason, the reason of Responses'
// incomplete_details): FinishOutcome returns OutcomeIncomplete for a
// reason that is a limit, OutcomeBlocked for a refusal or a filter,
// OutcomeTruncated for one that says the response was cut short (the AI
// SDK's "interrupted"), OutcomeError for one that says it failed, and ""
// for a normal end. The worst reason of a response decides. A dialect
// without it keeps the status its terminal event set.
type FinishOutcomer interface {
	FinishOutcome(reason string) string
}

// HeadClaimer is the optional hook of a dialect whose responses name
// their protocol in their HTTP head: the AI SDK's
// x-vercel-ai-ui-message-stream: v1 (and x-vercel-ai-data-stream: v1 before
// v5), an MCP server's mcp-session-id. ClaimHead reports whether the
// response whose head is h is the dialect's. Every event of a body so
// claimed is the dialect's, asked before any claim by type or shape
// (ClaimType, ClaimShape, ClaimError): its types may be words other APIs
// use too ("start", "finish", "error"), and its body may have no shape of
// its own. Each head of a session is asked anew (a 100 Continue, the next
// response on a connection), and one no dialect claims leaves the body to
// the claims by type and shape. The head is known wherever the response
// is: a `curl -i` capture, a recording, an archive's entry, the proxy; a
// bare body has none, so a dialect that claims heads still claims its
// events by type or shape for it.
type HeadClaimer interface {
	ClaimHead(h *Head) bool
}

// CompleteWithout is the optional hook of a dialect whose responses may
// end complete without their terminal event (a Chat stream without data:
// [DONE] once every choice has its finish_reason): FinishedWithout
// reports, for a response of an ended stream without a terminal event,
// whether it was complete anyway, and the event that completed it.
type CompleteWithout interface {
	FinishedWithout(s *Session, r *Response) (ord int, ok bool)
}

// DialectInfo describes a dialect to reports, views and the checks.
type DialectInfo struct {
	// Name names the dialect in reports, event lines and filters
	// ("openai-responses"). Scripts read it: it never changes.
	Name string
	// Short is the name where room is short, and the prefix of the
	// dialect's rule ids ("responses").
	Short string
	// TypePrefix is the prefix all the dialect's event types share
	// ("response."), which narrow views may drop; "" when there is none.
	TypePrefix string
	// Abbrev pairs long words of the dialect's event types with short
	// forms, for views too narrow for the whole type: old, new, old, new….
	Abbrev []string
	// ArgsRebuilt says a call's arguments are rebuilt from JSON values
	// (Gemini's args objects and partialArgs), not concatenated from text
	// fragments, so no event's fragment is a span of them: see
	// Item.ArgsFragmentAt.
	ArgsRebuilt bool
	// ShapeTypes are the types the dialect gives events that name none of
	// their own, each then the type of every such event ("chat.completion
	// .chunk", Gemini's "(gemini chunk)", an Ollama line's): saying an
	// event's type tells nothing of what it did, so views name it by its
	// shape (Shape: "tool_calls.first", "finish_reason") or by what it
	// changed instead (NamedByShape).
	ShapeTypes []string
}

// The registry, filled by Register from init functions before any session
// exists, and read only afterwards.
var (
	// byDialect is each dialect's Protocol, and infos its description, by
	// id: String runs for every event a report or filter names.
	byDialect [maxDialects]Protocol
	infos     = unknownInfos()
	// registered lists the dialects in id order; detection in the order
	// of their claims (see Register).
	registered, detection []registration
	// wrappers are the dialects that implement Wrapper, in detection
	// order.
	wrappers []Wrapper
	// emptyClaimers are the dialects that implement EmptyClaimer: none,
	// and an event with empty data costs no look at them.
	emptyClaimers []Dialect
)

type registration struct {
	id   Dialect
	p    Protocol
	rank int
}

func unknownInfos() (in [maxDialects]DialectInfo) {
	for i := range in {
		in[i] = DialectInfo{Name: "unknown", Short: "unknown"}
	}
	return in
}

// Register adds a dialect and returns its id, the next free one: ids, and
// so the order reports list dialects in, follow the order of
// registration. rank places its claims in the order of detection: the
// dialects of rank 1, 2, … are asked first, in that order, then those of
// rank 0, in the order of registration; a rank matters only when the
// dialect's ClaimShape may take a payload another's also takes. It must
// run before any session is made, from an init function (model/dialects
// registers every dialect). It panics on a second registration of p or
// of its name, or past the room for dialects: these are programming
// errors, never input.
func Register(p Protocol, rank int) Dialect {
	b := p.base()
	info := p.Info()
	if b.id != DialectUnknown {
		panic(fmt.Sprintf("model: dialect %q registered twice", info.Name))
	}
	if _, dup := Lookup(info.Name); dup {
		panic(fmt.Sprintf("model: two dialects named %q", info.Name))
	}
	id := Dialect(len(registered) + 1)
	if int(id) >= maxDialects {
		panic(fmt.Sprintf("model: no room for dialect %q (at most %d)", info.Name, maxDialects-1))
	}
	b.id = id
	byDialect[id], infos[id] = p, info
	r := registration{id: id, p: p, rank: rank}
	registered = append(registered, r)
	detection = append(detection, r)
	slices.SortStableFunc(detection, func(a, b registration) int { return claimOrder(a.rank) - claimOrder(b.rank) })
	wrappers, emptyClaimers = wrappers[:0], emptyClaimers[:0]
	for _, r := range detection {
		if w, ok := r.p.(Wrapper); ok {
			wrappers = append(wrappers, w)
		}
		if _, ok := r.p.(EmptyClaimer); ok {
			emptyClaimers = append(emptyClaimers, r.id)
		}
	}
	explanations, explainedByShape = indexExplanations()
	return id
}

// claimOrder sorts ranks 1, 2, … before rank 0.
func claimOrder(rank int) int {
	if rank <= 0 {
		return maxDialects + 1
	}
	return rank
}

// Lookup returns the dialect registered under name (DialectInfo.Name),
// and false when there is none. A dialect that hands events to another
// (Bedrock InvokeModel chunks carry Anthropic's) finds it so, by name,
// without importing it.
func Lookup(name string) (Dialect, bool) {
	for _, r := range registered {
		if infos[r.id].Name == name {
			return r.id, true
		}
	}
	return DialectUnknown, false
}

// Protocol returns the dialect's Protocol, or nil for DialectUnknown and
// any value no dialect is registered as.
func (d Dialect) Protocol() Protocol {
	if int(d) < len(byDialect) {
		return byDialect[d]
	}
	return nil
}

// Info describes the dialect; DialectUnknown, and any value no dialect is
// registered as, is described as "unknown".
func (d Dialect) Info() DialectInfo {
	if int(d) < len(infos) {
		return infos[d]
	}
	return infos[DialectUnknown]
}

func (d Dialect) String() string {
	if int(d) < len(infos) {
		return infos[d].Name
	}
	return infos[DialectUnknown].Name
}

// NamedByShape reports whether typ is one of a registered dialect's
// ShapeTypes: an event of it is named by its shape, not its type. The
// views ask it, so that they know no dialect.
func NamedByShape(typ string) bool {
	for _, r := range registered {
		if slices.Contains(infos[r.id].ShapeTypes, typ) {
			return true
		}
	}
	return false
}

// AllDialects lists every registered dialect in Dialect order, without
// DialectUnknown.
func AllDialects() []Dialect {
	out := make([]Dialect, 0, len(registered))
	for _, r := range registered {
		out = append(out, r.id)
	}
	return out
}

// detect names the dialect of an event: the dialect that claimed the
// response by its head (HeadClaimer), else the dialect that claims its
// type, else the first in detection order that claims its shape. A stream may
// mix dialects, so each event is judged on its own; an error that no type
// or shape claims belongs to the stream's recent dialect, or, in a stream
// with none yet, to the first that claims it as an error.
func (s *Session) detect(id uint16, typ string) Dialect {
	if s.headDial != DialectUnknown {
		return s.headDial // the head said whose the body is: see HeadClaimer whose the body is: see HeadClaimer
	}
	var owner Dialect
	if int(id) < len(s.typeOwners) && s.typeOwners[id] != 0 { // typeOwner, inlined by hand
		owner = s.typeOwners[id] - 1
	} else {
		owner = s.typeOwner(id, typ)
	}
	if owner != DialectUnknown {
		return owner
	}
	for _, r := range detection {
		if r.p.ClaimShape(s, typ) {
			return r.id
		}
	}
	if (typ == "error" || s.Member(mError) != nil) && s.lastDial != DialectUnknown {
		return s.lastDial
	}
	for _, r := range detection {
		if r.p.ClaimError(s, typ) {
			return r.id
		}
	}
	return DialectUnknown
}

// claimHead returns the dialect that claims a response by its head h
// (HeadClaimer), the first in detection order, or DialectUnknown.
func claimHead(h *Head) Dialect {
	for _, r := range detection {
		if hc, ok := r.p.(HeadClaimer); ok && hc.ClaimHead(h) {
			return r.id
		}
	}
	return DialectUnknown
}

// typeOwner returns the dialect that claims type typ (interned as id), or
// DialectUnknown, asking the dialects once per type: a stream repeats a
// few types over and over.
func (s *Session) typeOwner(id uint16, typ string) Dialect {
	if int(id) < len(s.typeOwners) && s.typeOwners[id] != 0 {
		return s.typeOwners[id] - 1
	}
	if int(id) >= len(s.typeOwners) {
		s.typeOwners = append(s.typeOwners, make([]Dialect, int(id)+1-len(s.typeOwners))...)
	}
	owner := DialectUnknown
	for _, r := range detection {
		if r.p.ClaimType(typ) {
			owner = r.id
			break
		}
	}
	s.typeOwners[id] = owner + 1
	return owner
}

// Assembly returns the session's assembly of dialect d, making it on first
// use; nil for DialectUnknown. A dialect's rules read their own dialect's
// assembly so (type-asserting it to their own type).
func (s *Session) Assembly(d Dialect) Assembly {
	if d == DialectUnknown || int(d) >= len(s.states) {
		return nil
	}
	st := s.states[d]
	if st == nil {
		st = byDialect[d].NewAssembly()
		s.states[d] = st
	}
	return st
}

// NewAssembly returns a new assembly of dialect d, apart from the
// session's own: a dialect whose events carry another's (Bedrock
// InvokeModel chunks carry Anthropic Messages events) assembles them in
// one of these, so that they do not mix with a plain stream of that
// dialect. nil for DialectUnknown.
func NewAssembly(d Dialect) Assembly {
	if p := d.Protocol(); p != nil {
		return p.NewAssembly()
	}
	return nil
}

// Carried is the optional method of an Assembly whose events another
// dialect may carry (Anthropic's inside Bedrock InvokeModel chunks):
// Response returns the response it is assembling, or nil, so that the
// carrier can end it when its own stream fails (an exception).
type Carried interface {
	Response() *Response
}
