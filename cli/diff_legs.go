package cli

// This file reads the operands of `streamtap diff PROVIDER… APP`: the
// provider's side of an application's turn is one stream per model call
// (per step), given as files, a proxy's recordings folder or an archive
// (HAR, cassette) of several sessions, and compared with the one stream
// the application sent its own client.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/streamdiff"
)

// severalStreams reports whether operand arg stands for several streams:
// a folder, or an archive of more than one session.
func severalStreams(ctx context.Context, arg string, format capture.Format, stdin *os.File) bool {
	if _, isSample := sampleOperand(arg); isSample || arg == "-" {
		return false
	}
	if st, err := os.Stat(arg); err == nil && st.IsDir() {
		return true
	}
	ar, err := loadArchive(ctx, options{input: arg, format: inputFormat(arg, format)}, stdin)
	if err != nil || ar == nil {
		return false
	}
	defer ar.close()
	return ar.len() > 1
}

// diffLegs compares the provider's streams (every operand but the last,
// each a file, a folder of recordings or an archive) with the
// application's stream (the last), step by step, and prints the report
// as diff does.
func diffLegs(ctx context.Context, args []string, format capture.Format, opts streamdiff.Options, asJSON bool,
	stdin *os.File, stdout, stderr io.Writer) error {
	keepHeapNear(diffHeap)
	appArg := args[len(args)-1]
	app, closeApp, err := readDiffSide(ctx, appArg, format, model.Options{}, opts.Ignore, true, stdin, stderr)
	if err != nil {
		return commandError("diff", readError(fmt.Errorf("%s: %w", "B", err)))
	}
	defer closeApp()
	appSpan := spanOf(appArg, app)
	var legs []*streamdiff.Side
	var dropped []string
	for _, arg := range args[:len(args)-1] {
		sides, closers, skipped, err := readLegOperand(ctx, arg, appArg, appSpan, format, opts.Ignore, stdin, stderr)
		for _, c := range closers {
			defer c()
		}
		if err != nil {
			return commandError("diff", readError(fmt.Errorf("%s: %w", "A", err)))
		}
		legs = append(legs, sides...)
		dropped = append(dropped, skipped...)
	}
	if len(legs) == 0 {
		why := strings.Join(dropped, "; ")
		if len(dropped) > 3 {
			why = fmt.Sprintf("%s; and %d more", strings.Join(dropped[:3], "; "), len(dropped)-3)
		}
		return commandError("diff", fmt.Errorf("no provider stream to compare with %s: %s", appArg, why))
	}
	res := streamdiff.CompareLegs(legs, []*streamdiff.Side{app}, opts)
	return writeDiff(res, asJSON, stdout)
}

// timeSpan is when a stream was recorded: from its request to its last
// event (to is zero when the events carry no times of their own: a body
// that is not SSE is recorded whole), and what it holds, to know its
// provider's streams by when its end is not known. The zero span is
// unknown.
type timeSpan struct {
	from, to time.Time
	sum      model.LegSummary
}

func (ts timeSpan) known() bool { return !ts.from.IsZero() }

// spanOf is when the stream of operand arg, read into sd, was recorded:
// known for a timed recording.
func spanOf(arg string, sd *streamdiff.Side) timeSpan {
	start := recordingStart(arg)
	if start.IsZero() {
		return timeSpan{}
	}
	ts := timeSpan{from: start, sum: model.Summarize(0, 0, start, start, sd.S)}
	if tm := sd.Timing(); tm.FirstEvent >= 0 && tm.Total > tm.FirstEvent {
		ts.to = start.Add(tm.Total)
	}
	return ts
}

// recordingStart reads the start of a timed recording from its header
// (`: started …`), the zero time for any other file.
func recordingStart(path string) time.Time {
	if x := recordingHead(path); x != nil {
		return x.Started
	}
	return time.Time{}
}

