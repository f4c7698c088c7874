package capture

// This file writes HTTP Archives (HAR 1.2) from what a Source reads: each
// stream is one entry whose content.text is the body exactly as received
// and, for an event stream, _eventSourceMessages lists its events as
// Chrome does ({time, eventName, eventId, data}, time in wall-clock
// seconds), so both a browser's HAR viewer and streamtap read them back.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// HAROptions tune a HAR writer.
type HAROptions struct {
	// KeepSecrets writes credentials unredacted.
	KeepSecrets bool
	// Version is the creator's version written in the log.
	Version string
	// Now is the time written as the start of an entry whose start is
	// unknown (a file read without timing); time.Now when nil.
	Now func() time.Time
}

// HAR writes an HTTP Archive to w, one entry at a time: an entry is
// written when it closes, so only the entries being read are held in
// memory (their bodies and messages). A HAR is safe for concurrent use
// (the proxy closes its sessions' entries from their own goroutines):
// each entry is written whole, one after the other.
//
// Written to an Output on a regular file, the file holds a whole HAR from
// the start and after every entry, and an entry that cannot be written
// (a full disk, ulimit -f) leaves it as it was: NewHAR writes an empty
// HAR, and each entry goes in two steps. First the entry and the closing
// brackets again are appended after the document, an append that is cut
// back if it fails (Output.Append); then the four bytes of the old
// closing brackets are overwritten with a comma (a space for the first
// entry) and white space, which makes the appended entry part of the
// document:
//
//	{"log":{…,"entries":[           {"log":{…,"entries":[
//	    {entry 1}                        {entry 1}
//	]}}                        →    ,   {entry 2}
//	{entry 2}                       ]}}
//	]}}
//
// A process killed inside the first step (SIGKILL, or a second signal
// during the 2 s write of a 300 MB entry) leaves the complete HAR before
// the entry, followed by part of the entry: streamtap reads the HAR and
// says the entry was cut (readHAR); a reader that stops after the first
// JSON value reads it too. Killed between the steps, the entry is whole
// after the document, and streamtap reads it back as well. An entry that
// fails is reported by its Close (which entry, and what the file holds);
// the entries after it are still tried (the disk may have room again).
//
// Any other writer (a pipe, a buffer) gets the same document once: each
// entry as it closes, the closing brackets at Close.
type HAR struct {
	w   io.Writer
	f   appendFile // w, written in place; nil for a stream
	opt HAROptions

	mu      sync.Mutex
	entries int      // entries in the document
	tried   int      // entries closed, written or not
	lost    []string // the entries not written: "entry N (METHOD URL)"
	err     error    // a stream's sticky error, or the file's when it could not be cut back
}

// harTail ends the document: the entries' array, the log, the whole. In
// a file it is overwritten, in place, by harSep or harFirst.
const (
	harTail  = "]}}\n"
	harFirst = "    "
	harSep   = ",   "
)

// NewHAR returns a HAR writing to w (see HAR for an Output's in place).
func NewHAR(w io.Writer, opt HAROptions) *HAR {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	h := &HAR{w: w, f: inPlace(w), opt: opt}
	if h.f != nil {
		if err := h.f.Append(append(h.start(), harTail...)); err != nil {
			h.err = fmt.Errorf("har: %w", err)
		}
	}
	return h
}

// Entry starts an entry for the exchange x (nil when nothing is known of
// it but the stream): hand it to Source.Record, which gives it the bytes
// read and closes it, writing it.
func (h *HAR) Entry(x *Exchange) *HAREntry {
	he := &HAREntry{h: h, x: Exchange{HeadAt: NoTime}, fr: NewFramer(FormatAuto), last: NoTime}
	if x != nil {
		he.x = *x
	}
	return he
}

// Close ends the document. It does not close w. Its error says which
// entries were not written, if any.
func (h *HAR) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.err == nil && h.f == nil {
		if h.entries == 0 {
			h.write(h.start())
		}
		h.write([]byte(harTail))
	}
	switch {
	case h.err != nil:
		return h.err
	case len(h.lost) > 0:
		return fmt.Errorf("har: %d of %d entries not written (%s); the file holds the other %d, whole",
			len(h.lost), h.tried, strings.Join(h.lost, ", "), h.entries)
	}
	return nil
}

// Err is the error that stopped the document, if any: a stream's first
// error. (An entry written in place that failed is its Close's error.)
func (h *HAR) Err() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err
}

// write writes p to a stream.
func (h *HAR) write(p []byte) {
	if h.err == nil {
		if _, err := h.w.Write(p); err != nil {
			h.err = fmt.Errorf("har: %w", err)
		}
	}
}

