package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/proxy"
	"github.com/streamtap/streamtap/suite"
	"github.com/streamtap/streamtap/termtext"
	"github.com/streamtap/streamtap/ui"
)

// proxyAbout is the command's help under its usage line; the flags are
// listed from its flag set.
const proxyAbout = `A recording reverse proxy: point a client's base URL at --listen. Streams
pass to the client byte for byte; each request/response pair is a session,
inspected on the side. On a terminal a live sessions list (enter opens a
session in the inspector); with --no-tui, or when output is not a terminal,
one line per session on stderr. Runs until interrupted.

Two legs of one turn: give --listen and --upstream twice, one pair in front
of an app (its client, a browser or curl, to the first --listen) and one in
front of the provider it calls (its baseURL to the second): the sessions
list links the app's session to the provider sessions it made, one per step.
`

type proxyOptions struct {
	listen      string   // the first --listen
	upstream    *url.URL // the first --upstream
	legs        []proxyLeg
	record      string
	saveHAR     string
	har         *capture.HAR // the open --save-har file's, or nil
	noTUI       bool
	logFile     string // with the TUI: where the session lines go
	keepSecrets bool
	force       bool // --force: overwrite the --save-har file
	headTimeout time.Duration
	idle        time.Duration
	clients     clientLimits
	keep        int // with the sessions list: how many sessions it keeps, 0 for all
	// rules is the config file's rule changes (.streamtap.yaml, found from
	// the working directory up), for the findings of the log line; passed
	// says each config file the search passed over (another user's), which
	// check and rules say on stderr too.
	rules  checks.Config
	passed []passedFile
}

// passedFile is a config file the search passed over, and why.
type passedFile struct{ path, why string }

// String is the line the log says it in.
func (p passedFile) String() string {
	return fmt.Sprintf("streamtap: passed over the config file %s: %s: the proxy grades its sessions without it", termtext.Safe(p.path), p.why)
}

// proxyLeg is a listener and the upstream it forwards to.
type proxyLeg struct {
	listen   string
	upstream *url.URL
}

// repeated is a flag given any number of times; its default, shown in
// the help, stands when it is not given.
type repeated struct {
	vals []string
	def  string
}

func (r *repeated) String() string {
	if r == nil || len(r.vals) == 0 {
		if r == nil {
			return ""
		}
		return r.def
	}
	return strings.Join(r.vals, ",")
}

func (r *repeated) Set(v string) error { r.vals = append(r.vals, v); return nil }

// given is what the command line gave, else the default (if any).
func (r *repeated) given() []string {
	if len(r.vals) == 0 && r.def != "" {
		return []string{r.def}
	}
	return r.vals
}

// proxyFlags defines the proxy's flags into o; the listeners and the
// upstream URLs, parsed after, go to the returned lists.
func proxyFlags(o *proxyOptions) (fs *flag.FlagSet, listens, ups *repeated) {
	fs = newFlagSet("proxy")
	listens, ups = &repeated{def: "127.0.0.1:8787"}, &repeated{}
	fs.Var(listens, "listen", "listen on `ADDR` (host:port); point the client's base URL here. Given twice, with two --upstream: the first --listen forwards to the first --upstream, the second to the second")
	fs.Var(ups, "upstream", "forward to the http(s) `URL` of the API, e.g. https://api.openai.com (required). Given twice, with two --listen: an app (e.g. http://localhost:3000) and the provider it calls, their sessions linked")
	fs.StringVar(&o.record, "record", "", "write a timed recording of every session into `DIR`")
	fs.StringVar(&o.saveHAR, "save-har", "", "also write every HTTP session as an entry of one HAR 1.2 `FILE` (SSE events as _eventSourceMessages); the file is a whole HAR after each session")
	fs.BoolVar(&o.force, "force", false, "overwrite the file --save-har names when it exists and is not empty (without it the proxy refuses)")
	fs.BoolVar(&o.noTUI, "no-tui", false, "log one line per session on stderr instead of the live sessions list")
	fs.StringVar(&o.logFile, "log", "", "with the sessions list, write the one-line session log to `FILE` (without it the log goes nowhere)")
	fs.BoolVar(&o.keepSecrets, "keep-secrets", false, "do not redact credentials (Authorization, API keys, cookies) in recordings, the log and the sessions list")
	fs.DurationVar(&o.headTimeout, "timeout", proxy.DefaultHeadTimeout, "give up on an upstream that sends no response head within `DURATION` (504 to the client)")
	fs.DurationVar(&o.idle, "idle-timeout", 0, "cut a stream that sends no bytes for `DURATION` (0: never)")
	o.clients.flags(fs)
	fs.IntVar(&o.keep, "keep", 0, "with the sessions list, keep only the newest `N` sessions in it: older ended ones leave the list (0: keep all)")
	return fs, listens, ups
}

