package capture

// This file reads vercel/ai's .chunks.txt test fixtures: the chunks of a
// provider's stream, one JSON object a line, without SSE framing. The
// upstream test harness sends each line as `data: <line>` and appends
// `data: [DONE]`
// (https://github.com/vercel/ai, prepareChunksFixtureResponse in the
// providers' tests). Each line is one event, read as FormatJSONL reads it:
// the dialect is told by the chunk's own shape, not by an SSE event name,
// which the file does not have, and `event` stays empty. What JSON lines
// lack is the end: a Chat Completions stream ends with [DONE], so a chunks
// file read as plain JSON lines ends "truncated". The chunks framer adds
// that [DONE] as an Implied frame, where the dialect's wire has one: after
// a last chunk without a top-level "type" member (Chat; Gemini, which
// ignores it). Responses and Anthropic chunks carry their type and end
// with their own terminal event; a [DONE] after them would be a finding
// about the harness, not about the provider.

import (
	"bytes"
	"encoding/json"
	"time"
)

// doneSentinel is the data of the event a Chat stream ends with.
var doneSentinel = []byte("[DONE]")

// chunksFramer frames a .chunks.txt file: JSON lines, then the implied
// [DONE].
type chunksFramer struct {
	lines *lineFramer
	last  []byte // a copy of the last event's data
	any   bool
	end   int64 // offset just past the last byte framed
	frame Frame
}

func newChunksFramer(base int64) *chunksFramer {
	lines := newLineFramer(base)
	lines.faults = 0 // a fixture file's last newline and blank lines are no stream's
	return &chunksFramer{lines: lines, end: base}
}

func (f *chunksFramer) wrap(emit func(*Frame)) func(*Frame) {
	return func(fr *Frame) {
		if fr.Kind == FrameEvent {
			f.last = append(f.last[:0], fr.Data...)
			f.any = true
		}
		f.end = max(f.end, fr.End)
		emit(fr)
	}
}

func (f *chunksFramer) feed(p []byte, at time.Duration, emit func(*Frame)) {
	f.lines.feed(p, at, f.wrap(emit))
}

func (f *chunksFramer) finish(at time.Duration, emit func(*Frame)) {
	f.lines.finish(at, f.wrap(emit))
	if !f.any || bytes.Equal(bytes.TrimSpace(f.last), doneSentinel) || hasTypeMember(f.last) {
		return
	}
	f.frame = Frame{Kind: FrameEvent, Start: f.end, End: f.end, At: at, Retry: -1,
		Data: doneSentinel, HasData: true, DataLines: 1, Flags: Implied}
	emit(&f.frame)
}

// hasTypeMember reports whether data is a JSON object with a top-level
// "type" member.
func hasTypeMember(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		if tok == "type" {
			return true
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return false
		}
	}
	return false
}