// start is the document up to its first entry.
func (h *HAR) start() []byte {
	creator, _ := json.Marshal(map[string]string{"name": "streamtap", "version": h.opt.Version})
	return []byte(`{"log":{"version":"1.2","creator":` + string(creator) + `,"entries":[` + "\n")
}

// writeEntry writes he, and returns the error of an entry not written,
// which names it: "entry N (what)".
func (h *HAR) writeEntry(he *harEntry, what string) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	encErr := enc.Encode(he) // ends with a newline
	h.mu.Lock()
	defer h.mu.Unlock()
	h.tried++
	n := h.tried
	if h.err != nil {
		return h.err
	}
	err := encErr
	switch {
	case err != nil:
	case h.f == nil:
		sep := harSep
		if h.entries == 0 {
			sep = string(h.start()) + harFirst
		}
		h.write(append([]byte(sep), b.Bytes()...))
		if h.err != nil {
			return h.err
		}
	default:
		err = h.appendEntry(b.Bytes())
	}
	if err != nil {
		what := fmt.Sprintf("entry %d (%s)", n, what)
		h.lost = append(h.lost, what)
		return fmt.Errorf("har: %s not written, the file holds the %d before it, whole: %w", what, h.entries, err)
	}
	h.entries++
	return nil
}

// appendEntry writes one entry into the file in place, in the two steps
// HAR tells. h.mu is held.
func (h *HAR) appendEntry(entry []byte) error {
	tail := h.f.Size() - int64(len(harTail))
	if err := h.f.Append(append(entry, harTail...)); err != nil {
		return err
	}
	sep := harSep
	if h.entries == 0 {
		sep = harFirst
	}
	if err := h.f.patch([]byte(sep), tail); err != nil {
		if cerr := h.f.cut(tail + int64(len(harTail))); cerr != nil {
			h.err = fmt.Errorf("har: %w (and cutting the entry off failed: %v)", err, cerr)
		}
		return err
	}
	return nil
}

// HAREntry builds one entry of a HAR from a stream's bytes. It takes a
// `curl -i` head or a timed recording's header block into the exchange,
// and the rest into the body. It implements Tap.
type HAREntry struct {
	h      *HAR
	x      Exchange
	fr     *Framer
	body   []byte
	msgs   []harMessage
	last   time.Duration // the latest time a body byte arrived
	closed bool
}

// Write adds bytes read at time at.
func (e *HAREntry) Write(p []byte, at time.Duration) error {
	e.fr.Feed(p, at, e.frame)
	return e.h.Err()
}

// Close ends the entry, the body's last bytes read at time at, and writes
// it.
func (e *HAREntry) Close(at time.Duration) error {
	if e.closed {
		return e.h.Err()
	}
	e.closed = true
	e.fr.Finish(at, e.frame)
	if at != NoTime {
		e.last = max(e.last, at)
	}
	he := e.entry()    // its request is redacted
	what := e.x.Source // a stream read from a file or stdin
	if e.x.URL != "" || what == "" {
		what = he.Request.Method + " " + he.Request.URL
	}
	return e.h.writeEntry(he, what)
}

// frame takes one frame: the head or a recording's header block into the
// exchange, anything else into the body and, for SSE events, the
// messages.
func (e *HAREntry) frame(f *Frame) {
	if (f.Kind == FrameHead || f.Kind == FrameComment) && f.Start == 0 && bytes.HasPrefix(f.Raw, []byte(RecordingMagic)) {
		if x, _, err := parseHeader(f.Raw); err == nil {
			e.x = *x
		}
		return
	}
	if f.Kind == FrameHead && len(e.body) == 0 {
		e.x.takeHead(f)
		return
	}
	if f.Flags&Implied != 0 {
		return
	}
	raw := f.Raw
	if e.fr.Format() == FormatRecording {
		if format := bodyFormat(e.fr); timesBody(format) {
			if own, _, _, ok := bodyTiming(format, f); ok {
				raw = raw[:own]
			}
		} else if s, end, _, _, ok := timingLine(raw); ok {
			raw = append(raw[:s:s], raw[end:]...)
		}
	}
	e.body = append(e.body, raw...)
	if f.At != NoTime {
		e.last = max(e.last, f.At)
	}
	if f.Kind == FrameEvent && f.HasData && bodyFormat(e.fr) == FormatSSE {
		m := harMessage{EventName: "message", Data: string(f.Data)}
		if f.HasEvent && len(f.Event) > 0 {
			m.EventName = string(f.Event)
		}
		if f.HasID {
			m.EventID = string(f.ID)
		}
		if f.At != NoTime {
			t := float64(e.x.Started.Add(f.At).UnixMicro()) / 1e6
			m.Time = &t
		}
		e.msgs = append(e.msgs, m)
	}
}

