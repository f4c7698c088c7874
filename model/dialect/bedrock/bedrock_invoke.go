package bedrock

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// invokeDialect is Amazon Bedrock's InvokeModelWithResponseStream: event
// stream messages of :event-type chunk, each payload {"bytes": base64}
// wrapping one event of the model's own streaming JSON. What is inside is
// assembled by the dialect that owns it: Anthropic Messages events by the
// Anthropic dialect's assembly (its items and responses are Anthropic's),
// Amazon Nova's Converse-shaped events ({"contentBlockDelta": {…}}) by the
// Converse assembly, and the text of Titan, Llama, Cohere, Mistral and AI21
// chunks here, with their stop reason and a guardrail's intervention. The
// whole body the non-streaming InvokeModel answers with is read here too
// for those text models (see wholeInvoke).
type invokeDialect struct{ model.Base }

func (*invokeDialect) Info() model.DialectInfo {
	return model.DialectInfo{Name: "bedrock-invoke", Short: "invoke"}
}

// ClaimShape takes a chunk of an event stream, and an exception in a
// stream of chunks; outside an event stream, the whole body of a text
// model (see wholeInvoke).
func (*invokeDialect) ClaimShape(s *model.Session, typ string) bool {
	if s.Current().Frame&capture.EventStream == 0 {
		return wholeInvoke(s) != ""
	}
	return typ == TypeInvokeChunk || s.Current().Frame&capture.Exception != 0 && s.LastDialect() == Invoke.ID()
}

func (*invokeDialect) NewAssembly() model.Assembly { return new(invokeState) }

// anthropicName is the name of the dialect whose events Anthropic's
// chunks carry (anthropic.Name): found by name (model.Lookup), so that
// this package imports no other dialect.
const anthropicName = "anthropic"

// TypeInvokeChunk is the :event-type of every InvokeModel stream message, and
// the type of a chunk whose inner event names no type of its own (Titan,
// Llama, Cohere, Mistral).
const TypeInvokeChunk = "chunk"

// The model families an InvokeModel chunk may wrap, told by the inner
// event's members.
const (
	FamilyAnthropic = "anthropic" // {"type": "message_start", …}
	FamilyNova      = "nova"      // {"contentBlockDelta": {…}}: Converse-shaped
	FamilyTitan     = "titan"     // outputText, completionReason
	FamilyLlama     = "llama"     // generation, stop_reason (Meta Llama, DeepSeek)
	FamilyCohere    = "cohere"    // text, is_finished, finish_reason
	FamilyMistral   = "mistral"   // outputs[] {text, stop_reason}
	FamilyChoices   = "choices"   // choices[] {delta|message, finish_reason}: Mistral Large, AI21 Jamba
	FamilyUnknown   = "unknown"   // a JSON object of none of these
)

// invokeState assembles an InvokeModel stream chunk by chunk.
type invokeState struct {
	model.NoSentinel
	// Anthropic inside: the Anthropic dialect's own assembly, apart from
	// the session's (see model.NewAssembly), made at the first such chunk.
	anth   model.Assembly
	anthID model.Dialect
	nova   converseState // Nova inside: the Converse assembly
	// The text families' response and its text.
	resp *model.Response
	text *model.Item
	// The chunk being added: its decoded bytes (reused), and what it
	// wrapped, for the checks.
	inner []byte
	b64   []byte // an escaped bytes string, unquoted
	chunk Chunk
}

func (st *invokeState) Event(s *model.Session, ev *model.Event, typ string, data []byte, ord int) {
	st.chunk = Chunk{}
	if ev.Frame&capture.Exception != 0 {
		exceptionEvent(s, ev, typ, ord)
		var anth *model.Response
		if c, ok := st.anth.(model.Carried); ok {
			anth = c.Response()
		}
		for _, r := range []*model.Response{anth, st.nova.resp, st.resp} {
			if r != nil && r.Terminal < 0 {
				r.Status.Set(ord, model.OutcomeError)
			}
		}
		return
	}
	if ev.Frame&capture.EventStream == 0 {
		st.whole(s, ev, ord) // the only event claimed outside an event stream
		return
	}
	if typ != TypeInvokeChunk {
		ev.Kind, ev.Flags = model.KindUnknown, ev.Flags|model.NonStandard
		return
	}
	inner, isObj, err, decoded := s.Unwrapped()
	if !decoded {
		v := s.Member(mBytes)
		if jsonscan.Kind(v) != '"' {
			st.chunk.Problem = "no bytes member holding a base64 string"
			return
		}
		inner, st.inner, st.b64, err = decodeChunk(v, st.inner[:0], st.b64[:0])
		if err != nil {
			st.chunk.Problem = "bytes is not base64: " + err.Error()
			return
		}
		isObj, err = s.Focus(inner)
	}
	if err != nil || !isObj {
		st.chunk.Problem = "the decoded bytes are not a JSON object"
		return
	}
	st.chunk.Family = chunkFamily(s.JSON(), s.Member(mType), inner)
	switch st.chunk.Family {
	case FamilyAnthropic:
		ev.Type = s.InternString(s.Member(mType))
		innerTyp := s.TypeName(ev.Type)
		if st.anth == nil {
			st.anthID, _ = model.Lookup(anthropicName)
			st.anth = model.NewAssembly(st.anthID)
		}
		if st.anth == nil || !st.anthID.Protocol().ClaimType(innerTyp) && innerTyp != "error" {
			ev.Kind, ev.Flags = model.KindUnknown, ev.Flags|model.NonStandard
			return
		}
		st.anth.Event(s, ev, innerTyp, inner, ord)
	case FamilyNova:
		var key, body []byte
		s.JSON().Members(inner, func(k, v []byte) bool {
			key, body = k, v
			return false
		})
		ev.Type = s.Intern(key)
		s.FocusValue(body)
		st.nova.Event(s, ev, string(key), body, ord)
	case FamilyUnknown:
		ev.Kind = model.KindUnknown
		var names []byte
		n := 0
		s.JSON().Members(inner, func(k, _ []byte) bool {
			if n++; n > 1 {
				names = append(names, ", "...)
			}
			names = append(names, k...)
			return n < 4
		})
		st.chunk.Members = string(names)
	default:
		st.textChunk(s, ev, inner, ord, false)
	}
}