// proxy is the proxy's part of the options, with the sessions list's
// feed or nil.
func (o proxyOptions) proxy(feed *proxy.Feed) proxy.Options {
	return proxy.Options{Upstream: o.upstream, Record: o.record, HAR: o.har, KeepSecrets: o.keepSecrets,
		HeadTimeout: o.headTimeout, Idle: o.idle, BodyTimeout: o.clients.body, ClientIdle: o.clients.idle,
		ClientHeadTimeout: o.clients.head, ClientWriteTimeout: o.clients.write, MaxConns: o.clients.maxConns, Feed: feed, Rules: o.rules}
}

func parseProxyArgs(args []string) (proxyOptions, error) {
	var o proxyOptions
	fs, listens, ups := proxyFlags(&o)
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return o, err
	}
	if len(positional) > 0 {
		return o, fmt.Errorf("proxy takes no arguments (got %s)", strings.Join(positional, " "))
	}
	if len(ups.vals) == 0 || ups.vals[0] == "" {
		return o, errors.New("proxy needs --upstream URL, e.g. --upstream https://api.openai.com")
	}
	addrs := listens.given()
	if len(addrs) != len(ups.vals) {
		return o, fmt.Errorf("--listen and --upstream go in pairs, each --listen forwarding to its --upstream (got %d --listen for %d --upstream)", len(addrs), len(ups.vals))
	}
	for i, up := range ups.vals {
		u, err := url.Parse(up)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return o, fmt.Errorf("--upstream %q: want an http:// or https:// URL", up)
		}
		o.legs = append(o.legs, proxyLeg{listen: addrs[i], upstream: u})
	}
	o.listen, o.upstream = o.legs[0].listen, o.legs[0].upstream
	if o.keep < 0 {
		return o, fmt.Errorf("--keep %d: want a number of sessions, 0 for all", o.keep)
	}
	if err := o.clients.check(); err != nil {
		return o, err
	}
	if err := existingOutputs(o.force, [2]string{"--save-har", o.saveHAR}); err != nil {
		return o, err
	}
	if o.noTUI {
		// Both shape the sessions list, which --no-tui does without: taken
		// silently, they would promise what nothing does.
		if o.keep > 0 {
			return o, errors.New("--keep is for the sessions list; with --no-tui nothing is kept (the log goes to stderr)")
		}
		if o.logFile != "" {
			return o, errors.New("--log is for the sessions list; with --no-tui the log goes to stderr (redirect it: 2>FILE)")
		}
	}
	return o, nil
}

// shownUpstream is an upstream URL as the log line and the sessions list
// show it: its credentials redacted unless --keep-secrets.
func (o proxyOptions) shownUpstream(u *url.URL) string {
	if o.keepSecrets {
		return u.String()
	}
	return capture.RedactURL(u.String())
}

// listenLegs opens every --listen, warning about any beyond this machine;
// on error it closes those it opened.
func (o proxyOptions) listenLegs(stderr io.Writer) ([]proxy.Leg, error) {
	var legs []proxy.Leg
	for _, l := range o.legs {
		ln, err := net.Listen("tcp", l.listen)
		if err != nil {
			for _, opened := range legs {
				opened.Listener.Close()
			}
			return nil, fmt.Errorf("%w — is another proxy already on %s?", err, l.listen)
		}
		warnExposed(stderr, ln, proxyExposes)
		legs = append(legs, proxy.Leg{Listener: ln, Upstream: l.upstream})
	}
	return legs, nil
}

// legsShown says where each listener forwards: "http://ADDR → URL", the
// pairs joined by " · ".
func (o proxyOptions) legsShown(legs []proxy.Leg, withExposure bool) string {
	var parts []string
	for _, l := range legs {
		where := ""
		if e := exposure(l.Listener.Addr()); e != "" && withExposure {
			where = " (open to " + e + ")" // the warning on stderr is behind the screen
		}
		parts = append(parts, fmt.Sprintf("http://%s%s → %s", l.Listener.Addr(), where, termtext.Safe(o.shownUpstream(l.Upstream))))
	}
	return strings.Join(parts, " · ")
}

// proxyCommand runs the recording reverse proxy.
func proxyCommand() command {
	return command{name: "proxy", summary: "a recording reverse proxy, one session per request", about: proxyAbout,
		flags: func() *flag.FlagSet { fs, _, _ := proxyFlags(new(proxyOptions)); return fs }, run: runProxy,
		noSample: "proxy takes no --sample: it records live traffic (serve a sample with streamtap replay --sample NAME --listen ADDR)"}
}

