package model

import (
	"sort"

	"github.com/streamtap/streamtap/capture"
)

// Shape is what one event is, finer than its type: the key of its
// explanation. One type can hold several shapes (every Chat chunk is a
// chat.completion.chunk, every Gemini chunk a GenerateContentResponse; an
// Anthropic content_block_start differs by block type), and one shape can
// cover a family of types (response.web_search_call.* for each status of a
// web search).
type Shape struct {
	// Dialect is the event's dialect, or DialectUnknown for what every
	// dialect shares: comments, HTTP heads, data that is not JSON.
	Dialect Dialect
	// Type is the event type, or the family it belongs to.
	Type string
	// Sub tells apart the shapes of one type: an Anthropic block or delta
	// type, a Chat chunk's or Gemini chunk's content. "" when the type says
	// all.
	Sub string
}

// String names the shape as the explanations do: "type" or "type/sub".
func (sh Shape) String() string {
	if sh.Sub == "" {
		return sh.Type
	}
	return sh.Type + "/" + sh.Sub
}

// Explanation teaches one shape of event: what the protocol means by it and
// where it goes wrong. The text comes from the protocol reference; Rules
// are the ids of the model/checks rules that catch what goes wrong.
type Explanation struct {
	Shape Shape
	// Does says what it opens, adds to or closes.
	Does string
	// Fields names the fields that matter.
	Fields string
	// Client says what a conforming client does with it.
	Client string
	// Pitfalls says what commonly goes wrong.
	Pitfalls string
	Rules    []string
}

// Explain returns the explanation of a shape. ok is false for a shape the
// table does not hold.
func Explain(sh Shape) (Explanation, bool) {
	i, ok := explainedByShape[sh]
	if !ok {
		return Explanation{}, false
	}
	return explanations[i], true
}

// Explanations returns every explanation, in table order. The slice is a
// copy; the Rules slices are shared and must not be modified.
func Explanations() []Explanation {
	return append([]Explanation(nil), explanations...)
}

// shapeDataMax bounds the data Shape reads. The facts it looks for sit in
// small events; a bigger one is judged on what the session knows alone, so
// that explaining a 50 MB event costs no pass over it.
const shapeDataMax = 64 << 10

// Shape tells the shape of event ord (ev is the event, as Add returned it
// or as Events holds it). It works from what the session already knows
// about the event: its dialect, type and kind, the item it touched (that
// item's type and role) and which of the item's buffers it added to. Two
// facts the session does not keep are read from data, the event's data
// (nil when not at hand, or over shapeDataMax): the delta type of an
// Anthropic content_block_delta, and what a Chat chunk that added nothing
// carried (role, usage or nothing). Without data they are inferred: the
// delta type from the block and the buffer it grew, a quiet chunk from
// its place in the response.
func (s *Session) Shape(ev *Event, ord int, data []byte) Shape {
	if len(data) > shapeDataMax {
		data = nil
	}
	typ := s.TypeName(ev.Type)
	if typ == TypeDone {
		// [DONE] is a dialect's own when the dialect explains it (Chat and
		// Responses end with it), else what every dialect shares.
		sh := Shape{Dialect: ev.Dialect, Type: TypeDone}
		if _, known := explainedByShape[sh]; !known {
			sh.Dialect = DialectUnknown
		}
		return sh
	}
	if sh, ok := transportShape(ev, typ); ok {
		return sh
	}
	if d := ev.Dialect; d != DialectUnknown && int(d) < len(byDialect) && byDialect[d] != nil {
		return byDialect[d].Shape(s, ev, ord, typ, data)
	}
	if ev.Kind == KindError {
		return Shape{Type: typeErrorBody}
	}
	return Shape{Type: typeUntyped}
}

// Pseudo types of the shapes only explanations use.
const (
	typeUntyped     = "(untyped)"       // a JSON object no dialect claims
	typeNotObject   = "(not an object)" // JSON that is not an object
	typeErrorBody   = "(error)"         // an error outside any dialect
	TypeNonStandard = "(non-standard)"  // a type outside a dialect's stream
	ShapeError      = "error"           // the Sub of an error in a dialect whose type says nothing
)

// transportShape names the shapes every dialect shares: comments, heads,
// trailing bytes, damaged event stream messages and data that is not an
// event object.
func transportShape(ev *Event, typ string) (Shape, bool) {
	switch {
	case ev.Source == capture.FrameComment:
		return Shape{Type: TypeComment}, true
	case ev.Source == capture.FrameRemainder:
		return Shape{Type: TypeRemainder}, true
	case ev.Source == capture.FrameHead:
		if ev.Kind == KindError {
			return Shape{Type: TypeHTTP, Sub: "error"}, true
		}
		return Shape{Type: TypeHTTP}, true
	case typ == TypeBadFrame:
		return Shape{Type: TypeBadFrame}, true
	case ev.Flags&DecodeError != 0:
		return Shape{Type: TypeInvalid}, true
	case ev.Flags&NotObject != 0:
		return Shape{Type: typeNotObject}, true
	case typ == TypeNoData, ev.Frame&capture.NoData != 0 && ev.Kind != KindKeepalive:
		return Shape{Type: TypeNoData}, true
	}
	return Shape{}, false
}

// EventItem returns the item ev touched, or nil.
func (s *Session) EventItem(ev *Event) *Item {
	if ev.Item < 0 || int(ev.Item) >= len(s.Items) {
		return nil
	}
	return s.Items[ev.Item]
}

// ResponseAt returns the response of dialect d that event ord belongs to:
// the latest one started at or before it. Responses are kept in the order
// they started.
func (s *Session) ResponseAt(ord int, d Dialect) *Response {
	i := sort.Search(len(s.Responses), func(i int) bool { return s.Responses[i].First > ord })
	for i--; i >= 0; i-- {
		if s.Responses[i].Dialect == d {
			return s.Responses[i]
		}
	}
	return nil
}