// chunkFamily tells the family of the inner event by its members (typ is
// its type member, if any), read through idx.
func chunkFamily(idx *jsonscan.Index, typ, inner []byte) string {
	if jsonscan.Kind(typ) == '"' {
		return FamilyAnthropic
	}
	family, n := FamilyUnknown, 0
	idx.Members(inner, func(k, _ []byte) bool {
		n++
		switch string(k) {
		case "outputText":
			family = FamilyTitan
		case "generation":
			family = FamilyLlama
		case "outputs":
			family = FamilyMistral
		case "choices":
			family = FamilyChoices
		case "is_finished", "generations", "event_type":
			family = FamilyCohere
		case "text":
			if family == FamilyUnknown {
				family = FamilyCohere
			}
		default:
			if n == 1 && converseType(string(k)) {
				family = FamilyNova
			}
		}
		return true
	})
	if family == FamilyNova && n != 1 {
		family = FamilyUnknown
	}
	return family
}

// textChunk applies a chunk of a family that streams text and a stop
// reason (Titan, Llama, Cohere, Mistral, AI21). The chunk with a stop
// reason, a guardrail's intervention or the invocation metrics (every
// family's last chunk carries amazon-bedrock-invocationMetrics) ends the
// response; so does a whole body (whole), which is such a chunk holding
// the whole answer: Titan's and Jurassic's in the first element of
// results[] and completions[], Claude 2's as completion.
func (st *invokeState) textChunk(s *model.Session, ev *model.Event, inner []byte, ord int, whole bool) {
	if st.resp == nil || st.resp.Terminal >= 0 {
		st.resp = s.NewResponse(Invoke.ID(), ord)
		st.resp.Status.Set(ord, "in_progress")
		st.text = nil
	}
	r := st.resp
	ev.Kind = model.KindLifecycle
	var text, stop []byte
	blocked, last := false, whole
	s.JSON().Members(inner, func(k, v []byte) bool {
		switch string(k) {
		case "outputText", "generation", "text", "completion":
			text = v
		case "completionReason", "stop_reason", "finish_reason":
			stop = v
		case "outputs", "generations", "choices", "results", "completions":
			first := firstElement(s, v)
			for _, p := range [][]string{{"text"}, {"outputText"}, {"delta", "content"}, {"message", "content"}, {"data", "text"}} {
				if t := s.JSON().Path(first, p...); jsonscan.Kind(t) == '"' {
					text = t
					break
				}
			}
			for _, key := range []string{"stop_reason", "finish_reason", "completionReason"} {
				if v := s.JSON().Get(first, key); !jsonscan.IsNull(v) {
					stop = v
				}
			}
			if v := s.JSON().Path(first, "finishReason", "reason"); jsonscan.Kind(v) == '"' {
				stop = v
			}
		case "amazon-bedrock-guardrailAction":
			blocked = jsonscan.Equal(v, "INTERVENED")
		case "amazon-bedrock-invocationMetrics":
			last = true
		}
		return true
	})
	if jsonscan.Kind(text) == '"' && len(text) > 2 {
		if st.text == nil {
			st.text = s.NewItem(Invoke.ID(), model.RoleMessage, "text", ord)
			st.text.Response, st.text.Position, st.text.Opened = r.Index, 0, ord
			st.text.Status.Set(ord, "in_progress")
		}
		ev.Kind = model.KindTextDelta
		st.text.Text.AddString(ord, text)
		st.text.Touch(ord)
		ev.Item = int32(st.text.Index)
	}
	reason := ""
	if !jsonscan.IsNull(stop) {
		reason = model.StringOf(stop)
	}
	if blocked {
		reason = "guardrail_intervened"
	}
	if reason == "" && !last {
		return
	}
	ev.Kind = model.KindTerminal
	if reason != "" {
		r.AddFinish(0, ord, reason)
	}
	r.Terminal, r.Final = ord, ord
	status := stopStatus(reason)
	if blocked {
		status = model.OutcomeBlocked
	}
	r.Status.Set(ord, status)
	if st.text != nil {
		st.text.Close(ord)
		st.text.Status.Set(ord, "completed")
	}
}

