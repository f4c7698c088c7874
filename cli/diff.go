package cli

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/streamdiff"
	"github.com/streamtap/streamtap/ui/plain"
)

const (
	diffAbout = `Compares two streams of the same request — an official API's and a
gateway's, or two runs — and reports how they differ. A and B are each a
FILE, - for stdin (one of them at most), or sample:NAME for an embedded
sample.

Streams are aligned by response, item (call, message, reasoning) and event
type, not by byte position: events present in one stream only, events in
another order, fields that differ (with their JSON path), deltas cut into a
different number of events, sequence numbers out of step, and the assembled
calls (arguments compared as JSON and as bytes), text and outcome. Timing
is shown when both streams carry arrival times.

Two dialects (Chat and Responses for one request; the provider's stream
and the one an app built on it sends its client) are compared by what a
client of each ends up with, step by step: calls (by id, then by name
and order; arguments as JSON values), text, reasoning and outcome.
streamtap diff PROVIDER… APP compares the provider's streams of an app's
turn, one per step (files, a folder of recordings or a HAR), with the
app's one stream.

%s
--ignore adds names (JSON members, matched at any depth, or kinds of
difference such as reordered or chunking); --strict starts from nothing.
`
	diffExits = `exit codes: 0 equivalent (no difference beyond the ignored ones), 1 they
differ, 2 unreadable input or bad usage
`
)

// diffCommand compares two streams of one request.
func diffCommand() command {
	return command{
		name: "diff", args: "A B  |  PROVIDER… APP", summary: "compare two streams, or an app's with its provider's (exit 1 when they differ)",
		about: fmt.Sprintf(diffAbout, strings.Join(wrap(strings.Fields("Ignored unless told otherwise: "+strings.Join(streamdiff.DefaultIgnore(), ", ")+"."), helpWidth), "\n")), exits: diffExits,
		flags:    func() *flag.FlagSet { return diffFlags(new(diffOptions)) },
		run:      runDiff,
		noSample: "diff takes no --sample: name a sample as sample:NAME, e.g. streamtap diff sample:responses-single-call B.sse",
	}
}

type diffOptions struct {
	json    bool
	compare compareFlags
	format  string
}

func diffFlags(o *diffOptions) *flag.FlagSet {
	fs := newFlagSet("diff")
	fs.BoolVar(&o.json, "json", false, `print one JSON object {"equal", "mode", "a", "b", "timing", "counts", "differences", …} instead of text`)
	o.compare.define(fs, "")
	fs.StringVar(&o.format, "format", "auto", "read both inputs as `FORMAT`: sse, jsonl, http, json, or auto to detect each")
	return fs
}

// runDiff implements `streamtap diff A B`.
func runDiff(ctx context.Context, args []string, stdin *os.File, stdout, stderr io.Writer) error {
	var o diffOptions
	positional, err := parseInterspersed(diffFlags(&o), args)
	if err != nil {
		return usageError("diff", err)
	}
	format, err := capture.ParseFormat(o.format)
	if err != nil {
		return usageError("diff", fmt.Errorf("--format: %w", err))
	}
	switch {
	case len(positional) < 2:
		return usageError("diff", fmt.Errorf("diff takes two streams, A and B (got %d)", len(positional)))
	case countOf(positional, "-") > 1:
		return usageError("diff", errors.New("only one of A and B can be - (stdin)"))
	}
	warnUnmatchedIgnores("streamtap diff", o.compare.ignore, positional, stderr)
	if len(positional) > 2 || severalStreams(ctx, positional[0], format, stdin) {
		return diffLegs(ctx, positional, format, o.compare.options(), o.json, stdin, stdout, stderr)
	}
	return diffStreams(ctx, [2]string(positional), format, o.compare.options(), o.json, stdin, stdout, stderr)
}

// countOf counts the strings of list equal to s.
func countOf(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}

// diffStreams compares streams a and b (each a file, - or sample:NAME)
// and prints the report, as JSON when asJSON; it ends as diff does: exit
// status 1 when they differ, error lines naming diff.
func diffStreams(ctx context.Context, args [2]string, format capture.Format, opts streamdiff.Options, asJSON bool,
	stdin *os.File, stdout, stderr io.Writer) error {
	keepHeapNear(diffHeap)
	sides, closers, err := readDiffSides(ctx, args[:], format, opts.Ignore, stdin, stderr)
	for _, closeSide := range closers {
		// The files stay open until the end: fields of events that differ
		// are read back from them.
		defer closeSide()
	}
	if err != nil {
		return commandError("diff", readError(err))
	}
	res := streamdiff.Compare(sides[0], sides[1], opts)
	return writeDiff(res, asJSON, stdout)
}

// writeDiff writes a comparison as JSON or as the report, and says by the
// exit status whether the two sides differ.
func writeDiff(res *streamdiff.Result, asJSON bool, stdout io.Writer) error {
	w := bufio.NewWriter(stdout)
	var err error
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		err = enc.Encode(res)
	} else {
		err = plain.WriteDiff(w, res, plain.DiffStyle{Color: isTerminal(stdout) && os.Getenv("NO_COLOR") == ""})
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		return commandError("diff", fmt.Errorf("write: %w", err))
	}
	if !res.Equal() {
		return exitStatus(statusFailed)
	}
	return nil
}

