package capture

// This file reads HTTP Archives (HAR 1.2,
// http://www.softwareishard.com/blog/har-12-spec/) as browsers and proxies
// export them. An entry is kept when its response is a stream
// (text/event-stream, or Chrome's _eventSourceMessages) or JSON, which may
// be a whole LLM response; package model tells which JSON is. Everything
// else a page loads (documents, scripts, images) is skipped.
//
// Chrome keeps the messages of an event stream in the entry's
// _eventSourceMessages, each {time, eventName, eventId, data}
// (front_end/models/har/Log.ts and ServerSentEvents.ts in
// https://github.com/ChromeDevTools/devtools-frontend); `type`, `event`
// and `id` are read as aliases. The body is content.text when it is
// there; without it, it is rebuilt from the messages as the SSE an
// EventSource would have read. Either way each message's time times the
// event it belongs to.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"
)

// harLog is the part of a HAR file streamtap reads.
type harLog struct {
	Log *struct {
		Creator struct {
			Name string `json:"name"`
		} `json:"creator"`
		Entries []harEntry `json:"entries"`
	} `json:"log"`
}

// harCreator is the log.creator.name of the HAR files streamtap writes.
const harCreator = "streamtap"

type harEntry struct {
	StartedDateTime string          `json:"startedDateTime"`
	Time            *float64        `json:"time"`
	Request         harRequest      `json:"request"`
	Response        harResponse     `json:"response"`
	Timings         harTimings      `json:"timings"`
	Cache           json.RawMessage `json:"cache"`
	Messages        []harMessage    `json:"_eventSourceMessages,omitempty"`
	Comment         string          `json:"comment,omitempty"`
}

type harRequest struct {
	Method      string          `json:"method"`
	URL         string          `json:"url"`
	HTTPVersion string          `json:"httpVersion"`
	Cookies     json.RawMessage `json:"cookies"`
	Headers     []harHeader     `json:"headers"`
	QueryString json.RawMessage `json:"queryString"`
	PostData    *harPostData    `json:"postData,omitempty"`
	HeadersSize int             `json:"headersSize"`
	BodySize    int             `json:"bodySize"`
}

type harPostData struct {
	MimeType string `json:"mimeType"`
	Text     string `json:"text"`
	Encoding string `json:"encoding,omitempty"`
}

type harResponse struct {
	Status      int             `json:"status"`
	StatusText  string          `json:"statusText"`
	HTTPVersion string          `json:"httpVersion"`
	Cookies     json.RawMessage `json:"cookies"`
	Headers     []harHeader     `json:"headers"`
	Content     harContent      `json:"content"`
	RedirectURL string          `json:"redirectURL"`
	HeadersSize int             `json:"headersSize"`
	BodySize    int             `json:"bodySize"`
	// Error says why no response came (status 0), as Chrome writes it.
	Error string `json:"_error,omitempty"`
}

type harContent struct {
	Size     int    `json:"size"`
	MimeType string `json:"mimeType"`
	Text     string `json:"text"`
	Encoding string `json:"encoding,omitempty"`
}

type harHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// harTimings are milliseconds; -1 (or absent) means not applicable.
type harTimings struct {
	Blocked *float64 `json:"blocked,omitempty"`
	DNS     *float64 `json:"dns,omitempty"`
	Connect *float64 `json:"connect,omitempty"`
	SSL     *float64 `json:"ssl,omitempty"`
	Send    *float64 `json:"send"`
	Wait    *float64 `json:"wait"`
	Receive *float64 `json:"receive"`
}

// harMessage is one of Chrome's _eventSourceMessages.
type harMessage struct {
	Time      *float64 `json:"time,omitempty"`
	EventName string   `json:"eventName"`
	EventID   string   `json:"eventId"`
	Data      string   `json:"data"`
	// Aliases other exporters use.
	Type  string `json:"type,omitempty"`
	Event string `json:"event,omitempty"`
	ID    string `json:"id,omitempty"`
}

func (m *harMessage) name() string {
	for _, s := range []string{m.EventName, m.Event, m.Type} {
		if s != "" {
			return s
		}
	}
	return ""
}

func (m *harMessage) id() string {
	if m.EventID != "" {
		return m.EventID
	}
	return m.ID
}

