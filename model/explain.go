package model

import (
	"sort"
	"strings"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model/jsonscan"
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

// explainedByShape indexes the explanations table.
var explainedByShape = func() map[Shape]int {
	m := make(map[Shape]int, len(explanations))
	for i, e := range explanations {
		m[e.Shape] = i
	}
	return m
}()

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
		d := ev.Dialect
		if d != DialectChat && d != DialectResponses {
			d = DialectUnknown
		}
		return Shape{Dialect: d, Type: TypeDone}
	}
	if sh, ok := transportShape(ev, typ); ok {
		return sh
	}
	switch ev.Dialect {
	case DialectResponses:
		return responsesShape(ev, typ)
	case DialectChat:
		return s.chatShape(ev, ord, typ, data)
	case DialectAnthropic:
		return s.anthropicShape(ev, ord, typ, data)
	case DialectGemini:
		return s.geminiShape(ev, ord)
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
	typeNonStandard = "(non-standard)"  // a type outside a dialect's stream
)

// transportShape names the shapes every dialect shares: comments, heads,
// trailing bytes and data that is not an event object.
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
	case ev.Flags&DecodeError != 0:
		return Shape{Type: TypeInvalid}, true
	case ev.Flags&NotObject != 0:
		return Shape{Type: typeNotObject}, true
	case typ == TypeNoData, ev.Frame&capture.NoData != 0 && ev.Kind != KindKeepalive:
		return Shape{Type: TypeNoData}, true
	}
	return Shape{}, false
}

// ToolCallFamily returns the family of a Responses hosted-tool status
// event (response.web_search_call.searching is response.web_search_call.*),
// or "" when typ is none.
func ToolCallFamily(typ string) string {
	for _, p := range toolCallPrefixes {
		if strings.HasPrefix(typ, p) {
			return p + "*"
		}
	}
	return ""
}

func responsesShape(ev *Event, typ string) Shape {
	sh := Shape{Dialect: DialectResponses, Type: typ}
	switch {
	case typ == "error", ev.Kind == KindError:
		sh.Type = "error"
	case ev.Flags&NonStandard != 0 && typ != "response.keep_alive" && typ != "response.required_action":
		sh.Type = typeNonStandard
	case ToolCallFamily(typ) != "":
		sh.Type = ToolCallFamily(typ)
	}
	return sh
}

// Chat chunk shapes.
const (
	chatRole         = "role"
	chatContent      = "content"
	chatRefusal      = "refusal"
	chatReasoning    = "reasoning"
	chatCallFirst    = "tool_calls.first"
	chatCallMore     = "tool_calls.continuation"
	chatFunctionCall = "function_call"
	chatFinish       = "finish_reason"
	chatUsage        = "usage"
	chatEmpty        = "empty"
	shapeError       = "error"
)

func (s *Session) chatShape(ev *Event, ord int, typ string, data []byte) Shape {
	if typ == "chat.completion" {
		return Shape{Dialect: DialectChat, Type: typ}
	}
	sh := Shape{Dialect: DialectChat, Type: TypeChunk}
	it := s.eventItem(ev)
	switch {
	case ev.Kind == KindError:
		sh.Sub = shapeError
	case ev.Kind == KindItemOpen || ev.Kind == KindArgsDelta:
		switch {
		case it != nil && it.Type == "function_call": // the deprecated delta.function_call
			sh.Sub = chatFunctionCall
		case ev.Kind == KindItemOpen:
			sh.Sub = chatCallFirst
		default:
			sh.Sub = chatCallMore
		}
	case ev.Kind == KindItemDone:
		sh.Sub = chatFinish
	case ev.Kind == KindTextDelta && it != nil:
		sh.Sub = chatTextShape(it, ord)
	default:
		sh.Sub = s.chatQuietShape(ev, ord, data)
	}
	return sh
}

// chatTextShape tells which text a Chat chunk added to item it.
func chatTextShape(it *Item, ord int) string {
	if it.Role == RoleReasoning {
		return chatReasoning
	}
	if _, _, ok := it.Refusal.FragmentAt(ord); ok {
		return chatRefusal
	}
	if start, end, ok := it.Text.FragmentAt(ord); ok && start == end && it.Opened == ord {
		return chatRole // {"role":"assistant","content":""} opens the message
	}
	return chatContent
}

// chatQuietShape tells what a Chat chunk that added nothing carried: from
// its data when at hand, else from its place (the first chunk of a
// response carries the role; a later quiet one is the usage chunk).
func (s *Session) chatQuietShape(ev *Event, ord int, data []byte) string {
	if data != nil {
		if u := jsonscan.Get(data, "usage"); !jsonscan.IsNull(u) {
			return chatUsage
		}
		role := false
		jsonscan.Elements(jsonscan.Get(data, "choices"), func(_ int, ch []byte) bool {
			role = !jsonscan.IsNull(jsonscan.Path(ch, "delta", "role"))
			return !role
		})
		if role {
			return chatRole
		}
		return chatEmpty
	}
	if r := s.responseAt(ord, ev.Dialect); r != nil && r.First == ord {
		return chatRole
	}
	return chatUsage
}