// readDiffSides reads both operands, at the same time when there are two
// cores: each read frames on one goroutine and assembles on another, and
// one stream alone does not keep two cores busy. It returns the sides and
// the functions that close their sources, even on error.
func readDiffSides(ctx context.Context, args []string, format capture.Format, ig streamdiff.Ignore,
	stdin *os.File, stderr io.Writer) ([2]*streamdiff.Side, []func(), error) {
	var sides [2]*streamdiff.Side
	var closers [2]func()
	var errs [2]error
	// With two cores the sides are read at once, each on one goroutine:
	// framing each on a goroutine of its own as well would add the cost
	// of handing its frames over, with no core left to run it on.
	pipe := runtime.GOMAXPROCS(0) > 2
	read := func(i int) {
		sides[i], closers[i], errs[i] = readDiffSide(ctx, args[i], format, model.Options{}, ig, pipe, stdin, stderr)
		if errs[i] != nil {
			errs[i] = fmt.Errorf("%s: %w", "AB"[i:i+1], errs[i])
		}
	}
	if runtime.GOMAXPROCS(0) > 1 {
		var wg sync.WaitGroup
		wg.Go(func() { read(1) })
		read(0)
		wg.Wait()
	} else {
		read(0)
		if errs[0] == nil {
			read(1)
		}
	}
	var out []func()
	for _, c := range closers {
		if c != nil {
			out = append(out, c)
		}
	}
	return sides, out, cmp.Or(errs[0], errs[1])
}

// readDiffSide reads one operand of diff into a session made with base
// (the inspector's keeps its events and is checked too) and a recorder
// attached. Its bytes must be readable again for the fields of events
// that differ: a file is read back from the file, a sample from memory,
// and stdin is kept in memory as it is read. The caller closes the source
// with the function returned once it no longer reads the side (a source
// only read has nothing to lose on close).
func readDiffSide(ctx context.Context, arg string, format capture.Format, base model.Options, ig streamdiff.Ignore, pipe bool,
	stdin *os.File, stderr io.Writer) (*streamdiff.Side, func(), error) {
	var src *capture.Source
	var raw io.ReaderAt
	switch name, isSample := sampleOperand(arg); {
	case isSample:
		data, err := openSample(name)
		if err != nil {
			return nil, nil, err
		}
		src = capture.FromReader("sample "+strings.TrimSuffix(name, ".sse"), capture.SourceSample, bytes.NewReader(data), false)
		raw = bytes.NewReader(data)
	case arg == "-" && isTerminal(stdin):
		fmt.Fprintln(stderr, terminalStdinHint)
		src = capture.FromReader("stdin", capture.SourceStdin, stdin, true)
	default:
		var err error
		if src, format, err = openDiffOperand(ctx, arg, format, stdin); err != nil {
			return nil, nil, err
		}
		raw = src.ReaderAt()
	}
	base.Raw = raw
	mopts, rec := streamdiff.Attach(base, ig)
	s, err := readSessionPiped(ctx, src, capture.ReadOptions{Format: format}, mopts, true, pipe && pipelined(src), nil)
	if err != nil {
		src.Close()
		return nil, nil, err
	}
	return streamdiff.NewSide(src.Name, s, rec), func() { src.Close() }, nil
}

// openDiffOperand opens a file or - as the other commands open their
// input, and returns the format to read it with: a .chunks.txt file is a
// vercel/ai fixture; an archive (HAR, cassette) of one session is that
// session's stream, read as `curl -i` output; an archive of several is an
// error, since diff compares one stream with one.
func openDiffOperand(ctx context.Context, arg string, format capture.Format, stdin *os.File) (*capture.Source, capture.Format, error) {
	format = inputFormat(arg, format)
	if st, err := os.Stat(arg); err == nil && st.IsDir() {
		return nil, format, fmt.Errorf("%s is a folder: compare it as the provider's streams of an app's turn, before the app's one stream (streamtap diff %s APP)", arg, arg)
	}
	ar, err := loadArchive(ctx, options{input: arg, format: format}, stdin)
	switch {
	case err != nil:
		return nil, format, operandError(arg, err)
	case ar == nil:
		src, err := capture.Open(arg, stdin)
		return src, format, operandError(arg, err)
	case ar.len() != 1:
		return nil, format, severalSessions(ar)
	}
	return ar.source(0, ar.name), capture.FormatAuto, nil
}

// severalSessions says why archive ar cannot be compared: it is not one
// stream.
func severalSessions(ar *archiveInput) error {
	return fmt.Errorf("%s holds %d sessions: diff compares one stream with one (write one out with `streamtap timeline --session N --save FILE %s`)",
		ar.name, ar.len(), ar.name)
}
