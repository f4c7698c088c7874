package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/model/streamdiff"
	"github.com/streamtap/streamtap/ui/plain"
)

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

func noFlags(name string) func() *flag.FlagSet {
	return func() *flag.FlagSet { return newFlagSet(name) }
}

// newFlagSet makes the flag set of a command: errors are returned, never
// printed by the flag package, because exit reports them (usageError).
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(strings.TrimSpace("streamtap "+name), flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parseInterspersed parses flags wherever they stand among the positional
// arguments, so `streamtap calls x.sse --json` works like
// `streamtap calls --json x.sse`; the standard flag package stops at the
// first positional one. Everything after "--" is positional.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// flagError rewrites the flag package's messages to name flags the way
// the help does (--name, or -X for one letter). Other errors pass through.
func flagError(err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return "unknown flag " + dashed(name)
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return dashed(name) + " needs an argument"
	}
	if m := invalidFlagValue.FindStringSubmatch(msg); m != nil {
		return "invalid " + m[1] + "value " + m[2] + " for " + dashed(m[3]) + ": " + m[4]
	}
	return msg
}

// invalidFlagValue matches the flag package's `invalid value "x" for flag
// -name: reason` and `invalid boolean value "x" for -name: reason`.
var invalidFlagValue = regexp.MustCompile(`^invalid (boolean )?value (".*") for (?:flag )?-([^ :]+): (.*)$`)

// dashed writes a flag name as the help does: -X for one letter, --name
// otherwise (the flag package takes either).
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// options are the flags every reading command shares.
type options struct {
	format      capture.Format
	sample      string
	save        string
	saveTimed   string
	json        bool
	keepSecrets bool
	force       bool // --force: overwrite the files the output flags name
	input       string
	// inputs are every input named on the command line, for a command
	// that takes several (reader.many: check); input is the one when
	// there is exactly one.
	inputs      []string
	failOnName  namedFlag // check: --fail-on
	profileName namedFlag // check: --profile
	failOn      checks.Severity
	profile     checks.Profile
	allow       outcomeSet // check, request: outcomes that pass
	replay      float64    // replay: play the stream in the inspector at this speed
	explain     bool       // the inspector, timeline and events: explain each event
	lesson      bool       // the inspector: open in lesson mode
	reveal      bool       // the inspector: show the rows up to the selected event only
	session     int        // a HAR file's or a cassette's session to read (1-based), 0 for all
	saveHAR     string     // also write a HAR of what is read
	request     string     // check, calls, the inspector: the request body's file (--request)
	requestBody []byte     // its bytes, read by loadRequest
	// earlier is the exchange the stream continues, when an archive's
	// links say (an MCP GET that resumes a stream): see model.Earlier.
	earlier model.Earlier

	// The inspector's --diff B: the stream to compare the input with, and
	// what the comparison ignores.
	diff    string
	compare compareFlags

	// check's output and rules (check_suite.go).
	outputFormat string     // --output-format; --json is "json"
	followLinks  bool       // --follow-links: read links under a DIR that lead out of it
	quiet        bool       // --quiet: only what does not pass
	rules        *ruleFlags // --disable, --severity and --config
}

// readFlags defines the flags of the reading command r into o, the input
// format into format: the flags every reader takes, then r's own.
func readFlags(r *reader, o *options, format *string) *flag.FlagSet {
	fs := newFlagSet(r.name)
	fs.StringVar(format, "format", "auto", "read the input as `FORMAT`: sse, jsonl (one JSON object a line), http (curl -i output), json (one whole response), chunks (vercel/ai .chunks.txt), eventstream (AWS binary event stream: Bedrock), datastream (the AI SDK's v4 data stream, CODE:JSON lines), har, cassette (VCR YAML or JSON, ddapm-test-agent JSON), httprr (Go httprr trace, or .httprr.gz), or auto to detect it")
	fs.StringVar(&o.sample, "sample", "", "open the embedded sample `NAME` instead of a file ('streamtap samples' lists them)")
	fs.StringVar(&o.save, "save", "", "also write the bytes received, exactly, to `FILE`")
	fs.StringVar(&o.saveTimed, "save-timed", "", "also write a timed recording (each event with its arrival time) to `FILE`")
	fs.BoolVar(&o.keepSecrets, "keep-secrets", false, "do not redact credentials in HTTP headers")
	fs.IntVar(&o.session, "session", 0, "read only session `N` (from 1) of a HAR file or a cassette; without it every session is read in turn")
	fs.StringVar(&o.saveHAR, "save-har", "", "also write what is read as a HAR 1.2 file (SSE events as _eventSourceMessages) to `FILE`")
	forceFlag(fs, &o.force)
	if r.flags != nil {
		r.flags(fs, o)
	}
	return fs
}

// requestFlag defines --request, of the commands whose checks hold the
// calls to the request (check, the inspector), and of calls: an MCP
// stream's calls are in its request.
func requestFlag(fs *flag.FlagSet, o *options) {
	fs.StringVar(&o.request, "request", "", "the request body the stream answers, in `FILE` (JSON, any dialect): the checks hold the calls to it (arguments against each tool's schema, undeclared tools, tool_choice, parallel calls); an MCP tools/call request is the call itself")
}

// timelineExplainFlag defines --explain of the inspector and timeline.
func timelineExplainFlag(fs *flag.FlagSet, o *options) {
	fs.BoolVar(&o.explain, "explain", false, "explain each kind of event under its first occurrence in the plain timeline; the inspector opens with the explanation shown (x)")
}

