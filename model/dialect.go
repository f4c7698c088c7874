package model

import (
	"slices"
)

// Dialect is the API whose stream an event belongs to. Each dialect is one
// file of this package (responses.go, chat.go, anthropic.go, gemini.go,
// ollama.go, bedrock_converse.go, bedrock_invoke.go) and one line of the
// registry below.
type Dialect uint8

const (
	DialectUnknown Dialect = iota
	DialectResponses
	DialectChat
	DialectAnthropic
	DialectGemini
	DialectOllama
	DialectBedrockConverse
	DialectBedrockInvoke
	numDialects // the dialects above; a test may register more
)

// maxDialects bounds the registry, so that a session keeps its counts and
// states per dialect in arrays instead of allocating them.
const maxDialects = 16

// registry lists every dialect once. It is also the order of detection:
// when two dialects claim an event's shape (or an error), the one listed
// first takes it: a whole Anthropic message (typed "message"), then a Chat
// payload (choices win over any other member), then a Responses body,
// then a Gemini chunk, then an Ollama line (by its boolean done, which no
// other dialect's payload has); the Bedrock dialects claim only event
// stream messages, whose payloads hold none of the members the others
// claim by. A new dialect is a constant above, its files
// (<dialect>.go: detection and assembly; <dialect>_explain.go: shapes and
// explanations), and a line here; its rules are a file and a line in
// model/checks. Two places outside them read every dialect on purpose:
// ParseRequest reads a request body of any dialect in one decoding, and
// the session's top members (top.collect) are the union of the members
// the dialects read often, gathered in the one pass over each event.
var registry = []registered{
	{DialectAnthropic, new(anthropicDialect)},
	{DialectChat, new(chatDialect)},
	{DialectResponses, new(responsesDialect)},
	{DialectGemini, new(geminiDialect)},
	{DialectOllama, new(ollamaDialect)},
	{DialectBedrockConverse, new(converseDialect)},
	{DialectBedrockInvoke, new(invokeDialect)},
}

type registered struct {
	id Dialect
	d  dialect
}

// dialect is one API's stream: how its events are recognised and
// assembled. Its methods run for every event, so they must be cheap and
// must not allocate on the common path.
type dialect interface {
	info() DialectInfo
	// The claims say whether the event being added, of type typ, is the
	// dialect's (see detect). claimType judges the type alone, so a
	// session asks it once per type: no two dialects share a type.
	// claimShape judges a payload by a member or object tag only the
	// dialect's payloads have; claimError an error event in the
	// dialect's shape. The members s.top holds are at hand; others cost a
	// walk over the event (Session.Field) for every event.
	claimType(typ string) bool
	claimShape(s *Session, typ string) bool
	claimError(s *Session, typ string) bool
	// keepalive reports whether an event with no data, named name, is the
	// dialect's keepalive (Anthropic's "event: ping").
	keepalive(name []byte) bool
	// array applies a JSON array body, element by element, when its
	// elements are the dialect's (Gemini answers streamGenerateContent
	// without alt=sse with an array of chunks), and reports whether they
	// were.
	array(s *Session, ev *Event, data []byte, ord int) bool
	// newState returns the dialect's assembly state for a new session.
	newState() dialectState
	// shape names the shape of event ev, of type typ, that the dialect
	// claimed (see Session.Shape); data is the event's data, nil when not
	// at hand; without a shape of its own (noHooks) a dialect's events are
	// shaped by their type alone. explanations are the dialect's rows of
	// the explanations table, which keys them by shape: every dialect has
	// its own (the explain test lists the shapes that have no row).
	shape(s *Session, ev *Event, ord int, typ string, data []byte) Shape
	explanations() []Explanation
}

// dialectState is a dialect's assembly in one session: the responses and
// items it has open.
type dialectState interface {
	// event applies an event the dialect claimed: data is its JSON object,
	// whose top-level members Session.top holds; typ is its type.
	event(s *Session, ev *Event, typ string, data []byte, ord int)
	// sentinel applies a data: [DONE] that follows the dialect's events.
	sentinel(s *Session, ord int)
}

// noHooks gives a dialect the optional hooks and claims it does without.
type noHooks struct{}

func (noHooks) keepalive([]byte) bool                    { return false }
func (noHooks) array(*Session, *Event, []byte, int) bool { return false }
func (noHooks) sentinel(*Session, int)                   {}
func (noHooks) claimType(string) bool                    { return false }
func (noHooks) claimShape(*Session, string) bool         { return false }
func (noHooks) claimError(*Session, string) bool         { return false }

func (noHooks) shape(_ *Session, ev *Event, _ int, typ string, _ []byte) Shape {
	return Shape{Dialect: ev.Dialect, Type: typ}
}

// DialectInfo describes a dialect to reports, views and the checks.
type DialectInfo struct {
	// Name names the dialect in reports, event lines and filters
	// ("openai-responses"). Scripts read it: it never changes.
	Name string
	// Short is the name where room is short, and the prefix of the
	// dialect's rule ids in package model/checks ("responses").
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
}

// byDialect is the registry by Dialect, and infos each one's description,
// made once: String runs for every event a report or filter names.
var byDialect, infos = indexDialects()

func indexDialects() (ds [maxDialects]dialect, in [maxDialects]DialectInfo) {
	for i := range in {
		in[i] = DialectInfo{Name: "unknown", Short: "unknown"}
	}
	for _, r := range registry {
		ds[r.id], in[r.id] = r.d, r.d.info()
	}
	return ds, in
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

// AllDialects lists every registered dialect in Dialect order, without
// DialectUnknown.
func AllDialects() []Dialect {
	out := make([]Dialect, 0, len(registry))
	for _, r := range registry {
		out = append(out, r.id)
	}
	slices.Sort(out)
	return out
}

// detect names the dialect of an event: the dialect that claims its type,
// else the first registered that claims its shape. A stream may mix
// dialects, so each event is judged on its own; an error that no type or
// shape claims belongs to the stream's recent dialect, or, in a stream
// with none yet, to the first that claims it as an error.
func (s *Session) detect(id uint16, typ string) Dialect {
	var owner Dialect
	if int(id) < len(s.typeOwners) && s.typeOwners[id] != 0 { // typeOwner, inlined by hand
		owner = s.typeOwners[id] - 1
	} else {
		owner = s.typeOwner(id, typ)
	}
	if owner != DialectUnknown {
		return owner
	}
	for _, r := range registry {
		if r.d.claimShape(s, typ) {
			return r.id
		}
	}
	if (typ == "error" || s.top.err != nil) && s.lastDial != DialectUnknown {
		return s.lastDial
	}
	for _, r := range registry {
		if r.d.claimError(s, typ) {
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
	for _, r := range registry {
		if r.d.claimType(typ) {
			owner = r.id
			break
		}
	}
	s.typeOwners[id] = owner + 1
	return owner
}

// state returns the session's assembly state of dialect d, making it on
// first use.
func (s *Session) state(d Dialect) dialectState {
	st := s.states[d]
	if st == nil {
		st = byDialect[d].newState()
		s.states[d] = st
	}
	return st
}
