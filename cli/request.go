package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/charmbracelet/x/term"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/proxy"
	"github.com/streamtap/streamtap/termtext"
)

// The command's help: under its usage line, and after its flags.
const (
	requestAbout = `Makes one HTTP request and inspects the response as it streams: the
inspector on a terminal, the plain timeline otherwise, or the calls report
with --json. $VAR and ${VAR} in -H values are read from the environment, so
keys stay out of shell history.
`
	requestExits = `exit codes: 0 a 2xx status and an outcome that passes; 1 an HTTP error
status, or an outcome of error, failed, blocked, truncated or empty (unless
--allow-outcome); 2 bad usage, no response, or a connection that broke
mid-stream
`
)

// headerFlags collects repeated -H values.
type headerFlags []string

func (h *headerFlags) String() string     { return strings.Join(*h, ", ") }
func (h *headerFlags) Set(v string) error { *h = append(*h, v); return nil }

type requestOptions struct {
	method  string
	url     string
	headers headerFlags
	data    string
	hasData bool
	timeout time.Duration
	timed   string // --save-timed FILE
	// location follows redirects (-L, --location); trusted also sends
	// credentials and a 307/308 body to other origins.
	location, trusted bool
	base              options
}

// requestFlags defines request's flags into o; -d and --format, read
// after parsing, go to the returned strings.
func requestFlags(o *requestOptions) (fs *flag.FlagSet, data, format *string) {
	fs = newFlagSet("request")
	fs.StringVar(&o.method, "X", "", "the HTTP `METHOD` (default GET, or POST with -d)")
	fs.Var(&o.headers, "H", "add the header `'Name: value'`; $VAR and ${VAR} in the value are read from the environment; may be repeated")
	data = fs.String("d", "", "send `BODY` as the request body: literal text, @FILE, or @- for stdin (Content-Type: application/json unless -H sets one)")
	follow := "follow redirects, as curl -L does: without it a 3xx is the response; credential headers and a 307/308 request body are not sent to another origin (scheme, host or port)"
	fs.BoolVar(&o.location, "L", false, follow)
	fs.BoolVar(&o.location, "location", false, "the same as -L")
	fs.BoolVar(&o.trusted, "location-trusted", false, "follow redirects and send the credential headers and the request body to other origins too, as curl --location-trusted does")
	fs.DurationVar(&o.timeout, "timeout", 0, "give up when the exchange takes longer than `DURATION`, e.g. 30s (0: never)")
	fs.BoolVar(&o.base.json, "json", false, "print the calls report as one JSON object instead of the inspector or timeline")
	fs.StringVar(&o.base.save, "save", "", "also write the response body, exactly, to `FILE`")
	fs.StringVar(&o.timed, "save-timed", "", "also write a timed recording of the exchange (request, head, each event's arrival time) to `FILE`")
	fs.BoolVar(&o.base.keepSecrets, "keep-secrets", false, "do not redact credentials in the URL, the recording and the views")
	fs.BoolVar(&o.base.force, "force", false, "overwrite a file that --save or --save-timed names when it exists and is not empty (without it request refuses, before it sends anything)")
	format = fs.String("format", "auto", "read the response body as `FORMAT`: sse, jsonl, http, json, or auto to go by its Content-Type")
	fs.Var(&o.base.allow, "allow-outcome", "exit 0 on the stream's `OUTCOMES` too, a comma-separated list of error, failed, blocked, truncated, empty; may be repeated")
	return fs, data, format
}

func parseRequestArgs(args []string) (requestOptions, error) {
	var o requestOptions
	fs, data, format := requestFlags(&o)
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return o, err
	}
	fs.Visit(func(f *flag.Flag) { o.hasData = o.hasData || f.Name == "d" })
	if len(positional) != 1 {
		return o, errors.New("request takes one URL")
	}
	o.url, o.data = positional[0], *data
	if !strings.HasPrefix(o.url, "http://") && !strings.HasPrefix(o.url, "https://") {
		u := o.url
		if !o.base.keepSecrets {
			u = capture.RedactURL(u)
		}
		return o, fmt.Errorf("request %q: want an http:// or https:// URL", u)
	}
	o.location = o.location || o.trusted
	if err := distinctOutputs(options{save: o.base.save, saveTimed: o.timed}); err != nil {
		return o, err
	}
	if err := existingOutputs(o.base.force, [2]string{"--save", o.base.save}, [2]string{"--save-timed", o.timed}); err != nil {
		return o, err
	}
	f, err := capture.ParseFormat(*format)
	if err != nil {
		return o, err
	}
	if f.IsArchive() {
		return o, fmt.Errorf("--format %s reads a file of several exchanges; a response is one stream", f)
	}
	o.base.format = f
	if o.method == "" {
		o.method = http.MethodGet
		if o.hasData {
			o.method = http.MethodPost
		}
	}
	return o, nil
}

