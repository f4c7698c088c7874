package model

import (
	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// Wrapper is the optional hook of a Protocol whose events carry another
// document, encoded (Bedrock's InvokeModel chunks: {"bytes": base64 of the
// model's own streaming event}). Decoding and validating what is inside is
// most of what such an event costs, so the core does it once: on the
// reader's goroutine when a Batch carries the event, else while adding it;
// the dialect's assembly takes the result from Session.Unwrapped, and
// decodes the event itself (then calls Session.Focus) only when the core
// could not.
type Wrapper interface {
	// Wraps reports whether frame f is such an event, by its framing and
	// name alone: it runs for every frame, on the reader's goroutine.
	Wraps(f *capture.Frame) bool
	// UnwrapShaped decodes the inner document of data, appended to dst,
	// when data has the wrapper's usual shape, in which a successful
	// decoding also proves data valid JSON (so the core need not scan
	// it); ok is false for any other shape or a failure, which the
	// validator then judges.
	UnwrapShaped(dst, data []byte) (out []byte, ok bool)
	// Unwrap decodes the inner document of data, a valid JSON object
	// indexed by idx, appended to dst (scratch is room the decoding may
	// reuse, returned grown); err says why it could not, and then the
	// assembly says why, as it decodes the event itself.
	Unwrap(idx *jsonscan.Index, data, dst, scratch []byte) (out, scratchOut []byte, err error)
}

// wrapperOf returns the Wrapper that claims frame f, or nil.
func wrapperOf(f *capture.Frame) Wrapper {
	for _, w := range wrappers {
		if w.Wraps(f) {
			return w
		}
	}
	return nil
}

// prefocus is an inner document decoded and scanned ahead of the session,
// in a Batch's Indexes.
type prefocus struct {
	data []byte
	sc   jsonscan.Scanned
	in   *jsonscan.Indexes
}

// wrapped is an inner document decoded and scanned ahead of the session:
// its place in the Batch's inner arena and its scan.
type wrapped struct {
	at, n int
	sc    jsonscan.Scanned
	ok    bool
}

// prescanWrapped decodes the inner document of a wrapped event whose data
// (its outer JSON, scanned as sc) the Batch holds, and validates and
// indexes it, on the reader's goroutine. What cannot be decoded is left
// to the session's dialect, which says why.
func (b *Batch) prescanWrapped(w Wrapper, data []byte, sc jsonscan.Scanned) wrapped {
	if !sc.IsObject || sc.Err != nil {
		return wrapped{}
	}
	var x jsonscan.Index
	b.idx.Load(&x, data, sc)
	at := len(b.inner)
	arena, scratch, err := w.Unwrap(&x, data, b.inner, b.b64[:0])
	b.inner, b.b64 = arena, scratch
	if err != nil {
		b.inner = b.inner[:at]
		return wrapped{}
	}
	return b.scanInner(at)
}

// unwrapShaped is prescanWrapped for a payload in the wrapper's usual
// shape: decoding it is also its validation.
func (b *Batch) unwrapShaped(w Wrapper, data []byte) wrapped {
	at := len(b.inner)
	inner, ok := w.UnwrapShaped(b.inner, data)
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
	return wrapped{at: at, n: len(b.inner) - at, sc: b.idx.Scan(b.inner[at:], &memberNames), ok: true}
}

// unwrapShaped validates the payload of f, when a Wrapper claims f and f
// is in its usual shape, by decoding it into the session's buffer, and
// returns the decoded bytes; ok is false for any other frame, shape or
// failure, which the validator judges.
func (s *Session) unwrapShaped(f *capture.Frame) (inner []byte, ok bool) {
	if len(wrappers) == 0 {
		return nil, false
	}
	w := wrapperOf(f)
	if w == nil {
		return nil, false
	}
	if inner, ok = w.UnwrapShaped(s.inner[:0], f.Data); !ok {
		return nil, false
	}
	s.inner = inner
	return inner, true
}

// Unwrapped returns the inner document of the wrapped event being added
// (see Wrapper) when the core decoded it already, having made it the
// event read from here on (see Focus); isObj and err say what validating
// it found. ok is false when the core did not decode it: then the
// assembly decodes the event itself and calls Focus.
func (s *Session) Unwrapped() (inner []byte, isObj bool, err error, ok bool) {
	if pre := s.chunk; pre.in != nil {
		// Decoded and scanned by the reader's goroutine (Batch.ValidateLast).
		s.focusLoaded(pre)
		return pre.data, pre.sc.IsObject, pre.sc.Err, true
	}
	if s.unwrapped != nil {
		inner = s.unwrapped // decoded already, to validate the payload (unwrapShaped)
		isObj, err = s.Focus(inner)
		return inner, isObj, err, true
	}
	return nil, false, nil, false
}

// focusLoaded is Focus for an inner document a Batch scanned already.
func (s *Session) focusLoaded(pre prefocus) {
	s.idx = &s.batchIdx
	pre.in.Load(s.idx, pre.data, pre.sc)
	s.top.reset()
	s.cur = nil
	if pre.sc.IsObject && pre.sc.Err == nil {
		s.loadMembers(pre.data)
		s.cur = pre.data
	}
}

// Focus makes inner, a JSON document the event being added wraps, the
// event the dialects and the observers read from here on (Member, Field,
// JSON): it validates and indexes inner and records its members. It
// reports what validation found.
func (s *Session) Focus(inner []byte) (isObj bool, err error) {
	if s.idx != &s.scanIdx {
		s.idx.Reset()
		s.idx = &s.scanIdx
	}
	s.top.reset()
	s.cur = nil
	isObj, err = s.idx.Scan(inner, &memberNames)
	if err == nil && isObj {
		s.loadMembers(inner)
		s.cur = inner
	}
	return isObj, err
}

// FocusValue makes v, an object within the focused document, the event
// read from here on: Nova's {"contentBlockDelta": {…}} is read as the
// Converse event it wraps.
func (s *Session) FocusValue(v []byte) {
	s.top.reset()
	if jsonscan.Kind(v) == '{' {
		s.idx.Members(v, s.top.member)
		s.cur = v
	}
}
