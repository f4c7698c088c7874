package capture

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"time"
	"unicode/utf8"
)

// legacyEntry is the HAR entry writer as it was before entries were
// encoded as they are read: it keeps the body and messages raw and
// encodes the whole entry with encoding/json when it closes. It is the
// oracle the incremental writer is held to, byte for byte
// (TestHAREntryBytesAsBefore).
type legacyEntry struct {
	opt  HAROptions
	x    Exchange
	fr   *Framer
	body []byte
	msgs []harMessage
	last time.Duration
}

func newLegacyEntry(x *Exchange, opt HAROptions) *legacyEntry {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	e := &legacyEntry{opt: opt, x: Exchange{HeadAt: NoTime}, fr: NewFramer(FormatAuto), last: NoTime}
	if x != nil {
		e.x = *x
	}
	return e
}

func (e *legacyEntry) Write(p []byte, at time.Duration) error {
	e.fr.Feed(p, at, e.frame)
	return nil
}

// encoded ends the entry and returns it as the writer wrote it: one JSON
// line.
func (e *legacyEntry) encoded(at time.Duration) []byte {
	e.fr.Finish(at, e.frame)
	if at != NoTime {
		e.last = max(e.last, at)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e.entry()); err != nil {
		panic(err)
	}
	return b.Bytes()
}

func (e *legacyEntry) frame(f *Frame) {
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

func (e *legacyEntry) entry() *harEntry {
	x := e.x
	redactExchange(&x, e.opt.KeepSecrets)
	he := &harEntry{Cache: json.RawMessage("{}")}
	started := x.Started
	if started.IsZero() {
		started = e.opt.Now()
		he.Comment = "the stream was read without its start time: startedDateTime is when it was exported"
		for i := range e.msgs {
			e.msgs[i].Time = nil
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
	he.Timings, he.Time = legacyTimings(e.x.HeadAt, e.last)
	return he
}

func (e *legacyEntry) mimeType() string { return harMimeType(&e.x, e.fr) }

func legacyTimings(headAt, last time.Duration) (harTimings, *float64) {
	ms := func(d time.Duration) *float64 {
		v := float64(d.Microseconds()) / 1000
		return &v
	}
	zero := 0.0
	t := harTimings{Send: &zero, Wait: &zero, Receive: &zero}
	wait := time.Duration(0)
	if headAt != NoTime && headAt > 0 {
		wait = headAt
		t.Wait = ms(wait)
	}
	if last != NoTime && last > wait {
		t.Receive = ms(last - wait)
	}
	total := *t.Wait + *t.Receive
	return t, &total
}
