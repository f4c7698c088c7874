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
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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
	entries int           // entries in the document
	tried   int           // entries closed, written or not
	lost    []string      // the entries not written: "entry N (METHOD URL)"
	cuts    []string      // the entries cut (Hurry): "entry N (METHOD URL): what was kept"
	err     error         // a stream's sticky error, or the file's when it could not be cut back
	wrote   int64         // bytes of big entries written, in spent: the pace of the writes
	spent   time.Duration //

	hurry atomic.Pointer[harHurry] // set once by Hurry
}

// harHurry is the deadline Hurry set, and why.
type harHurry struct {
	by  time.Time
	why string
}

// Hurry makes every entry written from now on, the one being written
// included, end by the time by: a big entry (over harPieces) that would
// not is cut where it stands at a place between events (content.text
// ends there and the messages with it), and its comment says what it
// kept, "cut when WHY: …". A command stopped by a signal must end within
// 2 s; its entry in progress is its whole capture, so it is written as
// far as the time allows rather than left out. An entry is cut at most a
// megabyte (markEvery) before the place the time would allow. Hurry may
// be called from any goroutine; the first call counts.
func (h *HAR) Hurry(by time.Time, why string) {
	h.hurry.CompareAndSwap(nil, &harHurry{by: by, why: why})
}

// Cuts lists the entries Hurry cut, each "entry N (METHOD URL): what it
// kept".
func (h *HAR) Cuts() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.cuts)
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

// writeEntry writes e, and returns the error of an entry not written,
// which names it: "entry N (what)".
func (h *HAR) writeEntry(e *HAREntry, what string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.tried++
	n := h.tried
	if h.err != nil {
		return h.err
	}
	w := &harPut{h: h, first: h.entries == 0}
	if h.f != nil {
		w.start = h.f.Size()
	}
	cut, err := e.put(w)
	if err == nil {
		err = w.end()
	} else if h.f != nil {
		err = w.fail(err)
	}
	if err != nil {
		if h.f == nil {
			return h.err
		}
		what := fmt.Sprintf("entry %d (%s)", n, what)
		h.lost = append(h.lost, what)
		return fmt.Errorf("har: %s not written, the file holds the %d before it, whole: %w", what, h.entries, err)
	}
	if cut != "" {
		h.cuts = append(h.cuts, fmt.Sprintf("entry %d (%s): %s", n, what, cut))
	}
	h.entries++
	return nil
}

// harPut writes one entry's pieces: to a stream, after the separator;
// in place, appended after the document (see HAR), then linked in. It
// measures how fast the writes go, which says how much of an entry fits
// before a deadline (Hurry).
type harPut struct {
	h       *HAR
	first   bool  // the document's first entry
	start   int64 // in place: the file's size before the entry
	started bool
}

// write writes one piece of the entry.
func (w *harPut) write(p []byte) error {
	h := w.h
	if !w.started {
		w.started = true
		if h.f == nil {
			sep := harSep
			if w.first {
				sep = string(h.start()) + harFirst
			}
			h.write([]byte(sep))
		}
	}
	t0 := time.Now()
	var err error
	if h.f == nil {
		h.write(p)
		err = h.err
	} else {
		err = h.f.Append(p)
	}
	h.wrote += int64(len(p))
	h.spent += time.Since(t0)
	return err
}

// fits says whether writing n more bytes ends before the deadline Hurry
// set (and slack), at the pace the writes have gone (or, before a
// megabyte was written, at harPace); with no deadline anything fits.
func (w *harPut) fits(n int64, slack time.Duration) bool {
	hu := w.h.hurry.Load()
	if hu == nil {
		return true
	}
	pace := float64(harPace)
	if w.h.wrote >= 1<<20 && w.h.spent > 0 {
		pace = float64(w.h.wrote) / w.h.spent.Seconds()
	}
	return time.Now().Add(time.Duration(float64(n) / pace * float64(time.Second))).Before(hu.by.Add(slack))
}

// end finishes the entry: in place, the closing brackets after it and
// the old ones made a separator; a failure cuts the entry off again.
func (w *harPut) end() error {
	h := w.h
	if h.f == nil {
		return h.err
	}
	if err := h.f.Append([]byte(harTail)); err != nil {
		return w.fail(err)
	}
	sep := harSep
	if w.first {
		sep = harFirst
	}
	if err := h.f.patch([]byte(sep), w.start-int64(len(harTail))); err != nil {
		return w.fail(err)
	}
	return nil
}