// runProxy runs `streamtap proxy` until ctx is cancelled.
func runProxy(ctx context.Context, args []string, _ *os.File, stdout, stderr io.Writer) error {
	o, err := parseProxyArgs(args)
	if err != nil {
		return usageError("proxy", err)
	}
	// Set before it listens. Without a limit the collector let the heap
	// grow to twice what its last collection found live: a stream of 50
	// MB events holds 112 MiB while one passes (its framer's buffer and
	// the arguments), so the next stream's buffers were allocated beside
	// the last one's garbage (236 MB peak RSS).
	keepHeapNear(proxyHeap)
	rf := &ruleFlags{configs: suite.Configs{PassedOver: func(path, why string) {
		o.passed = append(o.passed, passedFile{path, why})
	}}}
	if o.rules, err = rf.configFor(""); err != nil {
		return err
	}
	if o.record != "" {
		if err := os.MkdirAll(o.record, 0o755); err != nil {
			return fmt.Errorf("record: %w", err)
		}
	}
	legs, err := o.listenLegs(stderr)
	if err != nil {
		return err
	}
	if o.saveHAR != "" {
		h, err := createHAR(ctx, o.saveHAR, o.keepSecrets, o.force, stderr)
		if err != nil {
			for _, l := range legs {
				l.Listener.Close()
			}
			return err
		}
		defer func() {
			// Each entry not written was logged with its session; this
			// says which, together, once the proxy stopped.
			if err := h.close(); err != nil {
				fmt.Fprintf(stderr, "streamtap: --save-har %s\n", termtext.Safe(err.Error()))
			}
		}()
		o.har = h.h
	}
	if !o.noTUI {
		if tty := terminalOf(stdout, stderr); tty != nil {
			return runProxyTUI(ctx, o, legs, tty)
		}
	}
	if !o.noTUI && (o.keep > 0 || o.logFile != "") {
		fmt.Fprintln(stderr, "streamtap: no terminal for the sessions list: the log goes to stderr, and --keep and --log do nothing")
	}
	p := proxy.New(o.proxy(nil), stderr)
	for _, p := range o.passed {
		fmt.Fprintln(stderr, p)
	}
	if len(legs) == 1 {
		fmt.Fprintf(stderr, "streamtap: proxy on %s (point the client's base URL here)\n", o.legsShown(legs, false))
	} else {
		fmt.Fprintf(stderr, "streamtap: proxy on %s (an app's client to the first, its provider's baseURL to the second: their sessions are linked)\n", o.legsShown(legs, false))
	}
	return p.ServeLegs(ctx, legs)
}

// tuiWarning is what the sessions list's status line keeps saying of the
// config files the search passed over (another user's), whose lines on
// stderr the screen hides; "" for none.
func tuiWarning(o proxyOptions) string {
	if len(o.passed) == 0 {
		return ""
	}
	w := "passed over config " + o.passed[0].path + ": " + o.passed[0].why // the status line escapes it
	if n := len(o.passed) - 1; n > 0 {
		w += fmt.Sprintf(" (and %d more)", n)
	}
	return w
}

// terminalOf returns the first of ws that is a terminal, or nil: the
// sessions list is drawn on stdout, or on stderr when stdout is piped.
func terminalOf(ws ...io.Writer) *os.File {
	for _, w := range ws {
		if f, ok := w.(*os.File); ok && term.IsTerminal(f.Fd()) {
			return f
		}
	}
	return nil
}

// runProxyTUI runs the proxy with the interactive sessions list drawn on
// out, a terminal. The log goes to o.logFile, or nowhere. Each ended
// session's bytes wait in a private temporary directory, removed at exit,
// so that the list holds only a row per session (see proxy.Options.Spill).
func runProxyTUI(ctx context.Context, o proxyOptions, legs []proxy.Leg, out *os.File) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	spill, lock, err := makeSpillDir()
	if err != nil {
		return fmt.Errorf("sessions list: %w", err)
	}
	if lock != nil {
		defer lock.Close() // after the removal starts: until then the directory is ours
	}
	defer removeDetached(spill)
	logw := io.Discard
	if o.logFile != "" {
		f, err := os.OpenFile(o.logFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("log: %w", err)
		}
		defer f.Close()
		logw = f
	}
	for _, p := range o.passed {
		fmt.Fprintln(logw, p)
	}
	m := ui.NewSessions(ui.Options{
		Source:      "proxy " + o.legsShown(legs, true),
		Warning:     tuiWarning(o),
		NoColor:     os.Getenv("NO_COLOR") != "",
		KeepSecrets: o.keepSecrets,
		Checks:      ui.StrictChecks,
		Keep:        o.keep,
	})
	// Bubble Tea opens the TTY for keys itself; stdin is never its input.
	prog := tea.NewProgram(m, tea.WithContext(ctx), tea.WithOutput(out))
	feed := proxy.NewFeed(func(b []model.SessionUpdate) { prog.Send(ui.Sessions(b)) })
	po := o.proxy(feed)
	po.Spill = spill
	p := proxy.New(po, logw)

	var serveErr error
	var wg sync.WaitGroup
	wg.Go(func() {
		serveErr = p.ServeLegs(ctx, legs)
		if serveErr != nil {
			prog.Quit()
		}
	})
	_, err = prog.Run()
	cancel()
	feed.Abort() // the sessions list is gone
	wg.Wait()
	switch {
	case serveErr != nil:
		return serveErr
	case err != nil && !errors.Is(err, tea.ErrProgramKilled) && !errors.Is(err, context.Canceled) && !errors.Is(err, tea.ErrInterrupted):
		return err
	}
	return nil
}
