package proxy

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/termtext"
)

// replayHeaders are the recorded response headers not sent back: they
// describe the recorded connection, not this one.
var replayHeaders = map[string]bool{
	"Content-Length": true, "Transfer-Encoding": true, "Connection": true, "Keep-Alive": true,
	"Date": true, "Trailer": true, "Upgrade": true, "Proxy-Connection": true,
}

// Replay serves the recording to every request, whatever its method and
// path: the recorded status and headers (as CheckReplay cleans them),
// then each chunk of the body when its recorded time, divided by speed,
// has come. A recording CheckReplay refuses is answered 502 with why.
// log may be nil; each request's line ends with its outcome, as the
// proxy's does: the recorded stream's (completed, truncated, …) once all
// of it was sent, client-canceled when the client left first.
func Replay(rec *capture.Recording, speed float64, log *Log) http.Handler {
	var n atomic.Int64
	status, header, _, refused := replayHead(rec)
	recorded := ""
	if refused == nil && log != nil {
		recorded = recordedOutcome(rec)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := n.Add(1)
		start := time.Now()
		_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, MaxRequestBody))
		ctx := r.Context()
		if refused != nil {
			http.Error(w, "streamtap replay: "+refused.Error(), http.StatusBadGateway)
			if log != nil {
				log.Printf("replay #%d %s %s %d outcome=refused", id, r.Method, termtext.Safe(capture.RedactURL(r.URL.RequestURI())), http.StatusBadGateway)
			}
			return
		}
		for k, vs := range header {
			w.Header()[k] = slices.Clone(vs)
		}
		if rec.HeadAt != capture.NoTime {
			if Wait(ctx, start, rec.HeadAt, speed) != nil {
				return
			}
		}
		w.WriteHeader(status)
		rc := http.NewResponseController(w)
		_ = rc.Flush()
		var sent int64
		outcome := recorded
		for _, c := range rec.Body {
			if c.At != capture.NoTime {
				if Wait(ctx, start, c.At, speed) != nil {
					outcome = "client-canceled"
					break
				}
			}
			k, err := w.Write(c.Data)
			sent += int64(k)
			if err == nil {
				err = rc.Flush()
			}
			if err != nil {
				outcome = "client-canceled"
				break
			}
		}
		if log != nil {
			log.Printf("replay #%d %s %s %d bytes=%d dur=%.3fs outcome=%s", id, r.Method, termtext.Safe(capture.RedactURL(r.URL.RequestURI())),
				status, sent, time.Since(start).Seconds(), outcome)
		}
	})
}

// CheckReplay says what Replay will change in rec before serving it, one
// warning per change, and returns an error when rec cannot be served: a
// recorded 1xx (a 101 Switching Protocols is a WebSocket session, and a
// client sent an informational status waits on for the final one).
func CheckReplay(rec *capture.Recording) (warnings []string, err error) {
	_, _, warnings, err = replayHead(rec)
	if rec.BadTimes > 0 {
		times := fmt.Sprintf("%d recorded times are", rec.BadTimes)
		if rec.BadTimes == 1 {
			times = "1 recorded time is"
		}
		warnings = append(warnings, fmt.Sprintf("%s not a number of seconds from 0 to %s (NaN, negative, too large): "+
			"each such event is sent right after the one before it", times, capture.MaxRecordedTime))
	}
	return warnings, err
}

// replayHead is the status and headers Replay sends for rec, with a
// warning for each header it cleaned or dropped, or why rec cannot be
// served. A header value holding control characters (NUL, ESC, BEL…:
// RFC 9110 §5.5 allows none but tab) has each replaced by a space, as the
// RFC lets a recipient do with NUL, CR and LF, since Go's server would
// send it raw and a client such as curl refuses the response; a header
// whose name is not a token is dropped.
func replayHead(rec *capture.Recording) (status int, h http.Header, warnings []string, err error) {
	h = http.Header{}
	for _, k := range slices.Sorted(maps.Keys(rec.ResponseHeader)) {
		if replayHeaders[k] {
			continue
		}
		if !validHeaderName(k) {
			warnings = append(warnings, fmt.Sprintf("response header %q is not a valid header name: not sent", termtext.Safe(k)))
			continue
		}
		cleaned := false
		for _, v := range rec.ResponseHeader[k] {
			if v == capture.Redacted {
				continue // a redacted cookie is worth nothing to the client
			}
			if c := cleanHeaderValue(v); c != v {
				v, cleaned = c, true
			}
			h.Add(k, v)
		}
		if cleaned {
			warnings = append(warnings, fmt.Sprintf("response header %s: control characters replaced by spaces", termtext.Safe(k)))
		}
	}
	status = rec.Status
	switch {
	case status >= 100 && status < 200:
		return status, h, warnings, fmt.Errorf("the recorded status %d is informational, not a response (a 101 is a WebSocket session, which replay does not serve)", status)
	case status == 0 && rec.Error != "":
		status = http.StatusBadGateway // the recorded exchange got no response
	case status == 0:
		// A stream recorded from stdin: no head was seen. Serve it as
		// what its bytes are.
		status = http.StatusOK
		if h.Get("Content-Type") == "" {
			h.Set("Content-Type", capture.ContentType(rec.Format))
		}
	}
	return status, h, warnings, nil
}

// validHeaderName reports whether k is an RFC 9110 token.
func validHeaderName(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0 {
			continue
		}
		return false
	}
	return true
}

// cleanHeaderValue replaces each control character of v but tab (and
// DEL) with a space, and trims the spaces that leaves at either end.
func cleanHeaderValue(v string) string {
	if !strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f }) {
		return v
	}
	b := []byte(v)
	for i, c := range b {
		if c < 0x20 && c != '\t' || c == 0x7f {
			b[i] = ' '
		}
	}
	return strings.Trim(string(b), " \t")
}

// Wait waits until the recorded time at, divided by speed, has passed
// since start, or until ctx ends (then it returns ctx's error). Replays
// keep a recording's pace with it.
func Wait(ctx context.Context, start time.Time, at time.Duration, speed float64) error {
	wait := float64(at) / speed
	if wait >= math.MaxInt64 { // a slow --speed: wait, do not wrap around to now
		wait = math.MaxInt64
	}
	d := time.Until(start.Add(time.Duration(wait)))
	if d <= 0 {
		return ctx.Err()
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// recordedOutcome is how the recorded stream ends, as the proxy's log
// names the outcome of a stream it passed on (completed, truncated,
// incomplete, …): modelled once, when the replay starts.
func recordedOutcome(rec *capture.Recording) string {
	var body []byte
	for _, c := range rec.Body {
		body = append(body, c.Data...)
	}
	s := model.NewSession(model.Options{Raw: bytes.NewReader(body)})
	fr := capture.NewFramer(rec.Format)
	add := func(f *capture.Frame) { s.Add(f) }
	fr.Feed(body, capture.NoTime, add)
	fr.Finish(capture.NoTime, add)
	s.End(nil)
	return s.Outcome().State
}