// bodyFormat is the format the body is framed as, under a `curl -i` head
// or a recording's header block.
func bodyFormat(fr *Framer) Format {
	switch in := fr.inner.(type) {
	case *httpFramer:
		if in.body != nil {
			return in.body.Format()
		}
	case *recordingFramer:
		if in.body != nil {
			return in.body.Format()
		}
	}
	return fr.Format()
}

// entry is the HAR entry of what was read.
func (e *HAREntry) entry() *harEntry {
	x := e.x
	redactExchange(&x, e.h.opt.KeepSecrets)
	he := &harEntry{Cache: json.RawMessage("{}")}
	started := x.Started
	if started.IsZero() {
		started = e.h.opt.Now()
		he.Comment = "the stream was read without its start time: startedDateTime is when it was exported"
		for i := range e.msgs {
			e.msgs[i].Time = nil // they were relative to an unknown start
		}
	}
	he.StartedDateTime = started.UTC().Format(time.RFC3339Nano)
	he.Request = harRequestOf(&x)
	he.Response = harResponse{
		Status: x.Status, StatusText: http.StatusText(x.Status), HTTPVersion: normalProto(x.Proto),
		Cookies: json.RawMessage("[]"), Headers: harHeaderList(x.ResponseHeader),
		HeadersSize: -1, BodySize: len(e.body),
		Content: harContent{Size: len(e.body), MimeType: e.mimeType(), Text: string(e.body)},
		Error:   x.Error,
	}
	if !utf8.Valid(e.body) {
		he.Response.Content.Text, he.Response.Content.Encoding = base64.StdEncoding.EncodeToString(e.body), "base64"
	}
	if len(e.msgs) > 0 {
		he.Messages = e.msgs
	}
	he.Timings, he.Time = e.timings()
	return he
}

// mimeType is the response's Content-Type, or the body's format's.
func (e *HAREntry) mimeType() string {
	if ct := e.x.ResponseHeader.Get("Content-Type"); ct != "" {
		return ct
	}
	switch bodyFormat(e.fr) {
	case FormatSSE:
		return "text/event-stream"
	case FormatJSON:
		return "application/json"
	case FormatJSONL, FormatChunks:
		return "application/x-ndjson"
	case FormatDataStream:
		return "text/plain; charset=utf-8"
	}
	return "application/octet-stream"
}

// timings splits the time known into HAR's phases: waiting for the head,
// then receiving the body.
func (e *HAREntry) timings() (harTimings, *float64) {
	ms := func(d time.Duration) *float64 {
		v := float64(d.Microseconds()) / 1000
		return &v
	}
	zero := 0.0
	t := harTimings{Send: &zero, Wait: &zero, Receive: &zero}
	wait := time.Duration(0)
	if e.x.HeadAt != NoTime && e.x.HeadAt > 0 {
		wait = e.x.HeadAt
		t.Wait = ms(wait)
	}
	if e.last != NoTime && e.last > wait {
		t.Receive = ms(e.last - wait)
	}
	total := *t.Wait + *t.Receive
	return t, &total
}

func harRequestOf(x *Exchange) harRequest {
	r := harRequest{
		Method: x.Method, URL: x.URL, HTTPVersion: "HTTP/1.1",
		Cookies: json.RawMessage("[]"), Headers: harHeaderList(x.RequestHeader),
		QueryString: json.RawMessage("[]"), HeadersSize: -1, BodySize: len(x.RequestBody),
	}
	if x.RequestBodySize != 0 {
		r.BodySize = int(x.RequestBodySize) // postData holds only the body's start
	}
	if r.Method == "" {
		r.Method = "GET"
	}
	if r.URL == "" {
		r.URL = "about:blank"
	}
	if u, err := url.Parse(r.URL); err == nil && u.RawQuery != "" {
		var qs []harHeader
		for _, k := range slices.Sorted(maps.Keys(u.Query())) {
			for _, v := range u.Query()[k] {
				qs = append(qs, harHeader{Name: k, Value: v})
			}
		}
		r.QueryString, _ = json.Marshal(qs)
	}
	if len(x.RequestBody) > 0 {
		mime := x.RequestHeader.Get("Content-Type")
		if mime == "" {
			mime = "application/json"
		}
		r.PostData = &harPostData{MimeType: mime, Text: string(x.RequestBody)}
		if !utf8.Valid(x.RequestBody) {
			r.PostData.Text, r.PostData.Encoding = base64.StdEncoding.EncodeToString(x.RequestBody), "base64"
		}
	}
	return r
}

// harHeaderList lists headers sorted by name, each value on its own.
func harHeaderList(h http.Header) []harHeader {
	out := []harHeader{}
	for _, k := range slices.Sorted(maps.Keys(h)) {
		for _, v := range h[k] {
			out = append(out, harHeader{Name: k, Value: strings.TrimSpace(v)})
		}
	}
	return out
}
