package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/samples"
	"github.com/streamtap/streamtap/ui"
)

type replayOptions struct {
	file   string
	sample string
	speed  float64
	listen string
	keep   bool
}

// replayFlags defines replay's flags into o.
func replayFlags(o *replayOptions) *flag.FlagSet {
	fs := newFlagSet("replay")
	fs.Float64Var(&o.speed, "speed", 1, "play at `N` times the recorded pace (2 is twice as fast)")
	fs.StringVar(&o.listen, "listen", "", "serve the recording over HTTP on `ADDR` (host:port) instead of showing it")
	fs.StringVar(&o.sample, "sample", "", "play the embedded sample `NAME` instead of FILE ('streamtap samples' lists them)")
	fs.BoolVar(&o.keep, "keep-secrets", false, "do not redact credentials in the recorded HTTP headers")
	return fs
}

func parseReplayArgs(args []string) (replayOptions, error) {
	o := replayOptions{speed: 1}
	positional, err := parseInterspersed(replayFlags(&o), args)
	if err != nil {
		return o, err
	}
	switch {
	case o.sample != "" && len(positional) > 0:
		return o, fmt.Errorf("--sample %s and %s: give one input", o.sample, strings.Join(positional, " "))
	case o.sample == "" && len(positional) != 1:
		return o, errors.New("replay takes one FILE (a recording, or any stream) or --sample NAME")
	}
	if !(o.speed > 0) || o.speed > 1e6 {
		return o, fmt.Errorf("--speed %v: want a number above 0", o.speed)
	}
	if o.sample == "" {
		o.file = positional[0]
	}
	return o, nil
}

// runReplay plays a recording: served over HTTP with --listen, into the
// inspector on a terminal, and as the plain timeline otherwise, each at
// the recorded pace divided by --speed.
func runReplay(ctx context.Context, args []string, stdin *os.File, stdout, stderr io.Writer) int {
	o, err := parseReplayArgs(args)
	if err != nil {
		return parseFailed("replay", err, stdout, stderr)
	}
	if o.listen != "" {
		return serveReplay(ctx, o, stderr)
	}
	var src *capture.Source
	if o.sample != "" {
		src, err = sampleSource(o.sample)
	} else {
		src, err = capture.Open(o.file, stdin)
	}
	if err != nil {
		fmt.Fprintf(stderr, "streamtap: %v\n", err)
		return 2
	}
	defer src.Close()
	opts := options{keepSecrets: o.keep, replay: o.speed}
	if isTerminal(stdout) {
		// The inspector reads the recording, then plays it from the first
		// event at its recorded pace times --speed (space pauses).
		return viewOrTimeline(ctx, "", src, opts, stdout, stderr)
	}
	code, _ := timelineSession(ctx, src, opts, o.speed, stdout, stderr)
	return code
}

// timelineSession prints the plain timeline and returns the session. With
// a speed above 0, each line waits until its event's recorded time
// (divided by speed) has come, and events without a time are printed at
// once; with 0, lines are printed as events arrive.
func timelineSession(ctx context.Context, src *capture.Source, o options, speed float64, stdout, stderr io.Writer) (int, *model.Session) {
	w := bufio.NewWriter(stdout)
	prev := capture.NoTime
	start := time.Now()
	s, err := readStream(ctx, src, o, model.Options{}, func(s *model.Session, ev *model.Event, ord int, f *capture.Frame) error {
		if speed <= 0 {
			defer w.Flush() // a live stream shows each event as it arrives
		} else if ev.At != capture.NoTime {
			if err := w.Flush(); err != nil {
				return err
			}
			if err := sleepUntil(ctx, start.Add(scale(ev.At, speed))); err != nil {
				return err
			}
		}
		if err := ui.WriteTimelineLine(w, s, ev, ord, prev, f.Raw); err != nil {
			return err
		}
		prev = ev.At
		return nil
	})
	if err == nil {
		oc := s.Outcome()
		fmt.Fprintf(w, "-- %s: %d events, %d bytes, %s", src.Name, s.Len(), s.Bytes(), oc.State)
		if oc.Detail != "" {
			fmt.Fprintf(w, " (%s)", ui.Safe(oc.Detail))
		}
		fmt.Fprintln(w)
	}
	if werr := w.Flush(); werr != nil && err == nil {
		err = werr
	}
	if err != nil {
		return readFailed(stderr, err), s
	}
	return 0, s
}

func scale(d time.Duration, speed float64) time.Duration {
	return time.Duration(float64(d) / speed)
}

// sleepUntil waits until t or until ctx ends.
func sleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
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

// loadReplay reads FILE as a recording, or as a plain stream without
// timing (served all at once, as text/event-stream).
func loadReplay(path string) (*capture.Recording, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return replayRecording(data)
}

// replayRecording parses data as a recording, or wraps it as a plain
// stream without timing.
func replayRecording(data []byte) (*capture.Recording, error) {
	rec, err := capture.ParseRecording(data)
	if errors.Is(err, capture.ErrNotRecording) {
		return &capture.Recording{
			Exchange: capture.Exchange{Status: http.StatusOK, HeadAt: capture.NoTime,
				ResponseHeader: http.Header{"Content-Type": {"text/event-stream; charset=utf-8"}}},
			Body: []capture.Chunk{{At: capture.NoTime, Data: data}},
		}, nil
	}
	return rec, err
}

func serveReplay(ctx context.Context, o replayOptions, stderr io.Writer) int {
	var rec *capture.Recording
	var err error
	name := o.file
	if o.sample != "" {
		name = "sample " + o.sample
		var data []byte
		if data, err = samples.Open(o.sample); err == nil {
			rec, err = replayRecording(data)
		}
	} else {
		rec, err = loadReplay(o.file)
	}
	if err != nil {
		fmt.Fprintf(stderr, "streamtap: %v\n", err)
		return 2
	}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		fmt.Fprintf(stderr, "streamtap: %v\n", err)
		return 2
	}
	log := &lineLog{w: stderr}
	fmt.Fprintf(stderr, "streamtap: replaying %s on http://%s (any path, %sx)\n", name, ln.Addr(), trimFloat(o.speed))
	srv := &http.Server{Handler: replayHandler(rec, o.speed, log), ReadHeaderTimeout: 30 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		fmt.Fprintf(stderr, "streamtap: %v\n", err)
		return 2
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if srv.Shutdown(sctx) != nil {
		_ = srv.Close()
	}
	return 0
}

func trimFloat(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", f), "0"), ".")
}

// replayHeaders are the recorded response headers not sent back: they
// describe the recorded connection, not this one.
var replayHeaders = map[string]bool{
	"Content-Length": true, "Transfer-Encoding": true, "Connection": true, "Keep-Alive": true,
	"Date": true, "Trailer": true, "Upgrade": true, "Proxy-Connection": true,
}

// replayHandler serves the recording to every request, whatever its method
// and path: the recorded status and headers, then each chunk of the body
// when its recorded time, divided by speed, has come. log may be nil.
func replayHandler(rec *capture.Recording, speed float64, log *lineLog) http.Handler {
	var n atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := n.Add(1)
		start := time.Now()
		_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, maxRequestBody))
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
			if sleepUntil(ctx, start.Add(scale(rec.HeadAt, speed))) != nil {
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
				if sleepUntil(ctx, start.Add(scale(c.At, speed))) != nil {
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
			log.printf("replay #%d %s %s %d bytes=%d dur=%.3fs outcome=%s", id, r.Method, ui.Safe(capture.RedactURL(r.URL.RequestURI())),
				status, sent, time.Since(start).Seconds(), outcome)
		}
	})
}
