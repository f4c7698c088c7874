// Command streamtap inspects LLM tool-call streams: OpenAI Responses and
// Chat Completions, Anthropic Messages and Gemini, as Server-Sent Events,
// JSON lines, `curl -i` output or whole JSON responses.
//
// main only wires: it parses flags, picks the source, runs the capture into
// the model and hands the result to a view.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"unicode/utf8"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/ingest"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/jsonscan"
	"github.com/streamtap/streamtap/samples"
	"github.com/streamtap/streamtap/ui"
)

func main() {
	ctx, stop := notifyShutdown()
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// inspectorCommand is the bare `streamtap [FILE|-]`.
func inspectorCommand() command {
	c := readingCommand("", "", inspectorAbout)
	c.exits = inspectorExits
	return c
}

// readingCommand is a command that reads one stream: the inspector,
// timeline, calls and events.
func readingCommand(name, summary, about string) command {
	return command{
		name: name, args: "[FILE|-]", summary: summary, about: about,
		flags: func() *flag.FlagSet { return readFlags(name, new(options), new(string)) },
		run: func(ctx context.Context, args []string, stdin *os.File, stdout, stderr io.Writer) int {
			return runReading(ctx, name, args, stdin, stdout, stderr)
		},
	}
}

// runReading runs a command that reads one stream (cmd is "" for the
// inspector) and returns its exit code.
func runReading(ctx context.Context, cmd string, args []string, stdin *os.File, stdout, stderr io.Writer) int {
	opts, err := parseFlags(cmd, args)
	if err != nil {
		return parseFailed(cmd, err, stdout, stderr)
	}
	if err := opts.loadRequest(); err != nil {
		printError(stderr, err)
		return 2
	}
	if cmd == "" && opts.diff != "" {
		return runDiffView(ctx, opts, stdin, stdout, stderr)
	}
	if cmd == "" && opts.sample == "" && opts.input == "-" && isTerminal(stdin) && isTerminal(stdout) {
		// The inspector would read keys and the stream from one terminal.
		return waitForPipe(ctx, stdin, stdout)
	}
	ar, err := loadArchive(opts, stdin)
	if err != nil {
		printError(stderr, err)
		return 2
	}
	if ar != nil {
		return runArchive(ctx, cmd, ar, opts, stdout, stderr, func(src *capture.Source, o options, w io.Writer) int {
			return readSource(ctx, cmd, src, o, w, stderr)
		})
	}
	if opts.session > 0 {
		return usageFailed(cmd, errors.New("--session N chooses a session of a HAR file or a cassette; this input is one stream"), stderr)
	}
	src, err := openSource(ctx, opts, stdin, stderr, cmd == "" || cmd == "timeline")
	if err != nil {
		printError(stderr, err)
		return 2
	}
	defer src.Close()
	if opts.saveHAR != "" {
		closeHAR, err := saveHAR(src, nil, opts)
		if err != nil {
			printError(stderr, err)
			return 2
		}
		defer closeHAR()
	}
	return readSource(ctx, cmd, src, opts, stdout, stderr)
}

// readSource runs a reading command (cmd is "" for the inspector) on one
// stream and returns its exit code.
func readSource(ctx context.Context, cmd string, src *capture.Source, opts options, stdout, stderr io.Writer) int {
	if opts.saveTimed != "" {
		closeRec, err := saveTimed(src, opts)
		if err != nil {
			printError(stderr, err)
			return 2
		}
		defer closeRec()
	}
	if cmd != "" && cmd != "timeline" {
		keepHeapNear(headlessHeap)
	}
	switch cmd {
	case "calls":
		return runCalls(ctx, src, opts, stdout, stderr)
	case "events":
		return runEvents(ctx, src, opts, stdout, stderr)
	default:
		return viewOrTimeline(ctx, cmd, src, opts, stdout, stderr)
	}
}

// options are the flags every reading command shares.
type options struct {
	format      capture.Format
	sample      string
	save        string
	saveTimed   string
	json        bool
	keepSecrets bool
	input       string
	failOn      string     // check
	profile     string     // check
	allow       outcomeSet // check, request: outcomes that pass
	replay      float64    // replay: play the stream in the inspector at this speed
	explain     bool       // the inspector, timeline and events: explain each event
	session     int        // a HAR file's or a cassette's session to read (1-based), 0 for all
	saveHAR     string     // also write a HAR of what is read
	request     string     // check, the inspector: the request body's file (--request)
	requestBody []byte     // its bytes, read by loadRequest

	// The inspector's --diff B: the stream to compare the input with, and
	// what the comparison ignores.
	diff    string
	compare compareFlags
}

// readFlags defines the flags of the reading command name (and check)
// into o, the input format into format.
func readFlags(name string, o *options, format *string) *flag.FlagSet {
	fs := newFlagSet(name)
	fs.StringVar(format, "format", "auto", "read the input as `FORMAT`: sse, jsonl (one JSON object a line), http (curl -i output), json (one whole response), chunks (vercel/ai .chunks.txt), eventstream (AWS binary event stream: Bedrock), har, cassette (VCR YAML), or auto to detect it")
	fs.StringVar(&o.sample, "sample", "", "open the embedded sample `NAME` instead of a file ('streamtap samples' lists them)")
	fs.StringVar(&o.save, "save", "", "also write the bytes received, exactly, to `FILE`")
	fs.StringVar(&o.saveTimed, "save-timed", "", "also write a timed recording (each event with its arrival time) to `FILE`")
	fs.BoolVar(&o.keepSecrets, "keep-secrets", false, "do not redact credentials in HTTP headers")
	fs.IntVar(&o.session, "session", 0, "read only session `N` (from 1) of a HAR file or a cassette; without it every session is read in turn")
	fs.StringVar(&o.saveHAR, "save-har", "", "also write what is read as a HAR 1.2 file (SSE events as _eventSourceMessages) to `FILE`")
	switch name {
	case "", "check":
		fs.StringVar(&o.request, "request", "", "hold the calls to the request body in `FILE` (JSON, any dialect): arguments against each tool's schema, undeclared tools, tool_choice, parallel calls")
	}
	switch name {
	case "", "timeline":
		fs.BoolVar(&o.explain, "explain", false, "explain each kind of event under its first occurrence in the plain timeline; the inspector opens with the explanation shown (x)")
		if name == "" {
			fs.StringVar(&o.diff, "diff", "", "compare the input (A) with stream `B`, a FILE or sample:NAME, side by side; not on a terminal, print the report of 'streamtap diff A B'")
			o.compare.define(fs, "with --diff: ")
		}
	case "events":
		fs.BoolVar(&o.explain, "explain", false, `add an "explain" object to each line: the event's shape and what the protocol says about it`)
	case "calls":
		fs.BoolVar(&o.json, "json", false, "print one JSON object (a contract: fields are added, never renamed) instead of text")
	case "check":
		fs.BoolVar(&o.json, "json", false, `print one JSON object {"outcome", "findings", "pass"} instead of text`)
		fs.StringVar(&o.failOn, "fail-on", "error", "fail on a finding at or above `SEVERITY`: error, warning or info")
		fs.StringVar(&o.profile, "profile", "strict", "judge by `PROFILE`: strict (the official contract) or tolerant (legal variations and common vendor habits are info)")
		fs.Var(&o.allow, "allow-outcome", "let the stream's `OUTCOMES` pass, a comma-separated list of error, failed, blocked, truncated, empty (completed, incomplete and closed always pass); may be repeated")
	}
	return fs
}

func parseFlags(cmd string, args []string) (options, error) {
	var o options
	var format string
	fs := readFlags(cmd, &o, &format)
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return o, err
	}
	if len(positional) > 1 {
		return o, fmt.Errorf("one input at a time (got %s)", strings.Join(positional, ", "))
	}
	if len(positional) == 1 {
		o.input = positional[0]
	}
	if o.input != "" && o.sample != "" {
		return o, fmt.Errorf("--sample %s and %s: give one input", o.sample, o.input)
	}
	f, err := capture.ParseFormat(format)
	if err != nil {
		return o, fmt.Errorf("--format: %w", err)
	}
	f = inputFormat(o.input, f)
	if err := distinctOutputs(o); err != nil {
		return o, err
	}
	if o.session < 0 || o.session == 0 && isSet(fs, "session") {
		return o, fmt.Errorf("--session %d: sessions count from 1", o.session)
	}
	o.format = f
	return o, nil
}