// parseFlags parses the command line args of the reading command r.
func parseFlags(r *reader, args []string) (options, error) {
	var o options
	var format string
	fs := readFlags(r, &o, &format)
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return o, err
	}
	if len(positional) > 1 && !r.many {
		return o, fmt.Errorf("one input at a time (got %s)", strings.Join(positional, ", "))
	}
	if r.many {
		o.inputs = positional
	}
	if len(positional) > 0 && o.sample != "" {
		return o, fmt.Errorf("--sample %s and %s: give one input", o.sample, strings.Join(positional, ", "))
	}
	if len(positional) == 1 {
		o.input = positional[0]
		if name, ok := sampleOperand(o.input); ok {
			// sample:NAME where the FILE goes is --sample NAME.
			o.sample, o.input, o.inputs = name, "", nil
		}
	}
	f, err := capture.ParseFormat(format)
	if err != nil {
		return o, fmt.Errorf("--format: %w", err)
	}
	f = inputFormat(o.input, f)
	if err := distinctOutputs(o); err != nil {
		return o, err
	}
	if err := existingOutputs(o.force, [2]string{"--save", o.save}, [2]string{"--save-timed", o.saveTimed}, [2]string{"--save-har", o.saveHAR}); err != nil {
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

// forceFlag defines --force, of the commands that write files.
func forceFlag(fs *flag.FlagSet, force *bool) {
	fs.BoolVar(force, "force", false, "overwrite a file that --save, --save-timed or --save-har names when it exists and is not empty (without it the command refuses)")
}

// existingOutputs refuses, before anything is read or sent, an output
// file (flag, path) that exists and holds something, unless force:
// capture.CreateOutput would refuse it once the stream started.
func existingOutputs(force bool, outs ...[2]string) error {
	if force {
		return nil
	}
	for _, out := range outs {
		if st, err := os.Stat(out[1]); out[1] != "" && err == nil && st.Mode().IsRegular() && st.Size() > 0 {
			return existsError(out[0], &capture.ExistsError{Path: out[1], Size: st.Size()})
		}
	}
	return nil
}

// existsError says that flag's file exists, and how to overwrite it.
func existsError(flag string, ex *capture.ExistsError) error {
	return fmt.Errorf("%s %s: the file exists (%s); add --force to overwrite it", flag, ex.Path, plain.Bytes(ex.Size))
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

// outcomeSet is the value of --allow-outcome: outcome names, given as a
// comma-separated list, the flag repeatable. Its zero value is empty.
type outcomeSet struct{ names []string }

// namedFlag is a flag's word, and whether the command line gave it: a
// config file's value applies where it did not (check's --fail-on and
// --profile).
type namedFlag struct {
	value string
	set   bool
}

func (f *namedFlag) String() string {
	if f == nil {
		return ""
	}
	return f.value
}

func (f *namedFlag) Set(v string) error {
	f.value, f.set = v, true
	return nil
}

func (s *outcomeSet) String() string {
	if s == nil {
		return ""
	}
	return strings.Join(s.names, ",")
}

// Set adds the outcomes of a comma-separated list; a name that is not an
// outcome is an error.
func (s *outcomeSet) Set(v string) error {
	for name := range strings.SplitSeq(v, ",") {
		name = strings.TrimSpace(name)
		if !slices.Contains(outcomeNames, name) {
			return fmt.Errorf("%q is not an outcome (want %s)", name, strings.Join(outcomeNames, ", "))
		}
		if !s.has(name) {
			s.names = append(s.names, name)
		}
	}
	return nil
}

func (s *outcomeSet) has(name string) bool { return s != nil && slices.Contains(s.names, name) }

// compareFlags say what a comparison ignores: the --strict and --ignore of
// diff, which the inspector's --diff shares.
type compareFlags struct {
	strict bool
	ignore []string
}

// define defines --strict and --ignore into fs; their help starts with
// when, "" or "with --diff: ".
func (c *compareFlags) define(fs *flag.FlagSet, when string) {
	fs.BoolVar(&c.strict, "strict", false, when+"ignore nothing by default: ids, timestamps, obfuscation, sequence-number offsets, keep-alives and timing all count, and so do the bytes of arguments equal as JSON across dialects")
	fs.Var(listFlag{&c.ignore}, "ignore", when+"also ignore `NAMES`, a comma-separated list of JSON member names or kinds of difference; may be repeated")
}

// options are the comparison's options: the default ignore list (none
// with --strict) and the names --ignore adds; across dialects arguments
// equal as JSON are the same unless --strict.
func (c compareFlags) options() streamdiff.Options {
	names := streamdiff.DefaultIgnore()
	if c.strict {
		names = nil
	}
	return streamdiff.Options{Ignore: streamdiff.NewIgnore(append(names, c.ignore...)...), ArgsAsJSONAcrossDialects: !c.strict}
}

// listFlag is a repeatable flag whose value is a comma-separated list.
type listFlag struct{ items *[]string }

func (l listFlag) String() string {
	if l.items == nil {
		return ""
	}
	return strings.Join(*l.items, ",")
}

func (l listFlag) Set(v string) error {
	for item := range strings.SplitSeq(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			*l.items = append(*l.items, item)
		}
	}
	return nil
}
