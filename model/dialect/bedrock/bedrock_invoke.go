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
// event's members (https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters.html
// gives each family's streaming response). Bedrock's own members
// (amazon-bedrock-invocationMetrics on every family's last chunk,
// amazon-bedrock-guardrailAction, amazon-bedrock-trace) may stand beside
// any family's and tell none.
const (
	FamilyAnthropic  = "anthropic"   // {"type": "message_start", …}
	FamilyClaudeText = "claude-text" // completion, stop_reason, stop (type "completion", or none): Claude 2's and Instant's Text Completions
	FamilyNova       = "nova"        // {"contentBlockDelta": {…}}: Converse-shaped
	FamilyTitan      = "titan"       // outputText, completionReason
	FamilyLlama      = "llama"       // generation, stop_reason (Meta Llama, DeepSeek)
	FamilyCohere     = "cohere"      // text, is_finished, finish_reason; index per generation when num_generations > 1
	FamilyMistral    = "mistral"     // outputs[] {text, stop_reason}
	FamilyChoices    = "choices"     // choices[] {delta|message, finish_reason}: Mistral Large, AI21 Jamba
	FamilyMetrics    = "metrics"     // Bedrock's members alone: the invocation metrics AI21 Jamba sends in a last chunk of their own
	FamilyUnknown    = "unknown"     // a JSON object of none of these
)

// bedrockMember reports whether k is a member Bedrock adds to a model's
// chunk (amazon-bedrock-invocationMetrics, -guardrailAction, -trace),
// which tells no family.
func bedrockMember(k []byte) bool { return bytes.HasPrefix(k, []byte("amazon-bedrock-")) }

// invokeState assembles an InvokeModel stream chunk by chunk.
type invokeState struct {
	model.NoSentinel
	// Anthropic inside: the Anthropic dialect's own assembly, apart from
	// the session's (see model.NewAssembly), made at the first such chunk.
	anth   model.Assembly
	anthID model.Dialect
	nova   converseState // Nova inside: the Converse assembly
	// The text families' response and its generations (one, or
	// Cohere's num_generations, the choices' n), by index.
	resp *model.Response
	gens map[int]*generation
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
		key, body := novaEvent(s.JSON(), inner)
		ev.Type = s.Intern(key)
		s.FocusValue(body)
		st.nova.Event(s, ev, string(key), body, ord)
	case FamilyMetrics:
		st.metricsChunk(ev, ord)
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
// its type member, if any), read through idx. Bedrock's own members are
// passed over: a Nova event is its one Converse member beside them, and a
// chunk of nothing else is the metrics chunk.
func chunkFamily(idx *jsonscan.Index, typ, inner []byte) string {
	if jsonscan.Kind(typ) == '"' {
		if jsonscan.Equal(typ, "completion") {
			return FamilyClaudeText
		}
		return FamilyAnthropic
	}
	family, n, bedrock := FamilyUnknown, 0, false
	idx.Members(inner, func(k, _ []byte) bool {
		if bedrockMember(k) {
			bedrock = true
			return true
		}
		n++
		switch string(k) {
		case "completion":
			family = FamilyClaudeText
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
	switch {
	case family == FamilyNova && n != 1:
		family = FamilyUnknown
	case n == 0 && bedrock:
		family = FamilyMetrics
	}
	return family
}

// novaEvent returns the one Converse member of a Nova chunk, its name and
// body, passing over Bedrock's members beside it.
func novaEvent(idx *jsonscan.Index, inner []byte) (key, body []byte) {
	idx.Members(inner, func(k, v []byte) bool {
		if bedrockMember(k) {
			return true
		}
		key, body = k, v
		return false
	})
	return key, body
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
