package model

import (
	"slices"
)

// Dialect is the API whose stream an event belongs to. Each dialect is one
// file of this package (responses.go, chat.go, anthropic.go, gemini.go)
// and one line of the registry below.
type Dialect uint8

const (
	DialectUnknown Dialect = iota
	DialectResponses
	DialectChat
	DialectAnthropic
	DialectGemini
	numDialects // the dialects above; a test may register more
)

// maxDialects bounds the registry, so that a session keeps its counts and
// states per dialect in arrays instead of allocating them.
const maxDialects = 8

// registry lists every dialect once. It is also the order of detection:
// when two dialects claim an event equally strongly, the one listed first
// takes it. A new dialect is a constant above, its file, and a line here.
var registry = []registered{
	{DialectChat, chatDialect{}}, // first: a payload with choices is a Chat chunk, whatever else it has
	{DialectResponses, responsesDialect{}},
	{DialectAnthropic, anthropicDialect{}},
	{DialectGemini, geminiDialect{}},
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
	// claim says how surely the event being added, of type typ, is one
	// of the dialect's (see detect). The members s.top holds are at hand;
	// others cost a walk over the event (Session.Field) for every event.
	claim(s *Session, typ string) claim
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

// noHooks gives a dialect the optional hooks it does without.
type noHooks struct{}

func (noHooks) keepalive([]byte) bool                    { return false }
func (noHooks) array(*Session, *Event, []byte, int) bool { return false }
func (noHooks) sentinel(*Session, int)                   {}

// claim is how surely an event is a dialect's, weakest first.
type claim uint8

const (
	claimNone claim = iota
	// claimError: an "error" event in the dialect's shape. It counts only
	// when the stream has no dialect yet: otherwise an error belongs to
	// the dialect of the events before it.
	claimError
	// claimShape: the payload has a member only the dialect's payloads
	// have (Chat's choices, Gemini's candidates), or its object names the
	// dialect's envelope (object: "response").
	claimShape
	// claimType: the event's type is one of the dialect's own
	// (response.*, message_start). No two dialects share a type.
	claimType
)

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

// detect names the dialect of an event from its type and shape: the
// strongest claim, the first registered winning a tie. A stream may mix
// dialects, so each event is judged on its own, with the stream's recent
// dialect taking an error that no dialect's type or shape claims.
func (s *Session) detect(typ string) Dialect {
	t := &s.top
	best, strongest := DialectUnknown, claimNone
	for _, r := range registry {
		if c := r.d.claim(s, typ); c > strongest {
			best, strongest = r.id, c
			if c == claimType {
				break
			}
		}
	}
	switch {
	case strongest > claimError:
		return best
	case (typ == "error" || t.err != nil) && s.lastDial != DialectUnknown:
		return s.lastDial
	}
	return best
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