// expandEnv replaces $NAME and ${NAME} in a header value with the
// variable's value, so keys stay out of the command line and shell
// history. A variable that is not set is an error, not an empty key.
func expandEnv(v string) (string, error) {
	var missing []string
	out := os.Expand(v, func(name string) string {
		val, ok := os.LookupEnv(name)
		if !ok {
			missing = append(missing, name)
		}
		return val
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("environment variable %s is not set", strings.Join(missing, ", "))
	}
	return out, nil
}

// requestBody reads -d: literal text, @file, or @- for stdin. Stdin on a
// terminal is read like cat reads it, after a hint on stderr, until
// ctrl+d; a shutdown signal (ctx) ends the read, on a terminal or a pipe.
func requestBody(ctx context.Context, d string, stdin *os.File, stderr io.Writer) ([]byte, error) {
	name, ok := strings.CutPrefix(d, "@")
	switch {
	case !ok:
		return []byte(d), nil
	case name == "-":
		if isTerminal(stdin) {
			fmt.Fprintln(stderr, "streamtap: reading the request body from the terminal; end it with ctrl+d (ctrl+c cancels)")
		}
		r, done := capture.Interruptible(ctx, stdin)
		defer done()
		return io.ReadAll(r)
	}
	return os.ReadFile(name)
}

// requestCommand makes one request and inspects its response.
func requestCommand() command {
	return command{name: "request", args: "URL", summary: "make a request and inspect its response", about: requestAbout, exits: requestExits,
		flags: func() *flag.FlagSet { fs, _, _ := requestFlags(new(requestOptions)); return fs }, run: runRequest,
		noSample: "request takes no --sample: it makes its own request (open a sample with streamtap --sample NAME, or play it with streamtap replay --sample NAME)"}
}

// runRequest makes one HTTP request and streams the response into the
// inspector (a terminal) or the plain timeline. The exit status is the
// outcome: 0 for a 2xx status and a stream that ended well, 1 for an HTTP
// error status or a stream that failed or was cut, 2 for bad usage or no
// response at all.
func runRequest(ctx context.Context, args []string, stdin *os.File, stdout, stderr io.Writer) error {
	o, err := parseRequestArgs(args)
	if err != nil {
		return usageError("request", err)
	}
	var body []byte
	if o.hasData {
		if body, err = requestBody(ctx, o.data, stdin, stderr); err != nil {
			if errors.Is(err, context.Canceled) {
				return readError(err)
			}
			return fmt.Errorf("-d: %w", err)
		}
	}
	if o.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.timeout)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(ctx, o.method, o.url, bytes.NewReader(body))
	if err != nil {
		return redactURLError(err, o.base.keepSecrets)
	}
	if !o.hasData {
		req.Body, req.ContentLength = http.NoBody, 0
	}
	for _, h := range o.headers {
		name, value, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return fmt.Errorf("-H %q: want 'Name: value'", h)
		}
		v, err := expandEnv(strings.TrimSpace(value))
		if err != nil {
			return fmt.Errorf("-H %s: %w", strings.TrimSpace(name), err)
		}
		req.Header.Add(strings.TrimSpace(name), v)
	}
	if o.hasData && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json") // LLM APIs take JSON
	}
	if req.Header.Get("Accept") == "" {
		req.Header.Set("Accept", "text/event-stream, application/json")
	}
	// The recording's file is made before the request is sent: one that
	// cannot be made costs no request (and no tokens).
	var timed *capture.Output
	if o.timed != "" {
		if timed, err = createOutput("--save-timed", o.timed, o.base.force); err != nil {
			return err
		}
		defer timed.Close()
	}
	start := time.Now()
	redirects := &redirectPolicy{follow: o.location, trusted: o.trusted, keep: o.base.keepSecrets}
	client := &http.Client{CheckRedirect: redirects.check}
	resp, err := client.Do(req)
	for _, n := range redirects.notes {
		fmt.Fprintf(stderr, "streamtap: %s\n", n)
	}
	if err != nil {
		if resp != nil {
			resp.Body.Close()
		}
		if timed != nil && timed.Size() == 0 {
			timed.Close()
			_ = os.Remove(o.timed) // made for a response that never came
		}
		state, _ := proxy.Classify(context.Background(), err)
		return fmt.Errorf("%s: %w", state, redactURLError(err, o.base.keepSecrets))
	}
	defer resp.Body.Close()
	headAt := time.Since(start)

	// The request that answered: the first, or the last redirect
	// followed. Its URL names the source, and the recording holds it.
	answered, answeredURL := resp.Request, resp.Request.URL.String()
	if answered == req {
		answeredURL = o.url // as typed
	}
	name := answered.Method + " " + redirects.url(answeredURL)
	sent := body
	if answered != req && answered.ContentLength == 0 {
		sent = nil // a 301, 302 or 303 turned it into a GET
	}
	src := capture.FromReader(name, capture.SourceHTTP, resp.Body, true)
	src.SetStart(start)
	// The exchange carries the request body: the inspector's checks hold
	// the calls to it.
	x := &capture.Exchange{Started: start, Method: answered.Method, URL: answeredURL, RequestHeader: answered.Header,
		RequestBody: sent, Proto: resp.Proto, Status: resp.StatusCode, ResponseHeader: resp.Header, HeadAt: headAt}
	src.Exchange = x
	if o.base.format == capture.FormatAuto {
		o.base.format = capture.HeadFormat(resp.Header)
	}
	if timed != nil {
		src.Record(capture.NewRecorder(timed, x, capture.RecordOptions{Format: capture.RecordFormat(o.base.format), KeepSecrets: o.base.keepSecrets}))
	}
	fmt.Fprintf(stderr, "streamtap: %s → %s %s (%.3fs)\n", termtext.Safe(name), termtext.Safe(resp.Proto), termtext.Safe(resp.Status), headAt.Seconds())

	var s *model.Session
	switch f, ok := stdout.(*os.File); {
	case o.base.json:
		s, err = requestCalls(ctx, src, o.base, stdout)
	case ok && term.IsTerminal(f.Fd()):
		err = viewOrTimeline(ctx, src, o.base, stdout, stderr)
	default:
		s, err = timelineSession(ctx, src, o.base, 0, stdout)
	}
	if err != nil {
		return err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return exitStatus(statusFailed)
	}
	if s != nil {
		if state := s.Outcome().State; outcomeFails(state, o.base.allow) {
			return &exitError{status: statusFailed, err: fmt.Errorf("outcome %s fails the request (allow it with --allow-outcome %s)", state, state)}
		}
	}
	return nil
}

