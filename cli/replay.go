package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strings"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/inject/fault"
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

With --listen, several FILEs, a directory of recordings (proxy --record
DIR), a HAR (proxy --save-har) or a cassette are a session: each request
is answered by the first exchange not yet served with its method and path
(and JSON-RPC method), the closest body first; a JSON-RPC response gets
the id of the request that came. When none is left the answer is 404 with
what was recorded, unless --reuse (docs/proxy.md). A GET with Last-Event-ID
(an MCP client resuming a stream that broke) gets the recorded events after
that id, or 400 when no recorded stream has it.

Breaking it on purpose, for a client's tests (docs/inject.md): --inject
serves it with protocol defects ('streamtap inject --list'); with --listen,
--fault breaks the transport of every request and --scenario FILE (YAML or
JSON) gives each request number its own faults and defects.
`

type replayOptions struct {
	file     string
	files    []string // with --listen: a session's operands (isSession)
	reuse    bool
	sample   string
	speed    float64
	listen   string
	keep     bool
	clients  clientLimits // with --listen
	inject   string
	faults   headerFlags // each --fault, a comma-separated list
	scenario string
	seed     uint64
	reveal   bool // on a terminal: the timeline's rows as they arrive
}

// replayFlags defines replay's flags into o.
func replayFlags(o *replayOptions) *flag.FlagSet {
	fs := newFlagSet("replay")
	fs.Float64Var(&o.speed, "speed", 1, "play at `N` times the recorded pace (2 is twice as fast)")
	fs.StringVar(&o.listen, "listen", "", "serve the recording over HTTP on `ADDR` (host:port) instead of showing it")
	fs.BoolVar(&o.reuse, "reuse", false, "with --listen and a session, serve a request that no exchange is left for the closest served one again, instead of 404")
	fs.StringVar(&o.sample, "sample", "", "play the embedded sample `NAME` instead of FILE ('streamtap samples' lists them)")
	fs.BoolVar(&o.reveal, "reveal", false, "on a terminal, show the timeline's rows only as the replay reaches them (v toggles it), as a live stream would")
	fs.BoolVar(&o.keep, "keep-secrets", false, "do not redact credentials in the recorded HTTP headers")
	o.clients.flags(fs)
	fs.StringVar(&o.inject, "inject", "", "apply the protocol defects `DEFECT,…` first ('streamtap inject --list' lists them)")
	fs.Var(&o.faults, "fault", "with --listen, break every request's transport with `FAULT,…`: "+fault.Syntax)
	fs.StringVar(&o.scenario, "scenario", "", "with --listen, give each request number its faults and defects from `FILE` (YAML or JSON; docs/inject.md)")
	fs.Uint64Var(&o.seed, "seed", 0, "with --inject, choose where each defect acts with `N` (as 'streamtap inject --seed')")
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
	case o.sample == "" && len(positional) == 0:
		return o, errors.New("replay takes one FILE (a recording, or any stream) or --sample NAME; with --listen, a session: several FILEs, a directory, a HAR")
	case len(positional) > 1 && o.listen == "":
		return o, errors.New("replay plays one FILE; several (a session) are served with --listen ADDR")
	}
	if !(o.speed > 0) || o.speed > 1e6 {
		return o, fmt.Errorf("--speed %v: want a number above 0", o.speed)
	}
	if err := o.clients.check(); err != nil {
		return o, err
	}
	switch {
	case o.listen != "" && o.reveal:
		return o, errors.New("--reveal shows the replay in the inspector: it has nothing to show with --listen")
	case o.listen == "" && (len(o.faults) > 0 || o.scenario != ""):
		return o, errors.New("--fault and --scenario break a served stream: give --listen ADDR")
	case o.scenario != "" && (len(o.faults) > 0 || o.inject != ""):
		return o, errors.New("--scenario says what each request gets: give no --fault or --inject beside it")
	}
	if o.listen != "" && o.sample == "" && isSession(positional) {
		o.files = positional
		return o, nil
	}
	if o.reuse {
		return o, errors.New("--reuse serves a session's exchanges again: give several FILEs, a directory or a HAR with --listen")
	}
	if len(positional) > 1 {
		return o, fmt.Errorf("replay takes one FILE, not %d", len(positional))
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
	return command{name: "replay", args: "FILE… | DIR | --sample NAME", summary: "play a recording at its pace, or serve it as an endpoint",
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
	if len(o.files) > 0 {
		return serveSession(ctx, o, stderr)
	}
	if o.listen != "" {
		if len(o.faults) > 0 || o.scenario != "" || o.inject != "" {
			return serveBroken(ctx, o, stdin, stderr)
		}
		return serveReplay(ctx, o, stderr)
	}
	var src *capture.Source
	switch {
	case o.inject != "":
		src, err = injectedSource(ctx, o, stdin, stderr)
	case o.sample != "":
		src, err = sampleSource(o.sample)
	default:
		src, err = capture.Open(o.file, stdin)
		err = operandError(o.file, err)
	}
	if err != nil {
		return err
	}
	defer src.Close()
	opts := options{keepSecrets: o.keep, replay: o.speed, reveal: o.reveal}
	if isTerminal(stdout) {
		// The inspector reads the recording, then plays it from the first
		// event at its recorded pace times --speed (space pauses).
		return viewOrTimeline(ctx, src, opts, stdout, stderr)
	}
	_, err = timelineSession(ctx, src, opts, o.speed, stdout)
	return err
}

// serveReplay serves the recording of o over HTTP until ctx ends. The
// serving itself (reading the recording, pacing, bounds) is proxy's
// (proxy/replay.go).
func serveReplay(ctx context.Context, o replayOptions, stderr io.Writer) error {
	var rc *proxy.Recorded
	var err error
	name := o.file
	if o.sample != "" {
		name = "sample " + o.sample
		var data []byte
		if data, err = openSample(o.sample); err == nil {
			rc, err = proxy.ReplayData(name, data)
		}
	} else {
		rc, err = proxy.LoadReplay(ctx, o.file)
	}
	if err != nil {
		return err
	}
	for _, w := range rc.Warnings() {
		fmt.Fprintf(stderr, "streamtap replay: %s\n", w)
	}
	if err := rc.Err(); err != nil {
		return commandError("replay", fmt.Errorf("%s: %w", name, err))
	}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return err
	}
	warnExposed(stderr, ln, replayExposes)
	ro := proxy.ReplayOptions{Speed: o.speed, Log: proxy.NewLog(stderr), BodyTimeout: o.clients.body, Limits: o.clients.limits()}
	fmt.Fprintf(stderr, "streamtap: replaying %s on http://%s (any path, %sx)\n", termtext.Safe(name), ln.Addr(), trimFloat(o.speed))
	return proxy.ServeReplay(ctx, ln, rc, ro)
}

func trimFloat(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", f), "0"), ".")
}
