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
`

type proxyOptions struct {
	listen      string
	upstream    *url.URL
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

// proxyFlags defines the proxy's flags into o; the upstream URL, parsed
// after, goes to the returned string.
func proxyFlags(o *proxyOptions) (*flag.FlagSet, *string) {
	fs := newFlagSet("proxy")
	fs.StringVar(&o.listen, "listen", "127.0.0.1:8787", "listen on `ADDR` (host:port); point the client's base URL here")
	up := fs.String("upstream", "", "forward to the http(s) `URL` of the API, e.g. https://api.openai.com (required)")
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
	return fs, up
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
	fs, up := proxyFlags(&o)
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return o, err
	}
	if len(positional) > 0 {
		return o, fmt.Errorf("proxy takes no arguments (got %s)", strings.Join(positional, " "))
	}
	if *up == "" {
		return o, errors.New("proxy needs --upstream URL, e.g. --upstream https://api.openai.com")
	}
	u, err := url.Parse(*up)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return o, fmt.Errorf("--upstream %q: want an http:// or https:// URL", *up)
	}
	o.upstream = u
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

// shownUpstream is the upstream URL as the log line and the sessions list
// show it: its credentials redacted unless --keep-secrets.
func (o proxyOptions) shownUpstream() string {
	if o.keepSecrets {
		return o.upstream.String()
	}
	return capture.RedactURL(o.upstream.String())
}

// proxyCommand runs the recording reverse proxy.
func proxyCommand() command {
	return command{name: "proxy", summary: "a recording reverse proxy, one session per request", about: proxyAbout,
		flags: func() *flag.FlagSet { fs, _ := proxyFlags(new(proxyOptions)); return fs }, run: runProxy,
		noSample: "proxy takes no --sample: it records live traffic (serve a sample with streamtap replay --sample NAME --listen ADDR)"}
}

// runProxy runs `streamtap proxy` until ctx is cancelled.
func runProxy(ctx context.Context, args []string, _ *os.File, stdout, stderr io.Writer) error {
	o, err := parseProxyArgs(args)
	if err != nil {
		return usageError("proxy", err)
	}
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
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return fmt.Errorf("%w — is another proxy already on %s?", err, o.listen)
	}
	warnExposed(stderr, ln, proxyExposes)
	if o.saveHAR != "" {
		h, err := createHAR(ctx, o.saveHAR, o.keepSecrets, o.force, stderr)
		if err != nil {
			ln.Close()
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
			return runProxyTUI(ctx, o, ln, tty)
		}
	}
	if !o.noTUI && (o.keep > 0 || o.logFile != "") {
		fmt.Fprintln(stderr, "streamtap: no terminal for the sessions list: the log goes to stderr, and --keep and --log do nothing")
	}
	p := proxy.New(o.proxy(nil), stderr)
	for _, p := range o.passed {
		fmt.Fprintln(stderr, p)
	}
	fmt.Fprintf(stderr, "streamtap: proxy on http://%s → %s (point the client's base URL here)\n", ln.Addr(), termtext.Safe(o.shownUpstream()))
	return p.Serve(ctx, ln)
}

// tuiSource is what the sessions list's status line says of the proxy:
// where it listens (and to whom it is open: the warning on stderr is
// behind the screen), and where it forwards.
func tuiSource(o proxyOptions, addr net.Addr) string {
	where := ""
	if e := exposure(addr); e != "" {
		where = " (open to " + e + ")"
	}
	return fmt.Sprintf("proxy http://%s%s → %s", addr, where, o.shownUpstream())
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
func runProxyTUI(ctx context.Context, o proxyOptions, ln net.Listener, out *os.File) error {
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
		Source:      tuiSource(o, ln.Addr()),
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
		serveErr = p.Serve(ctx, ln)
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