// Anthropic shapes beyond the block and delta types themselves.
const (
	anthToolResult = "*_tool_result" // web_search_tool_result, container_upload …
	anthOther      = "other"
)

func (s *Session) anthropicShape(ev *Event, ord int, typ string, data []byte) Shape {
	sh := Shape{Dialect: DialectAnthropic, Type: typ}
	it := s.eventItem(ev)
	switch {
	case typ == "error", ev.Kind == KindError:
		sh.Type = "error"
	case ev.Flags&NonStandard != 0:
		sh.Type = typeNonStandard
	case typ == "content_block_start" && it != nil:
		sh.Sub = anthropicBlockShape(it.Type)
	case typ == "content_block_delta":
		sh.Sub = anthropicDeltaShape(ev, ord, it, data)
	case typ == "content_block_stop" && it != nil:
		switch it.Role {
		case RoleCall:
			sh.Sub = "tool_use"
		case RoleReasoning:
			sh.Sub = "thinking"
		}
	}
	return sh
}

// anthropicBlockShape names a block type: as it is when the assembly
// knows it, as a family for the server tools' result blocks.
func anthropicBlockShape(typ string) string {
	switch {
	case typ == "text", anthropicRole(typ) != RoleOther:
		return typ
	case strings.HasSuffix(typ, "_tool_result"), typ == "container_upload":
		return anthToolResult
	}
	return anthOther
}

// anthropicDeltaShape names the delta type: read from data when at hand,
// else inferred from the buffer the delta grew. Inferred, a delta of the
// wrong type for its block (anthropic/delta-type-mismatch) is named by
// what it did, and any delta that added nothing to a text block is taken
// for a citations_delta.
func anthropicDeltaShape(ev *Event, ord int, it *Item, data []byte) string {
	if data != nil {
		dt, _ := jsonscan.String(jsonscan.Path(data, "delta", "type"))
		if _, known := Explain(Shape{Dialect: DialectAnthropic, Type: "content_block_delta", Sub: dt}); known && dt != anthOther {
			return dt
		}
		return anthOther
	}
	switch {
	case ev.Kind == KindArgsDelta:
		return "input_json_delta"
	case it == nil:
		return anthOther
	}
	if _, _, ok := it.Sign.FragmentAt(ord); ok {
		return "signature_delta"
	}
	if _, _, ok := it.Text.FragmentAt(ord); ok {
		if it.Role == RoleReasoning {
			return "thinking_delta"
		}
		return "text_delta"
	}
	if it.Type == "text" {
		return "citations_delta"
	}
	return anthOther
}

// Gemini chunk shapes.
const (
	gemText      = "text"
	gemThought   = "thought"
	gemCall      = "functionCall"
	gemCallStart = "functionCall.start"
	gemPartial   = "partialArgs"
	gemCallEnd   = "functionCall.end"
	gemFinish    = "finishReason"
	gemNoParts   = "usageMetadata"
)

// geminiShape names what a chunk carries. The last chunk of a candidate
// often carries its last part beside finishReason: a call opened or ended
// there is named by the call, which is what a client acts on.
func (s *Session) geminiShape(ev *Event, ord int) Shape {
	sh := Shape{Dialect: DialectGemini, Type: TypeGemini}
	it := s.eventItem(ev)
	switch ev.Kind {
	case KindError:
		sh.Sub = shapeError
	case KindTerminal:
		sh.Sub = gemFinish
		if it != nil && it.IsCall() {
			streamed, ended := it.GeminiEnded()
			switch {
			case it.Opened == ord && streamed:
				sh.Sub = gemCallStart
			case it.Opened == ord:
				sh.Sub = gemCall
			case it.Closed == ord && ended:
				sh.Sub = gemCallEnd
			}
		}
	case KindItemOpen:
		sh.Sub = gemCall
		if it != nil {
			if streamed, _ := it.GeminiEnded(); streamed {
				sh.Sub = gemCallStart
			}
		}
	case KindArgsDelta:
		sh.Sub = gemPartial
	case KindArgsDone:
		sh.Sub = gemCallEnd
	case KindTextDelta:
		sh.Sub = gemText
		if it != nil && it.Role == RoleReasoning {
			sh.Sub = gemThought
		}
	default:
		sh.Sub = gemNoParts
	}
	return sh
}

// eventItem returns the item ev touched, or nil.
func (s *Session) eventItem(ev *Event) *Item {
	if ev.Item < 0 || int(ev.Item) >= len(s.Items) {
		return nil
	}
	return s.Items[ev.Item]
}

// responseAt returns the response of dialect d that event ord belongs to:
// the latest one started at or before it. Responses are kept in the order
// they started.
func (s *Session) responseAt(ord int, d Dialect) *Response {
	i := sort.Search(len(s.Responses), func(i int) bool { return s.Responses[i].First > ord })
	for i--; i >= 0; i-- {
		if s.Responses[i].Dialect == d {
			return s.Responses[i]
		}
	}
	return nil
}