// requestShown is what the inspector's request pane shows of the request
// `streamtap request` made (src.Exchange), or nil for any other source.
// The pane redacts credentials unless --keep-secrets.
func requestShown(src *capture.Source) *model.Exchange {
	x := src.Exchange
	if src.Kind != capture.SourceHTTP || x == nil {
		return nil
	}
	path := x.URL
	if u, err := url.Parse(x.URL); err == nil {
		path = u.RequestURI()
	}
	r := model.ParseRequest(x.RequestBody, path)
	shown := &model.Request{Header: x.RequestHeader, Size: len(x.RequestBody), Tools: r.Tools, ToolChoice: r.ToolChoice,
		Parallel: r.Parallel, Previous: r.Previous, Outputs: r.Outputs, RPC: r.RPC}
	if len(x.RequestBody) == 0 || !r.Parsed {
		shown = nil // the pane says the body is empty or not JSON
	}
	return &model.Exchange{Exchange: *x, Path: path, Model: r.Model, Request: shown}
}

// requestCalls prints the calls report as JSON and returns the session.
func requestCalls(ctx context.Context, src *capture.Source, o options, stdout io.Writer) (*model.Session, error) {
	s, err := readStream(ctx, src, o, model.Options{}, nil)
	w := bufio.NewWriter(stdout)
	_ = s.WriteReportJSON(w) // what calls --json writes
	if werr := w.Flush(); werr != nil && err == nil {
		err = werr
	}
	return s, readError(err)
}
