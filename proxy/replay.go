package proxy

import (
	"context"
	"io"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/ui"
)

// replayHeaders are the recorded response headers not sent back: they
// describe the recorded connection, not this one.
var replayHeaders = map[string]bool{
	"Content-Length": true, "Transfer-Encoding": true, "Connection": true, "Keep-Alive": true,
	"Date": true, "Trailer": true, "Upgrade": true, "Proxy-Connection": true,
}

// Replay serves the recording to every request, whatever its method and
// path: the recorded status and headers, then each chunk of the body when
// its recorded time, divided by speed, has come. log may be nil.
func Replay(rec *capture.Recording, speed float64, log *Log) http.Handler {
	var n atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := n.Add(1)
		start := time.Now()
		_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, MaxRequestBody))
		ctx := r.Context()
		for k, vs := range rec.ResponseHeader {
			if replayHeaders[k] {
				continue
			}
			for _, v := range vs {
				if v == capture.Redacted {
					continue // a redacted cookie is worth nothing to the client
				}
				w.Header().Add(k, v)
			}
		}
		status := rec.Status
		switch {
		case status == 0 && rec.Error != "":
			status = http.StatusBadGateway // the recorded exchange got no response
		case status == 0:
			// A stream recorded from stdin: no head was seen. Serve it as
			// what it most likely is.
			status = http.StatusOK
			if w.Header().Get("Content-Type") == "" {
				w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
			}
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
		outcome := "done"
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
			log.Printf("replay #%d %s %s %d bytes=%d dur=%.3fs outcome=%s", id, r.Method, ui.Safe(capture.RedactURL(r.URL.RequestURI())),
				status, sent, time.Since(start).Seconds(), outcome)
		}
	})
}

// Wait waits until the recorded time at, divided by speed, has passed
// since start, or until ctx ends (then it returns ctx's error). Replays
// keep a recording's pace with it.
func Wait(ctx context.Context, start time.Time, at time.Duration, speed float64) error {
	d := time.Until(start.Add(time.Duration(float64(at) / speed)))
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