// jsonErrorAt says where in data a JSON error is: line and column, and
// the field for a value of the wrong type.
func jsonErrorAt(data []byte, err error) string {
	var off int64 = -1
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		off = syn.Offset
	case errors.As(err, &typ):
		off = typ.Offset
	}
	if off < 0 || off > int64(len(data)) {
		return err.Error()
	}
	before := data[:off]
	ln := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return fmt.Sprintf("line %d, column %d: %v", ln, col, err)
}

// harEntryOf reads one entry; ok is false for an entry that holds neither
// a stream nor JSON and whose request posts no JSON either, unless keepAll
// (a HAR streamtap wrote, where every entry is a session it read). The
// request counts because an API call that failed (401 with an HTML page,
// no response at all) is still an exchange to report. Without build it
// only tells ok, and the entry's body is left unread.
func harEntryOf(he *harEntry, opt ArchiveOptions, budget *inflateBudget, keepAll, build bool) (Entry, bool) {
	e := Entry{Exchange: Exchange{HeadAt: NoTime}, Dur: NoTime}
	rq, rs := &he.Request, &he.Response
	e.Method, e.URL = rq.Method, rq.URL
	e.Started, _ = time.Parse(time.RFC3339Nano, he.StartedDateTime)
	e.RequestHeader, e.ResponseHeader = harHeaders(rq.Headers), harHeaders(rs.Headers)
	if rq.PostData != nil {
		e.RequestBody = []byte(rq.PostData.Text)
		if rq.PostData.Encoding == "base64" {
			if b, err := decodeBase64(rq.PostData.Text); err == nil {
				e.RequestBody = b
			}
		}
	}
	e.Status, e.Proto, e.Error = rs.Status, rs.HTTPVersion, rs.Error
	if he.Time != nil && *he.Time >= 0 {
		e.Dur = millis(*he.Time)
	}
	e.HeadAt = he.Timings.headAt()
	mime := strings.ToLower(rs.Content.MimeType)
	if mime == "" {
		mime = strings.ToLower(e.ResponseHeader.Get("Content-Type"))
	}
	body := []byte(rs.Content.Text)
	if rs.Content.Encoding == "base64" {
		b, err := decodeBase64(rs.Content.Text)
		if err != nil {
			e.Note = "content.text: " + err.Error()
		} else {
			body = b
			e.Decoded = append(e.Decoded, "base64")
		}
	}
	// A browser stores the body decoded whatever Content-Encoding says:
	// only a body that is still gzip is gunzipped, when it is read.
	packed, note := packBody(body, http.Header{}, budget)
	if packed != nil {
		e.Decoded = append(e.Decoded, packed.enc)
	}
	if note != "" {
		e.Note = note
	}
	e.Stream = strings.HasPrefix(mime, "text/event-stream") || strings.Contains(mime, "ndjson") ||
		strings.HasPrefix(mime, EventStreamContentType) || len(he.Messages) > 0
	if !e.Stream && !keepAll && !postsJSON(rq) && !isJSON(mime, bodyStart(body, packed)) {
		return e, false
	}
	if !build {
		return e, true
	}
	switch {
	case packed != nil:
		e.packed = packed
		if len(he.Messages) > 0 {
			e.messages = he.Messages
		}
	case len(he.Messages) == 0:
		e.Body = []Chunk{{At: NoTime, Data: body}}
	case len(body) == 0:
		e.Body = messagesSSE(he.Messages, e.messageTime(he.Messages))
		e.Decoded = append(e.Decoded, "_eventSourceMessages")
	default:
		e.Body = timedBody(body, he.Messages, e.messageTime(he.Messages))
	}
	redactExchange(&e.Exchange, opt.KeepSecrets)
	return e, true
}

// bodyStart is the start of a body as it reads, enough for isJSON: a
// compressed body is inflated that far only.
func bodyStart(body []byte, packed *packedBody) []byte {
	if packed == nil {
		return body
	}
	return packed.peek(4 << 10)
}

// isJSON says whether a body of media type mime is JSON, by its type or
// its first byte.
func isJSON(mime string, body []byte) bool {
	trimmed := bytes.TrimSpace(body)
	return strings.Contains(mime, "json") || len(trimmed) > 0 && trimmed[0] == '{'
}