// fail cuts the entry that failed with err off the file again (the
// pieces before the one that failed), and returns err.
func (w *harPut) fail(err error) error {
	if cerr := w.h.f.cut(w.start); cerr != nil {
		w.h.err = fmt.Errorf("har: %w (and cutting the entry off failed: %v)", err, cerr)
	}
	return err
}

// harPace is the pace, in bytes a second, an entry is assumed to be
// written at before a megabyte of it has been: slower than a page cache
// takes writes on a loaded machine (300 MB/s to 1 GB/s measured on 2
// busy cores).
const harPace = 128 << 20

// harGrace is how long past the deadline the messages of the events a
// cut entry keeps may take: written, they keep those events' times; cut
// short, the events lose their times (the messages no longer match them).
const harGrace = 200 * time.Millisecond

// harPieces is the size above which an entry is written in pieces, each
// ending where the entry can be cut (harMark), its text before its size
// (see HAREntry.put); a smaller one is one write, its members in the
// order encoding/json writes them.
const harPieces = 4 << 20

// HAREntry builds one entry of a HAR from a stream's bytes. It takes a
// `curl -i` head or a timed recording's header block into the exchange,
// and the rest into the body, which it encodes as it arrives (see
// har_encode.go). It implements Tap.
type HAREntry struct {
	h      *HAR
	x      Exchange
	fr     *Framer
	body   harBody
	msgs   spool // the items of _eventSourceMessages, encoded, separated by commas
	nmsgs  int
	marks  []harMark
	stop   *harMark      // where the body stopped (harBody.stopped), when in a frame
	last   time.Duration // the latest time a body byte arrived
	closed bool
}

// harMark is a place an entry can be cut: its body's first size bytes
// (text bytes of content.text) and its first n messages (msgs bytes),
// the events wholly in those bytes.
type harMark struct {
	size, text, msgs int64
	n                int
}

// markEvery is how much content.text grows between two harMarks: the
// most of a body a cut entry loses beyond what did not fit.
const markEvery = 1 << 20

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
	e.body.frozen = e.h.hurry.Load() != nil
	e.body.finish()
	if e.body.b64 {
		// A body that turned base64 part way: the marks made before it
		// held places in a text that is gone. In base64 a mark's text
		// ends at its last whole group of three bytes (put adds the rest).
		for i := range e.marks {
			e.marks[i].text = e.marks[i].size / 3 * 4
		}
	}
	end := e.here()
	if e.stop != nil {
		end = *e.stop
	}
	e.marks = append(slices.DeleteFunc(e.marks, func(m harMark) bool { return m.text > end.text }), end)
	what := e.x.Source // a stream read from a file or stdin
	if e.x.URL != "" || what == "" {
		x := e.x
		redactExchange(&x, e.h.opt.KeepSecrets)
		r := harRequestOf(&x)
		what = r.Method + " " + r.URL
	}
	return e.h.writeEntry(e, what)
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
	if f.Kind == FrameHead && e.body.size == 0 {
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
	if f.At != NoTime {
		e.last = max(e.last, f.At)
	}
	e.body.frozen = e.h.hurry.Load() != nil
	if e.body.stopped {
		e.body.add(raw) // counted, not kept
		return
	}
	before := e.here()
	for len(raw) > 0 {
		k := min(len(raw), markEvery)
		e.body.add(raw[:k])
		if raw = raw[k:]; len(raw) > 0 {
			e.mark() // inside a big frame: a cut there cuts its event
		}
	}
	if e.body.stopped {
		e.stop = &before // the text ends before this frame
		return
	}
	if f.Kind == FrameEvent && f.HasData && bodyFormat(e.fr) == FormatSSE {
		e.message(f)
	}
	e.mark() // after the frame and its message
}

// here is the mark of where the entry stands.
func (e *HAREntry) here() harMark {
	return harMark{size: e.body.encoded(), text: e.body.text.len(), msgs: e.msgs.len(), n: e.nmsgs}
}