// recordingHead reads the header of a timed recording (the exchange it
// holds: its start, its request), nil for any other file.
func recordingHead(path string) *capture.Exchange {
	if _, isSample := sampleOperand(path); isSample || path == "-" || !isRegular(path) {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	rr, err := capture.NewRecordingReader(f)
	if err != nil {
		return nil
	}
	return rr.Exchange()
}

// namesNoModel reports whether a recording's request was kept and names
// no model: no provider's (a tool server's, an MCP tools/call; an app's
// own request).
func namesNoModel(x *capture.Exchange) bool {
	if x == nil || len(x.RequestBody) == 0 {
		return false
	}
	path := x.URL
	if u, err := url.Parse(x.URL); err == nil {
		path = u.Path
	}
	req := model.ParseRequest(x.RequestBody, path)
	return req.Parsed && req.Model == ""
}

// legCandidate is one stream of a provider operand, before it is kept:
// how to open it, its name and when it started.
type legCandidate struct {
	name     string
	start    time.Time
	notModel bool // its request names no model (namesNoModel)
	open     func() (*streamdiff.Side, func(), error)
}

// readLegOperand reads the provider streams operand arg stands for: a
// file or sample (one stream), a folder (every file in it but appArg, in
// the order they started, else by name) or an archive (its sessions, in
// the order they started). Of several, it keeps those of a provider
// dialect (an application's stream is no provider's: a dialect with
// steps) that started while the application's stream was recorded, when
// that is known (see timeSpan.holds for a stream whose end is not). It
// returns the sides, the functions that close their sources, and a line
// for each stream it left out and why.
func readLegOperand(ctx context.Context, arg, appArg string, app timeSpan, format capture.Format, ig streamdiff.Ignore,
	stdin *os.File, stderr io.Writer) ([]*streamdiff.Side, []func(), []string, error) {
	var cands []legCandidate
	archiveClosed := func() {}
	switch st, statErr := os.Stat(arg); {
	case statErr == nil && st.IsDir():
		entries, err := os.ReadDir(arg)
		if err != nil {
			return nil, nil, nil, err
		}
		for _, e := range entries {
			path := filepath.Join(arg, e.Name())
			if !e.Type().IsRegular() || sameFile(path, appArg) || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			x := recordingHead(path)
			var start time.Time
			if x != nil {
				start = x.Started
			}
			cands = append(cands, legCandidate{name: path, start: start, notModel: namesNoModel(x), open: func() (*streamdiff.Side, func(), error) {
				return readDiffSide(ctx, path, format, model.Options{}, ig, true, stdin, stderr)
			}})
		}
		if len(cands) == 0 {
			return nil, nil, []string{arg + " holds no file"}, nil
		}
	default:
		ar, err := loadArchive(ctx, options{input: arg, format: inputFormat(arg, format)}, stdin)
		if err != nil {
			return nil, nil, nil, operandError(arg, err)
		}
		if ar == nil || ar.len() <= 1 {
			if ar != nil {
				ar.close()
			}
			sd, closer, err := readDiffSide(ctx, arg, format, model.Options{}, ig, true, stdin, stderr)
			if err != nil {
				return nil, nil, nil, err
			}
			return []*streamdiff.Side{sd}, []func(){closer}, nil, nil
		}
		archiveClosed = ar.close
		for i := range ar.len() {
			var started time.Time
			notModel := false
			if e, err := ar.entry(i); err == nil {
				started, notModel = e.Started, namesNoModel(&e.Exchange)
			}
			name := fmt.Sprintf("%s session %d", ar.name, i+1)
			cands = append(cands, legCandidate{name: name, start: started, notModel: notModel, open: func() (*streamdiff.Side, func(), error) {
				src := ar.source(i, name)
				mopts, rec := streamdiff.Attach(model.Options{Raw: src.ReaderAt()}, ig)
				s, err := readSession(ctx, src, capture.ReadOptions{}, mopts, true, nil)
				if err != nil {
					src.Close()
					return nil, nil, err
				}
				return streamdiff.NewSide(name, s, rec), func() { src.Close() }, nil
			}})
		}
	}
	slices.SortStableFunc(cands, func(x, y legCandidate) int {
		if !x.start.IsZero() && !y.start.IsZero() {
			return x.start.Compare(y.start)
		}
		return strings.Compare(x.name, y.name)
	})
	var sides []*streamdiff.Side
	var closers []func()
	var skipped []string
	var first *legCandidate // the first that started after the app's request, had none been kept
	var firstSide *streamdiff.Side
	var firstClose func()
	seen := map[string]bool{} // the call ids of the streams kept
	for i := range cands {
		c := &cands[i]
		timed := app.known() && !c.start.IsZero()
		if timed && (c.start.Before(app.from) || !app.to.IsZero() && c.start.After(app.to)) {
			skipped = append(skipped, c.name+" started outside the application's stream")
			continue
		}
		if c.notModel {
			skipped = append(skipped, c.name+"'s request names no model: no model call")
			continue
		}
		sd, closer, err := c.open()
		if err != nil {
			if errors.Is(err, context.Canceled) {
				return nil, closers, nil, err
			}
			skipped = append(skipped, c.name+": "+err.Error())
			continue
		}
		if d := sd.S.Dialect(); d == model.DialectUnknown || d.HasSteps() {
			closer()
			skipped = append(skipped, c.name+" is no provider's stream ("+d.String()+")")
			continue
		}
		if timed && app.to.IsZero() {
			// When the application's stream ended is unknown, a stream
			// that started after its request belongs to it when it
			// shares a call id or a text with it, until one repeats a
			// call id of those kept (a provider mints its ids anew: that
			// is another turn's).
			sum := model.Summarize(0, 1, c.start, c.start, sd.S)
			if slices.ContainsFunc(sum.CallIDs, func(id string) bool { return seen[id] }) {
				closer()
				break
			}
			if app.sum.Shares(sum) == "" {
				if first == nil {
					first, firstSide, firstClose = c, sd, closer
				} else {
					closer()
				}
				skipped = append(skipped, c.name+" shares no call id or text with the application's stream")
				continue
			}
			for _, id := range sum.CallIDs {
				seen[id] = true
			}
		}
		sides = append(sides, sd)
		closers = append(closers, closer)
	}
	switch {
	case len(sides) == 0 && first != nil:
		// Nothing tied one to it (an error before any output): the first
		// provider request after its own.
		sides, closers = []*streamdiff.Side{firstSide}, []func(){firstClose}
	case first != nil:
		firstClose()
	}
	closers = append(closers, archiveClosed)
	return sides, closers, skipped, nil
}