// postsJSON says whether a request sends a JSON body, as API calls do.
func postsJSON(rq *harRequest) bool {
	return rq.PostData != nil && isJSON(strings.ToLower(rq.PostData.MimeType), []byte(rq.PostData.Text))
}

// headAt is the time from the request's start to the response head: the
// phases before the first byte, -1 (absent) ones left out.
func (t *harTimings) headAt() time.Duration {
	var ms float64
	known := false
	for _, p := range []*float64{t.Blocked, t.DNS, t.Connect, t.Send, t.Wait} {
		if p != nil && *p >= 0 {
			ms += *p
			known = true
		}
	}
	if !known {
		return NoTime
	}
	return millis(ms)
}

// millis turns HAR milliseconds into a duration, clamped to what one can
// hold.
func millis(ms float64) time.Duration {
	if math.IsNaN(ms) || ms < 0 {
		return NoTime
	}
	if ms > float64(math.MaxInt64/int64(time.Millisecond)) {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(ms * float64(time.Millisecond))
}

// messageTime returns how to turn a message's time into a time since the
// request. Chrome writes wall-clock seconds; an exporter that writes
// seconds of another clock is read relative to its first message, which is
// taken to come with the response head.
func (e *Entry) messageTime(ms []harMessage) func(*harMessage) time.Duration {
	first, ok := 0.0, false
	for i := range ms {
		if ms[i].Time != nil {
			first, ok = *ms[i].Time, true
			break
		}
	}
	wall := ok && !e.Started.IsZero() && first >= float64(e.Started.Unix())-1 && first < 1e11
	base := e.HeadAt
	if base == NoTime {
		base = 0
	}
	return func(m *harMessage) time.Duration {
		switch {
		case m.Time == nil || !ok:
			return NoTime
		case wall:
			// Seconds since 1970 as a float64 keep about a microsecond.
			d := time.Duration((*m.Time - float64(e.Started.UnixNano())/1e9) * 1e9)
			return max(d.Round(time.Microsecond), 0)
		}
		return base + time.Duration((*m.Time-first)*1e9).Round(time.Microsecond)
	}
}

// messagesSSE rebuilds the stream an EventSource read from its messages:
// one SSE event each, timed by the message.
func messagesSSE(ms []harMessage, at func(*harMessage) time.Duration) []Chunk {
	out := make([]Chunk, 0, len(ms))
	for i := range ms {
		m := &ms[i]
		var b bytes.Buffer
		// An event without a name is dispatched as "message": leave the
		// field out, as the server most likely did.
		if n := m.name(); n != "" && n != "message" {
			b.WriteString("event: " + oneLine.Replace(n) + "\n")
		}
		if id := m.id(); id != "" {
			b.WriteString("id: " + oneLine.Replace(id) + "\n")
		}
		for line := range strings.SplitSeq(m.Data, "\n") {
			b.WriteString("data: " + strings.TrimSuffix(line, "\r") + "\n")
		}
		b.WriteString("\n")
		out = append(out, Chunk{At: at(m), Data: b.Bytes()})
	}
	return out
}

// timedBody cuts an SSE body at its frames and times each event that
// dispatches (one with data) by the message at the same position. When the
// counts differ the messages cannot be matched, and the body is untimed.
func timedBody(body []byte, ms []harMessage, at func(*harMessage) time.Duration) []Chunk {
	type span struct {
		start, end int64
		data       bool
	}
	var spans []span
	fr := NewFramer(FormatSSE)
	collect := func(f *Frame) {
		spans = append(spans, span{f.Start, f.End, f.Kind == FrameEvent && f.HasData})
	}
	fr.Feed(body, NoTime, collect)
	fr.Finish(NoTime, collect)
	n := 0
	for _, s := range spans {
		if s.data {
			n++
		}
	}
	if n != len(ms) {
		return []Chunk{{At: NoTime, Data: body}}
	}
	out := make([]Chunk, 0, len(spans))
	last, k := NoTime, 0
	for _, s := range spans {
		if s.data {
			last = at(&ms[k])
			k++
		}
		out = append(out, Chunk{At: last, Data: body[s.start:s.end]})
	}
	return out
}

func harHeaders(hs []harHeader) http.Header {
	h := http.Header{}
	for _, x := range hs {
		if x.Name != "" {
			h.Add(x.Name, x.Value)
		}
	}
	return h
}