// message adds the event f to the messages, as Chrome writes them:
// {time, eventName, eventId, data}, the time in wall-clock seconds, left
// out when the exchange's start is unknown.
func (e *HAREntry) message(f *Frame) {
	b := e.msgs.room(64 + len(f.Event) + len(f.ID) + 6*len(f.Data))
	before := len(*b)
	if e.nmsgs > 0 {
		*b = append(*b, ',')
	}
	*b = append(*b, '{')
	if f.At != NoTime && !e.x.Started.IsZero() {
		*b = append(*b, `"time":`...)
		*b = appendJSONFloat(*b, float64(e.x.Started.Add(f.At).UnixMicro())/1e6)
		*b = append(*b, ',')
	}
	name := []byte("message")
	if f.HasEvent && len(f.Event) > 0 {
		name = f.Event
	}
	*b = append(*b, `"eventName":`...)
	*b = appendJSONString(*b, name)
	*b = append(*b, `,"eventId":`...)
	if f.HasID {
		*b = appendJSONString(*b, f.ID)
	} else {
		*b = append(*b, `""`...)
	}
	*b = append(*b, `,"data":`...)
	*b = appendJSONString(*b, f.Data)
	*b = append(*b, '}')
	e.msgs.n += int64(len(*b) - before)
	e.nmsgs++
}

// mark adds a harMark where the entry stands, when the text grew by
// markEvery since the last one and no rune is left half encoded.
func (e *HAREntry) mark() {
	last := int64(0)
	if k := len(e.marks); k > 0 {
		last = e.marks[k-1].text
	}
	if e.body.text.len()-last < markEvery || (!e.body.b64 && e.body.npend > 0) || e.body.stopped {
		return
	}
	e.marks = append(e.marks, e.here())
}

// put writes the entry through w, and says what a cut left out ("" when
// it is whole). A small entry is one write, its members in encoding/json's
// order. A big one is written a piece at a time, its content.text before
// its size, so that past the deadline Hurry set it can end at any
// harMark: its text is cut there, its messages too (those of the events
// in the text kept), and its comment says what was left out.
func (e *HAREntry) put(w *harPut) (cut string, err error) {
	end := e.marks[len(e.marks)-1]
	if e.body.text.len()+e.msgs.len() <= harPieces {
		b := e.head(false)
		b = e.body.text.appendTo(b, 0, end.text)
		b = e.afterText(b, end.size, false)
		b = e.messages(b, end)
		cut = e.cut(end, end.n)
		return cut, w.write(e.ending(b, cut))
	}
	if err := w.write(e.head(true)); err != nil {
		return "", err
	}
	kept := harMark{}
	for _, m := range e.marks {
		if m.text == kept.text {
			kept = m
			continue
		}
		if !w.fits(m.text-kept.text+m.msgs+1<<10, 0) {
			break
		}
		if err := e.body.text.each(kept.text, m.text, w.write); err != nil {
			return "", err
		}
		kept = m
	}
	if kept != end && e.body.b64 && kept.size%3 != 0 {
		// The one or two bytes after the mark's last whole group, from
		// the group that holds them.
		group := e.body.text.appendTo(nil, kept.text, kept.text+4)
		raw, _ := base64.StdEncoding.DecodeString(string(group))
		if err := w.write(base64.StdEncoding.AppendEncode(nil, raw[:kept.size%3])); err != nil {
			return "", err
		}
	}
	if err := w.write(e.afterText(nil, kept.size, true)); err != nil {
		return "", err
	}
	sent := harMark{}
	if kept.n > 0 {
		if err := w.write([]byte(`,"_eventSourceMessages":[`)); err != nil {
			return "", err
		}
		for _, m := range e.marks {
			if m.n > kept.n || m.msgs == sent.msgs || !w.fits(m.msgs-sent.msgs+1<<10, harGrace) {
				continue
			}
			if err := e.msgs.each(sent.msgs, m.msgs, w.write); err != nil {
				return "", err
			}
			sent = m
		}
		if err := w.write([]byte{']'}); err != nil {
			return "", err
		}
	}
	cut = e.cut(kept, sent.n)
	return cut, w.write(e.ending(nil, cut))
}

// cut says what a cut entry kept (kept, and the messages of n events),
// or "" when it is whole.
func (e *HAREntry) cut(kept harMark, n int) string {
	hu := e.h.hurry.Load()
	if hu == nil || kept.size == e.body.size && n == e.nmsgs {
		return ""
	}
	return fmt.Sprintf("cut when %s: the body's first %d of %d bytes are kept, and the messages of %d of its %d events", hu.why, kept.size, e.body.size, n, e.nmsgs)
}