// firstElement is the first element of an array, or nil.
func firstElement(s *model.Session, arr []byte) []byte {
	var first []byte
	s.JSON().Elements(arr, func(_ int, v []byte) bool {
		first = v
		return false
	})
	return first
}

// decodeChunk decodes the base64 string value v (a chunk's bytes) into
// dst, returning it and the scratch used (b64) for reuse. The string is
// decoded as it stands, its JSON escapes (a "\/" some encoders write)
// undone only when there are any: looking for them first would read every
// chunk's bytes once more.
func decodeChunk(v, dst, b64 []byte) (inner, dstOut, b64Out []byte, err error) {
	inner, err = base64.StdEncoding.AppendDecode(dst, v[1:len(v)-1])
	if err != nil && bytes.IndexByte(v, '\\') >= 0 {
		b64 = jsonscan.Unquote(b64, v)
		inner, err = base64.StdEncoding.AppendDecode(dst, b64)
	}
	return inner, inner, b64, err
}

// Wraps takes an event stream message of :event-type chunk.
func (*invokeDialect) Wraps(f *capture.Frame) bool {
	return f.Flags&capture.EventStream != 0 && string(f.Event) == TypeInvokeChunk
}

// UnwrapShaped decodes the base64 of a payload in the usual shape (see
// chunkShape): decoding it is also the payload's validation, so it takes
// no escape and no line break.
func (*invokeDialect) UnwrapShaped(dst, data []byte) ([]byte, bool) {
	b64, ok := chunkShape(data)
	if !ok {
		return nil, false
	}
	return decodeBase64(dst, b64)
}

// Unwrap decodes a chunk's bytes member, a base64 string.
func (*invokeDialect) Unwrap(idx *jsonscan.Index, data, dst, scratch []byte) (out, scratchOut []byte, err error) {
	v := idx.Get(data, "bytes")
	if jsonscan.Kind(v) != '"' {
		return dst, scratch, errNoBytes
	}
	_, out, scratchOut, err = decodeChunk(v, dst, scratch)
	return out, scratchOut, err
}

// errNoBytes says a chunk holds no base64 string in its bytes member.
var errNoBytes = errors.New("no bytes member holding a base64 string")

// chunkShape returns the base64 of an InvokeModel chunk's payload in the
// shape Bedrock sends, {"bytes":"…"} or {"bytes":"…","p":"…"} with
// padding of plain ASCII (letters and digits), and whether data has it. Such a payload
// is valid JSON when decodeBase64 decodes its base64: the decoder reads
// every byte of the string and takes none that JSON would escape, so the
// validator need not read the string too (it is most of a chunk's
// bytes). A payload it does not decode, or of any other shape, is left to
// the validator.
func chunkShape(data []byte) ([]byte, bool) {
	const head = `{"bytes":"`
	rest, ok := bytes.CutPrefix(data, []byte(head))
	if !ok {
		return nil, false
	}
	end := bytes.IndexByte(rest, '"')
	if end < 0 {
		return nil, false
	}
	b64, tail := rest[:end], rest[end+1:]
	switch {
	case string(tail) == "}":
	case len(tail) >= len(`,"p":""}`) && string(tail[:6]) == `,"p":"` && string(tail[len(tail)-2:]) == `"}` && plainASCII(tail[6:len(tail)-2]):
	default:
		return nil, false
	}
	return b64, true
}

// plainASCII reports whether b holds only ASCII that a JSON string holds
// as it is: no control character, quote or backslash. It reads a word at
// a time, since it runs over every chunk's padding.
func plainASCII(b []byte) bool {
	const lsb, msb = 0x0101010101010101, 0x8080808080808080
	zero := func(x uint64) uint64 { return (x - lsb) &^ x & msb }
	for ; len(b) >= 8; b = b[8:] {
		x := binary.LittleEndian.Uint64(b)
		if x&msb|zero(x^lsb*'"')|zero(x^lsb*'\\')|(x-lsb*0x20)&^x&msb != 0 {
			return false
		}
	}
	for _, c := range b {
		if c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// Chunk is what an InvokeModel chunk wrapped, for the checks.
type Chunk struct {
	// Family is the family of its inner event (FamilyAnthropic …), or ""
	// when its bytes could not be read.
	Family string
	// Problem says why its bytes could not be read, or is "".
	Problem string
	// Members names the inner event's first members when its family is
	// FamilyUnknown.
	Members string
}

// ChunkOf tells what the InvokeModel chunk being added (or observed)
// wrapped; the zero Chunk for any other event. Like Session.Field it
// answers only while the event is added and observed.
func ChunkOf(s *model.Session) Chunk {
	if s.Current().Dialect != Invoke.ID() {
		return Chunk{}
	}
	st, ok := s.Assembly(Invoke.ID()).(*invokeState)
	if !ok {
		return Chunk{}
	}
	return st.chunk
}
