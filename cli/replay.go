package cli

import (
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
	"github.com/streamtap/streamtap/proxy"
	"github.com/streamtap/streamtap/termtext"
)

// replayAbout is the command's help under its usage line; the flags are
// listed from its flag set.
const replayAbout = `Plays a recording (or any stream) at its recorded pace divided by --speed:
with --listen, serves it to every request (any method, any path) with the
recorded status and headers; otherwise plays it in the inspector on a
terminal, or prints the plain timeline line by line as its time comes.
--sample NAME plays an embedded sample instead of FILE; a stream without
timing is served at once and played at a fixed pace.
`

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
		if name, ok := sampleOperand(positional[0]); ok {
			o.sample = name // sample:NAME where the FILE goes is --sample NAME
		} else {
			o.file = positional[0]
		}
	}
	return o, nil
}

// replayCommand plays or serves a recording at its pace.
func replayCommand() command {
	return command{name: "replay", args: "FILE | --sample NAME", summary: "play a recording at its pace, or serve it as an endpoint",
		about: replayAbout, flags: func() *flag.FlagSet { return replayFlags(new(replayOptions)) }, run: runReplay}
}

// runReplay plays a recording: served over HTTP with --listen, into the
// inspector on a terminal, and as the plain timeline otherwise, each at
// the recorded pace divided by --speed.
func runReplay(ctx context.Context, args []string, stdin *os.File, stdout, stderr io.Writer) error {
	o, err := parseReplayArgs(args)
	if err != nil {
		return usageError("replay", err)
	}
	if o.listen != "" {
		return serveReplay(ctx, o, stderr)
	}
	var src *capture.Source
	if o.sample != "" {
		src, err = sampleSource(o.sample)
	} else {
		src, err = capture.Open(o.file, stdin)
		err = operandError(o.file, err)
	}
	if err != nil {
		return err
	}
	defer src.Close()
	opts := options{keepSecrets: o.keep, replay: o.speed}
	if isTerminal(stdout) {
		// The inspector reads the recording, then plays it from the first
		// event at its recorded pace times --speed (space pauses).
		return viewOrTimeline(ctx, src, opts, stdout, stderr)
	}
	_, err = timelineSession(ctx, src, opts, o.speed, stdout)
	return err
}

// loadReplay reads FILE as a recording, or as a plain stream without
// timing (served all at once, with the media type of its format).
func loadReplay(path string) (*capture.Recording, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return replayRecording(data)
}

// replayRecording parses data as a recording, or wraps it as a plain
// stream without timing, served as what its bytes are: an AWS event
// stream as application/vnd.amazon.eventstream, JSON lines as
// application/x-ndjson, SSE (and anything else) as text/event-stream.
func replayRecording(data []byte) (*capture.Recording, error) {
	rec, err := capture.ParseRecording(data)
	if errors.Is(err, capture.ErrNotRecording) {
		format := capture.DetectFormat(data)
		return &capture.Recording{
			Exchange: capture.Exchange{Status: http.StatusOK, HeadAt: capture.NoTime,
				ResponseHeader: http.Header{"Content-Type": {capture.ContentType(format)}}},
			Body:   []capture.Chunk{{At: capture.NoTime, Data: data}},
			Format: format,
		}, nil
	}
	return rec, err
}

// serveReplay serves the recording of o over HTTP until ctx ends.
func serveReplay(ctx context.Context, o replayOptions, stderr io.Writer) error {
	var rec *capture.Recording
	var err error
	name := o.file
	if o.sample != "" {
		name = "sample " + o.sample
		var data []byte
		if data, err = openSample(o.sample); err == nil {
			rec, err = replayRecording(data)
		}
	} else {
		rec, err = loadReplay(o.file)
	}
	if err != nil {
		return err
	}
	warnings, err := proxy.CheckReplay(rec)
	for _, w := range warnings {
		fmt.Fprintf(stderr, "streamtap replay: %s\n", w)
	}
	if err != nil {
		return commandError("replay", fmt.Errorf("%s: %w", name, err))
	}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return err
	}
	warnExposed(stderr, ln, replayExposes)
	log := proxy.NewLog(stderr)
	fmt.Fprintf(stderr, "streamtap: replaying %s on http://%s (any path, %sx)\n", termtext.Safe(name), ln.Addr(), trimFloat(o.speed))
	srv := &http.Server{Handler: proxy.Replay(rec, o.speed, log), ReadHeaderTimeout: 30 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), proxy.ShutdownGrace)
	defer cancel()
	if srv.Shutdown(sctx) != nil {
		_ = srv.Close()
	}
	return nil
}

func trimFloat(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", f), "0"), ".")
}
