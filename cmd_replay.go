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
	"time"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/proxy"
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
		printError(stderr, err)
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
// once; with 0, lines are printed as events arrive, each flushed at once
// when the source is live (a file is written in big blocks).
func timelineSession(ctx context.Context, src *capture.Source, o options, speed float64, stdout, stderr io.Writer) (int, *model.Session) {
	w := bufio.NewWriter(stdout)
	prev := capture.NoTime
	start := time.Now()
	var explainer *ui.TimelineExplainer // nil writes nothing
	if o.explain {
		explainer = ui.NewTimelineExplainer()
	}
	s, err := readStream(ctx, src, o, model.Options{}, func(s *model.Session, ev *model.Event, ord int, f *capture.Frame) error {
		if speed <= 0 {
			if src.Timed {
				defer w.Flush() // a live stream shows each event as it arrives
			}
		} else if ev.At != capture.NoTime {
			if err := w.Flush(); err != nil {
				return err
			}
			if err := proxy.Wait(ctx, start, ev.At, speed); err != nil {
				return err
			}
		}
		if err := ui.WriteTimelineLine(w, s, ev, ord, prev, f.Raw); err != nil {
			return err
		}
		if err := explainer.Write(w, s, ev, ord, f.Data); err != nil {
			return err
		}
		prev = ev.At
		return nil
	})
	if err == nil {
		oc := s.Outcome()
		fmt.Fprintf(w, "-- %s: %d events, %d bytes, %s", ui.Safe(src.Name), s.Len(), s.Bytes(), oc.State)
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
		printError(stderr, err)
		return 2
	}
	warnings, err := proxy.CheckReplay(rec)
	for _, w := range warnings {
		fmt.Fprintf(stderr, "streamtap replay: %s\n", w)
	}
	if err != nil {
		printErrorAs(stderr, "streamtap replay", fmt.Errorf("%s: %w", name, err))
		return 2
	}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		printError(stderr, err)
		return 2
	}
	warnExposed(stderr, ln, replayExposes)
	log := proxy.NewLog(stderr)
	fmt.Fprintf(stderr, "streamtap: replaying %s on http://%s (any path, %sx)\n", ui.Safe(name), ln.Addr(), trimFloat(o.speed))
	srv := &http.Server{Handler: proxy.Replay(rec, o.speed, log), ReadHeaderTimeout: 30 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		printError(stderr, err)
		return 2
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), proxy.ShutdownGrace)
	defer cancel()
	if srv.Shutdown(sctx) != nil {
		_ = srv.Close()
	}
	return 0
}

func trimFloat(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", f), "0"), ".")
}