// distinctOutputs refuses an output file (--save, --save-timed,
// --save-har) that is the input, the --request file or another output:
// creating it would empty the input before it is read, or two writers
// would interleave in one file.
func distinctOutputs(o options) error {
	type file struct{ what, path string }
	outs := []file{{"--save", o.save}, {"--save-timed", o.saveTimed}, {"--save-har", o.saveHAR}}
	others := []file{{"the input", o.input}, {"--request", o.request}}
	for i, out := range outs {
		if out.path == "" {
			continue
		}
		for _, other := range append(others, outs[:i]...) {
			if other.path != "" && other.path != "-" && sameFile(out.path, other.path) {
				return fmt.Errorf("%s %s is also %s: it would be overwritten", out.what, out.path, other.what)
			}
		}
	}
	return nil
}

// sameFile says whether paths a and b name one file that writing to
// either would clobber: one regular file, or one path not created yet.
// Devices (/dev/null) are never the same in this sense.
func sameFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	switch {
	case errA == nil && errB == nil:
		return sa.Mode().IsRegular() && os.SameFile(sa, sb)
	case errA != nil && errB != nil:
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return false
}

// isSet says whether the command line set the flag name of fs.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// inputFormat is the format to read path with when the flags say f: a
// file named .chunks.txt is one of vercel/ai's fixtures, named so.
func inputFormat(path string, f capture.Format) capture.Format {
	if f == capture.FormatAuto && strings.HasSuffix(path, ".chunks.txt") {
		return capture.FormatChunks
	}
	return f
}

