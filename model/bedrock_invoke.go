package model

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"

	"github.com/streamtap/streamtap/capture"
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
type invokeDialect struct{ noHooks }

func (*invokeDialect) info() DialectInfo {
	return DialectInfo{Name: "bedrock-invoke", Short: "invoke"}
}

// claimShape takes a chunk of an event stream, and an exception in a
// stream of chunks; outside an event stream, the whole body of a text
// model (see wholeInvoke).
func (*invokeDialect) claimShape(s *Session, typ string) bool {
	if s.last.Frame&capture.EventStream == 0 {
		return wholeInvoke(s) != ""
	}
	return typ == TypeInvokeChunk || s.last.Frame&capture.Exception != 0 && s.lastDial == DialectBedrockInvoke
}

func (*invokeDialect) newState() dialectState { return new(invokeState) }

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
	noHooks
	anth anthState     // Anthropic inside: the Anthropic assembly itself
	nova converseState // Nova inside: the Converse assembly
	// The text families' response and its text.
	resp *Response
	text *Item
	// The chunk being added: its decoded bytes (reused), and what it
	// wrapped, for the checks.
	inner []byte
	b64   []byte // an escaped bytes string, unquoted
	chunk Chunk
}

func (st *invokeState) event(s *Session, ev *Event, typ string, data []byte, ord int) {
	st.chunk = Chunk{}
	if ev.Frame&capture.Exception != 0 {
		s.exceptionEvent(ev, typ, ord)
		for _, r := range []*Response{st.anth.resp, st.nova.resp, st.resp} {
			if r != nil && r.Terminal < 0 {
				r.Status.Set(ord, OutcomeError)
			}
		}
		return
	}
	if ev.Frame&capture.EventStream == 0 {
		st.whole(s, ev, ord) // the only event claimed outside an event stream
		return
	}
	if typ != TypeInvokeChunk {
		ev.Kind, ev.Flags = KindUnknown, ev.Flags|NonStandard
		return
	}
	var err error
	var inner []byte
	var isObj bool
	if pre := s.chunk; pre.in != nil {
		// Decoded and scanned by the reader's goroutine (Batch.ValidateLast).
		inner, isObj, err = pre.data, pre.sc.IsObject, pre.sc.Err
		s.focusLoaded(pre)
	} else if s.unwrapped != nil {
		inner = s.unwrapped // decoded already, to validate the payload (unwrapChunk)
		isObj, err = s.focus(inner)
	} else {
		v := s.top.bytes
		if jsonscan.Kind(v) != '"' {
			st.chunk.Problem = "no bytes member holding a base64 string"
			return
		}
		inner, st.inner, st.b64, err = decodeChunk(v, st.inner[:0], st.b64[:0])
		if err != nil {
			st.chunk.Problem = "bytes is not base64: " + err.Error()
			return
		}
		isObj, err = s.focus(inner)
	}
	if err != nil || !isObj {
		st.chunk.Problem = "the decoded bytes are not a JSON object"
		return
	}
	st.chunk.Family = chunkFamily(s.idx, s.top.typ, inner)
	switch st.chunk.Family {
	case FamilyAnthropic:
		s.scratch = jsonscan.Unquote(s.scratch[:0], s.top.typ)
		ev.Type = s.types.id(s.scratch)
		innerTyp := s.types.names[ev.Type]
		if !anthropicType(innerTyp) && innerTyp != "error" {
			ev.Kind, ev.Flags = KindUnknown, ev.Flags|NonStandard
			return
		}
		st.anth.event(s, ev, innerTyp, inner, ord)
	case FamilyNova:
		var key, body []byte
		s.idx.Members(inner, func(k, v []byte) bool {
			key, body = k, v
			return false
		})
		ev.Type = s.types.id(key)
		s.focusValue(body)
		st.nova.event(s, ev, string(key), body, ord)
	case FamilyUnknown:
		ev.Kind = KindUnknown
		var names []byte
		n := 0
		s.idx.Members(inner, func(k, _ []byte) bool {
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
func (st *invokeState) textChunk(s *Session, ev *Event, inner []byte, ord int, whole bool) {
	if st.resp == nil || st.resp.Terminal >= 0 {
		st.resp = s.NewResponse(DialectBedrockInvoke, ord)
		st.resp.Status.Set(ord, "in_progress")
		st.text = nil
	}
	r := st.resp
	ev.Kind = KindLifecycle
	var text, stop []byte
	blocked, last := false, whole
	s.idx.Members(inner, func(k, v []byte) bool {
		switch string(k) {
		case "outputText", "generation", "text", "completion":
			text = v
		case "completionReason", "stop_reason", "finish_reason":
			stop = v
		case "outputs", "generations", "choices", "results", "completions":
			first := firstElement(s, v)
			for _, p := range [][]string{{"text"}, {"outputText"}, {"delta", "content"}, {"message", "content"}, {"data", "text"}} {
				if t := s.idx.Path(first, p...); jsonscan.Kind(t) == '"' {
					text = t
					break
				}
			}
			for _, key := range []string{"stop_reason", "finish_reason", "completionReason"} {
				if v := s.idx.Get(first, key); !jsonscan.IsNull(v) {
					stop = v
				}
			}
			if v := s.idx.Path(first, "finishReason", "reason"); jsonscan.Kind(v) == '"' {
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
			st.text = s.NewItem(DialectBedrockInvoke, RoleMessage, "text", ord)
			st.text.Response, st.text.Position, st.text.Opened = r.Index, 0, ord
			st.text.Status.Set(ord, "in_progress")
		}
		ev.Kind = KindTextDelta
		st.text.Text.AddString(ord, text)
		st.text.Touch(ord)
		ev.Item = int32(st.text.Index)
	}
	reason := ""
	if !jsonscan.IsNull(stop) {
		reason = StringOf(stop)
	}
	if blocked {
		reason = "guardrail_intervened"
	}
	if reason == "" && !last {
		return
	}
	ev.Kind = KindTerminal
	if reason != "" {
		r.AddFinish(0, ord, reason)
	}
	r.Terminal, r.Final = ord, ord
	status := stopStatus(reason)
	if blocked {
		status = OutcomeBlocked
	}
	r.Status.Set(ord, status)
	if st.text != nil {
		st.text.Close(ord)
		st.text.Status.Set(ord, "completed")
	}
}

// firstElement is the first element of an array, or nil.
func firstElement(s *Session, arr []byte) []byte {
	var first []byte
	s.idx.Elements(arr, func(_ int, v []byte) bool {
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

// prefocus is an inner document decoded and scanned ahead of the session,
// in a Batch's Indexes.
type prefocus struct {
	data []byte
	sc   jsonscan.Scanned
	in   *jsonscan.Indexes
}

// prescanChunk decodes the bytes of an InvokeModel chunk whose data (its
// outer JSON, scanned as sc) the Batch holds, and validates and indexes
// the inner document, on the reader's goroutine: decoding and scanning are
// most of what such a chunk costs, and a Batch is filled while the session
// adds the one before (see Batch). What cannot be decoded is left to the
// session, which says why.
func (b *Batch) prescanChunk(data []byte, sc jsonscan.Scanned) wrapped {
	if !sc.IsObject || sc.Err != nil {
		return wrapped{}
	}
	var x jsonscan.Index
	b.idx.Load(&x, data, sc)
	return b.unwrap(x.Get(data, "bytes"))
}

// unwrap decodes v, a chunk's bytes member (quoted), into the Batch's
// inner arena and validates and indexes what it wraps.
func (b *Batch) unwrap(v []byte) wrapped {
	if jsonscan.Kind(v) != '"' {
		return wrapped{}
	}
	at := len(b.inner)
	_, arena, b64, err := decodeChunk(v, b.inner, b.b64[:0])
	b.inner, b.b64 = arena, b64
	if err != nil {
		b.inner = b.inner[:at]
		return wrapped{}
	}
	return b.scanInner(at)
}

// unwrapShaped is unwrap for the base64 of a payload in the usual shape
// (chunkShape): decoding it is also the payload's validation, so it takes
// no escape and no line break.
func (b *Batch) unwrapShaped(b64 []byte) wrapped {
	at := len(b.inner)
	inner, ok := decodeBase64(b.inner, b64)
	if !ok {
		b.inner = b.inner[:at]
		return wrapped{}
	}
	b.inner = inner
	return b.scanInner(at)
}

// scanInner validates and indexes the inner document decoded at
// b.inner[at:].
func (b *Batch) scanInner(at int) wrapped {
	return wrapped{at: at, n: len(b.inner) - at, sc: b.idx.ScanObject(b.inner[at:]), ok: true}
}

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

// unwrapChunk validates the payload of f, when f is an InvokeModel chunk
// in the usual shape, by decoding its base64 (see chunkShape) into the
// chunk dialect's buffer, and returns the decoded bytes; ok is false for
// any other frame, shape or failure, which the validator judges.
func (s *Session) unwrapChunk(f *capture.Frame) (inner []byte, ok bool) {
	if f.Flags&capture.EventStream == 0 || string(f.Event) != TypeInvokeChunk {
		return nil, false
	}
	b64, ok := chunkShape(f.Data)
	if !ok {
		return nil, false
	}
	st, _ := s.state(DialectBedrockInvoke).(*invokeState)
	if st == nil {
		return nil, false
	}
	if inner, ok = decodeBase64(st.inner[:0], b64); !ok {
		return nil, false
	}
	st.inner = inner
	return inner, true
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

// focusLoaded is focus for an inner document a Batch scanned already.
func (s *Session) focusLoaded(pre prefocus) {
	s.idx = &s.batchIdx
	pre.in.Load(s.idx, pre.data, pre.sc)
	s.top, s.cur = top{}, nil
	if pre.sc.IsObject && pre.sc.Err == nil {
		s.idx.Members(pre.data, s.top.member)
		s.cur = pre.data
	}
}

// focus makes inner, a JSON document the event being added wraps, the
// event the dialects and the observers read from here on (Session.Field,
// Session.JSON): it validates and indexes inner and collects its top
// members. It reports what validation found.
func (s *Session) focus(inner []byte) (isObj bool, err error) {
	if s.idx != &s.scanIdx {
		s.idx.Reset()
		s.idx = &s.scanIdx
	}
	s.top, s.cur = top{}, nil
	isObj, err = s.idx.ScanObject(inner, s.top.collect)
	if err == nil && isObj {
		s.cur = inner
	}
	return isObj, err
}

// focusValue makes v, an object within the focused document, the event
// read from here on: Nova's {"contentBlockDelta": {…}} is read as the
// Converse event it wraps.
func (s *Session) focusValue(v []byte) {
	s.top = top{}
	if jsonscan.Kind(v) == '{' {
		s.idx.Members(v, s.top.member)
		s.cur = v
	}
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
func ChunkOf(s *Session) Chunk {
	st, ok := s.states[DialectBedrockInvoke].(*invokeState)
	if !ok || s.last.Dialect != DialectBedrockInvoke {
		return Chunk{}
	}
	return st.chunk
}