// head is the entry's JSON up to its content.text's first byte: its
// content's size first, as encoding/json writes it, or after the text
// (textFirst).
func (e *HAREntry) head(textFirst bool) []byte {
	x := e.x
	redactExchange(&x, e.h.opt.KeepSecrets)
	started := x.Started
	if started.IsZero() {
		started = e.h.opt.Now()
	}
	_, total := e.timings()
	b := marshalOpen(nil, struct {
		StartedDateTime string     `json:"startedDateTime"`
		Time            *float64   `json:"time"`
		Request         harRequest `json:"request"`
	}{started.UTC().Format(time.RFC3339Nano), total, harRequestOf(&x)})
	b = append(b, `,"response":`...)
	b = marshalOpen(b, struct {
		Status      int             `json:"status"`
		StatusText  string          `json:"statusText"`
		HTTPVersion string          `json:"httpVersion"`
		Cookies     json.RawMessage `json:"cookies"`
		Headers     []harHeader     `json:"headers"`
	}{x.Status, http.StatusText(x.Status), normalProto(x.Proto), json.RawMessage("[]"), harHeaderList(x.ResponseHeader)})
	b = append(b, `,"content":{`...)
	if !textFirst {
		b = append(b, `"size":`...)
		b = strconv.AppendInt(b, e.body.size, 10)
		b = append(b, ',')
	}
	b = append(b, `"mimeType":`...)
	b = appendJSONString(b, []byte(e.mimeType()))
	return append(b, `,"text":"`...)
}

// afterText is the entry's JSON from the end of content.text to the
// cache, size the body bytes the text holds.
func (e *HAREntry) afterText(b []byte, size int64, textFirst bool) []byte {
	b = append(b, '"')
	if textFirst {
		b = append(b, `,"size":`...)
		b = strconv.AppendInt(b, size, 10)
	}
	if e.body.b64 {
		b = append(b, `,"encoding":"base64"`...)
	}
	b = append(b, `},`...)
	x := e.x
	b = marshalRest(b, struct {
		RedirectURL string `json:"redirectURL"`
		HeadersSize int    `json:"headersSize"`
		BodySize    int64  `json:"bodySize"`
		Error       string `json:"_error,omitempty"`
	}{"", -1, size, x.Error})
	b = append(b, `,"timings":`...)
	timings, _ := e.timings()
	b = marshalOpen(b, timings)
	return append(b, `},"cache":{}`...)
}

// messages is the entry's _eventSourceMessages, up to mark m, if any.
func (e *HAREntry) messages(b []byte, m harMark) []byte {
	if m.n == 0 {
		return b
	}
	b = append(b, `,"_eventSourceMessages":[`...)
	b = e.msgs.appendTo(b, 0, m.msgs)
	return append(b, ']')
}

// ending is the entry's last members: its comment (why its start is
// unknown, what a cut left out), and its closing brace.
func (e *HAREntry) ending(b []byte, cut string) []byte {
	var notes []string
	if e.x.Started.IsZero() {
		notes = append(notes, "the stream was read without its start time: startedDateTime is when it was exported")
	}
	if cut != "" {
		notes = append(notes, cut)
	}
	if len(notes) > 0 {
		b = append(b, `,"comment":`...)
		b = appendJSONString(b, []byte(strings.Join(notes, "; ")))
	}
	return append(b, "}\n"...)
}

// marshalOpen appends v's JSON object (as encoding/json writes it,
// without HTML escaping) without its closing brace.
func marshalOpen(b []byte, v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("capture: a HAR entry's own part does not encode: " + err.Error())
	}
	out := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	return append(b, out[:len(out)-1]...)
}

// marshalRest appends v's JSON object's members and its closing brace,
// without its opening one.
func marshalRest(b []byte, v any) []byte {
	open := marshalOpen(nil, v)
	return append(append(b, open[1:]...), '}')
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

// mimeType is the response's Content-Type, or the body's format's.
func (e *HAREntry) mimeType() string { return harMimeType(&e.x, e.fr) }

// harMimeType is the response's Content-Type in x, or that of the format
// fr frames the body as.
func harMimeType(x *Exchange, fr *Framer) string {
	if ct := x.ResponseHeader.Get("Content-Type"); ct != "" {
		return ct
	}
	switch bodyFormat(fr) {
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