// openSource resolves the input: a sample, a file, "-" or a piped stdin,
// or (for the viewer only) the demo sample when there is no input at all.
// "-" on a terminal reads what is typed until ctrl+d, like cat, after a
// hint on stderr; ctrl+c (ctx) ends the read at once.
func openSource(ctx context.Context, o options, stdin *os.File, stderr io.Writer, demo bool) (*capture.Source, error) {
	switch {
	case o.sample != "":
		return sampleSource(o.sample)
	case o.input == "-" && isTerminal(stdin):
		fmt.Fprintln(stderr, terminalStdinHint)
		return capture.FromReader("stdin", capture.SourceStdin, newCancelableReader(ctx, stdin), true), nil
	case o.input != "":
		return capture.Open(o.input, stdin)
	case capture.IsPipe(stdin):
		return capture.Open("-", stdin)
	case demo:
		return sampleSource(samples.Default)
	}
	return nil, errors.New("no input: give a FILE, '-' for stdin, or pipe a stream in")
}

func sampleSource(name string) (*capture.Source, error) {
	data, err := samples.Open(name)
	if err != nil {
		return nil, err
	}
	return capture.FromReader("sample "+strings.TrimSuffix(name, ".sse"), capture.SourceSample, bytes.NewReader(data), false), nil
}

// readStream reads the source into a session, calling each after every
// event. The session is never nil: when --save cannot be created it is
// empty and ended with the error.
func readStream(ctx context.Context, src *capture.Source, o options, opt model.Options,
	each func(s *model.Session, ev *model.Event, ord int, f *capture.Frame) error) (*model.Session, error) {
	if opt.Raw == nil {
		opt.Raw = src.ReaderAt()
	}
	s := model.NewSession(opt)
	ropt := capture.ReadOptions{Format: o.format}
	if o.save != "" {
		save, err := os.Create(o.save)
		if err != nil {
			err = fmt.Errorf("save: %w", err)
			s.End(err)
			return s, err
		}
		defer save.Close()
		ropt.Save = save
	}
	var added func(ev *model.Event, ord int, f *capture.Frame) error
	if each != nil {
		added = func(ev *model.Event, ord int, f *capture.Frame) error { return each(s, ev, ord, f) }
	}
	keepRaw := each != nil || opt.Observer != nil
	err := ingest.Session(ctx, src, ropt, s, nil, added, keepRaw, runtime.GOMAXPROCS(0) > 1)
	s.End(err)
	return s, err
}

// exitInterrupted is the exit code after ctrl+c, as shells report a
// command killed by SIGINT (128 + 2).
const exitInterrupted = 130

// readFailed reports a read error in one line and returns exit code 2, or
// exitInterrupted when the read was interrupted (ctrl+c).
func readFailed(stderr io.Writer, err error) int {
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(stderr, "streamtap: interrupted")
		return exitInterrupted
	}
	printError(stderr, err)
	return 2
}

func runCalls(ctx context.Context, src *capture.Source, o options, stdout, stderr io.Writer) int {
	s, err := readStream(ctx, src, o, model.Options{}, nil)
	if err != nil && s.Len() == 0 {
		return readFailed(stderr, err)
	}
	w := bufio.NewWriter(stdout)
	if o.json {
		_ = s.WriteReportJSON(w)
	} else {
		_ = ui.WriteCalls(w, s.Report())
	}
	if werr := w.Flush(); werr != nil {
		return readFailed(stderr, werr)
	}
	if err != nil {
		return readFailed(stderr, err)
	}
	return 0
}

func runEvents(ctx context.Context, src *capture.Source, o options, stdout, stderr io.Writer) int {
	w := bufio.NewWriter(stdout)
	// The data is the event's JSON as it came: escape what a terminal
	// would obey and the bytes that are not UTF-8.
	enc := json.NewEncoder(&safeJSONWriter{w: w})
	enc.SetEscapeHTML(false)
	_, err := readStream(ctx, src, o, model.Options{}, func(s *model.Session, ev *model.Event, ord int, f *capture.Frame) error {
		line := ui.NewEventLine(s, ev, ord, f, o.keepSecrets)
		if o.explain {
			line.Explain = ui.NewExplainJSON(s, ev, ord, f.Data)
		}
		if err := enc.Encode(line); err != nil {
			return err
		}
		if src.Timed {
			return w.Flush() // a live stream shows each event as it arrives
		}
		return nil
	})
	if werr := w.Flush(); werr != nil && err == nil {
		err = werr
	}
	if err != nil {
		return readFailed(stderr, err)
	}
	return 0
}

// safeJSONWriter passes JSON text to w through jsonscan.AppendSafe, 64
// KiB at a time so that a big event is never copied whole. Each Write
// must hold whole JSON texts, as json.Encoder writes them: pieces are cut
// before a rune start, which escape to the same bytes as the whole.
type safeJSONWriter struct {
	w       io.Writer
	scratch []byte
}

func (s *safeJSONWriter) Write(p []byte) (int, error) {
	const piece = 64 << 10
	for j := p; len(j) > 0; {
		cut := min(len(j), piece)
		for cut < len(j) && !utf8.RuneStart(j[cut]) {
			cut++
		}
		s.scratch = jsonscan.AppendSafe(s.scratch[:0], j[:cut])
		if _, err := s.w.Write(s.scratch); err != nil {
			return 0, err
		}
		j = j[cut:]
	}
	return len(p), nil
}

// runTimeline prints the plain timeline, each line as its event arrives.
func runTimeline(ctx context.Context, src *capture.Source, o options, stdout, stderr io.Writer) int {
	code, _ := timelineSession(ctx, src, o, 0, stdout, stderr)
	return code
}

// listSamples prints the embedded samples, one line each: name, lesson.
func listSamples(stdout io.Writer) int {
	w := bufio.NewWriter(stdout)
	for _, s := range samples.List() {
		fmt.Fprintf(w, "%-32s %s\n", s.Name, s.Lesson)
	}
	if err := w.Flush(); err != nil {
		return 2
	}
	return 0
}
