package cli

// replay --listen of a session: several recordings (FILE operands, a
// directory as proxy --record writes it, a HAR or a cassette), each
// request answered by the exchange recorded for it (proxy.Session). The
// exchanges are found as check finds its inputs (suite.Expand, the
// archive readers of loadArchive) and served as replay serves one
// recording; an archive's entry is written as a recording when a request
// asks for it (capture.Entry.WriteRecording).

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/inject"
	"github.com/streamtap/streamtap/inject/fault"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/proxy"
	"github.com/streamtap/streamtap/suite"
	"github.com/streamtap/streamtap/termtext"
)

// replayExchange is one exchange of a replayed session: a file on disk
// (a recording, or a plain stream, which answers any request), or an
// archive's entry.
type replayExchange struct {
	name string // as the log names it
	file string
	// entry writes an archive's entry as a recording, when file is "".
	entry func() ([]byte, error)
}

// open reads the exchange as a recording from its start.
func (x replayExchange) open() (io.ReadCloser, error) {
	if x.file != "" {
		return os.Open(x.file)
	}
	b, err := x.entry()
	if err != nil {
		return nil, err
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

// bytes reads the whole exchange, to apply defects to.
func (x replayExchange) bytes() ([]byte, error) {
	if x.file != "" {
		return os.ReadFile(x.file)
	}
	return x.entry()
}

// isSession says whether replay's operands are a session rather than
// one recording: several of them, a directory, or an archive.
func isSession(operands []string) bool {
	if len(operands) > 1 {
		return true
	}
	if len(operands) == 0 || operands[0] == "-" {
		return false
	}
	st, err := os.Stat(operands[0])
	switch {
	case err != nil:
		return false
	case st.IsDir():
		return true
	case !st.Mode().IsRegular():
		return false
	}
	head, err := readHead(operands[0])
	return err == nil && capture.DetectArchive(head).IsArchive()
}

// sessionExchanges lists the exchanges the operands hold, in order: each
// file as named, a directory's files as check walks them (suite.Expand:
// lexical order, which is the order of proxy --record's names), and an
// archive's entries in the order they started. A file the walk found
// with a name that may hold anything (.json, .yaml) that is neither a
// recording nor an archive is passed over, as check passes it over; the
// returned close closes the archives.
func sessionExchanges(ctx context.Context, operands []string, keep bool, stderr io.Writer) ([]replayExchange, func(), error) {
	var out []replayExchange
	var archives []*archiveInput
	closeAll := func() {
		for _, ar := range archives {
			ar.close()
		}
	}
	for _, in := range suite.Expand(operands, suite.ExpandOptions{}) {
		switch {
		case in.Path == "-":
			closeAll()
			return nil, nil, errors.New("a session is read from files: standard input is one stream (give it alone)")
		case in.Err != nil:
			closeAll()
			return nil, nil, suite.InputError(in.Path, in.Err)
		case in.Skipped != "":
			fmt.Fprintf(stderr, "streamtap replay: %s: %s\n", termtext.Safe(in.Path), termtext.Safe(in.Skipped))
			continue
		}
		head, err := readHead(in.Path)
		if err != nil {
			closeAll()
			return nil, nil, operandError(in.Path, err)
		}
		if !capture.DetectArchive(head).IsArchive() {
			if in.Found && suite.IsGenericName(in.Path) && !bytes.HasPrefix(head, []byte(capture.RecordingMagic)) {
				fmt.Fprintf(stderr, "streamtap replay: %s: not a recording: passed over\n", termtext.Safe(in.Path))
				continue
			}
			out = append(out, replayExchange{name: filepath.Base(in.Path), file: in.Path})
			continue
		}
		ar, err := loadArchive(ctx, options{input: in.Path, keepSecrets: keep}, nil)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		archives = append(archives, ar)
		out = append(out, archiveExchanges(ar, filepath.Base(in.Path))...)
	}
	if len(out) == 0 {
		closeAll()
		return nil, nil, errors.New("no recording to serve in " + strings.Join(operands, " "))
	}
	return out, closeAll, nil
}

// archiveExchanges are an archive's entries as exchanges, named as
// --session N names them, in the order they started (a HAR file's entries
// are written as they end: a stream left open comes last).
func archiveExchanges(ar *archiveInput, base string) []replayExchange {
	type entry struct {
		x       replayExchange
		started int64
	}
	var entries []entry
	for i := range ar.len() {
		x := replayExchange{name: fmt.Sprintf("%s #%d", base, i+1), entry: func() ([]byte, error) {
			e, err := ar.entry(i)
			if err != nil {
				return nil, err
			}
			var b bytes.Buffer
			// Secrets were redacted as the archive was read, unless kept.
			err = e.WriteRecording(&b, true)
			return b.Bytes(), err
		}}
		var started int64
		if e, err := ar.entry(i); err == nil && !e.Started.IsZero() {
			started = e.Started.UnixNano()
		}
		entries = append(entries, entry{x, started})
	}
	slices.SortStableFunc(entries, func(a, b entry) int {
		if a.started == 0 || b.started == 0 {
			return 0
		}
		return cmp.Compare(a.started, b.started)
	})
	out := make([]replayExchange, len(entries))
	for i, e := range entries {
		out[i] = e.x
	}
	return out
}

// loadExchanges loads each exchange to serve it (proxy.LoadReplayFrom),
// its warnings on stderr. A recording replay cannot serve (a recorded
// 1xx) is kept in its place, answered 502 with why, and said so.
func loadExchanges(ctx context.Context, xs []replayExchange, stderr io.Writer) ([]*proxy.Recorded, error) {
	recs := make([]*proxy.Recorded, len(xs))
	for i, x := range xs {
		rc, err := proxy.LoadReplayFrom(ctx, x.name, x.open)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", x.name, err)
		}
		for _, w := range rc.Warnings() {
			fmt.Fprintf(stderr, "streamtap replay: %s: %s\n", termtext.Safe(x.name), w)
		}
		if err := rc.Err(); err != nil {
			fmt.Fprintf(stderr, "streamtap replay: %s: %s: a request for it is answered 502\n", termtext.Safe(x.name), termtext.Safe(err.Error()))
		}
		recs[i] = rc
	}
	return recs, nil
}

// injectSession applies the defects named by key to each exchange whose
// dialect they fit, saying where each acted; an exchange none fits is
// served as recorded. It fails when a defect fits no exchange at all.
func injectSession(xs []replayExchange, key string, seed uint64, stderr io.Writer) ([]*proxy.Recorded, error) {
	defects, err := inject.ParseList(key)
	if err != nil {
		return nil, usageError("replay", err)
	}
	acted := map[string]int{}
	recs := make([]*proxy.Recorded, len(xs))
	for i, x := range xs {
		data, err := x.bytes()
		if err != nil {
			return nil, commandError("replay", fmt.Errorf("%s: %w", x.name, err))
		}
		out, rep := applyFitting(data, defects, seed)
		if len(rep.Defects) > 0 {
			fmt.Fprintf(stderr, "streamtap replay: %s:\n", termtext.Safe(x.name))
			writeInjectReport(stderr, rep)
			for _, a := range rep.Defects {
				acted[a.Defect]++
			}
		}
		if recs[i], err = proxy.ReplayData(x.name, out); err != nil {
			return nil, commandError("replay", fmt.Errorf("%s: %w", x.name, err))
		}
	}
	for _, d := range defects {
		if acted[d.Name] == 0 {
			return nil, commandError("replay", fmt.Errorf("%s fits none of the %d exchanges: it applies to %s", d.Name, len(xs), strings.Join(d.Dialects(), ", ")))
		}
		fmt.Fprintf(stderr, "streamtap replay: %s acted on %d of %d exchanges; the others are served as recorded\n", d.Name, acted[d.Name], len(xs))
	}
	return recs, nil
}

// applyFitting applies the defects that fit data (inject.Apply), leaving
// out each that does not (another dialect, no place for it, an exchange
// without a stream); data as it is when none fits.
func applyFitting(data []byte, defects []inject.Defect, seed uint64) ([]byte, inject.Report) {
	for len(defects) > 0 {
		out, rep, err := inject.Apply(data, defects, inject.Options{Seed: seed})
		if err == nil {
			return out, rep
		}
		var na *inject.NotApplicableError
		if !errors.As(err, &na) {
			break // not a stream inject reads (a 202 with no body): nothing fits
		}
		defects = slices.DeleteFunc(slices.Clone(defects), func(d inject.Defect) bool { return d.Name == na.Defect })
	}
	return data, inject.Report{}
}

// serveSession serves the session the operands hold until ctx ends: each
// request answered by its recorded exchange, with the faults and defects
// the flags or the scenario give its request number.
func serveSession(ctx context.Context, o replayOptions, stderr io.Writer) error {
	plan, err := replayPlan(o)
	if err != nil {
		return err
	}
	xs, closeArchives, err := sessionExchanges(ctx, o.files, o.keep, stderr)
	if err != nil {
		return commandError("replay", err)
	}
	defer closeArchives()
	plain, err := loadExchanges(ctx, xs, stderr)
	if err != nil {
		return commandError("replay", err)
	}
	names := make([]string, len(xs))
	for i, x := range xs {
		names[i] = x.name
	}
	ro := proxy.ReplayOptions{Speed: o.speed, Log: proxy.NewLog(stderr), BodyTimeout: o.clients.body, Limits: o.clients.limits()}
	session := proxy.NewSession(plain, names, o.reuse)
	var h http.Handler
	if plan.IsZero() {
		h = session.Handler(session.Play(plain, ro), ro)
	} else {
		handlers := map[string]http.Handler{}
		for _, step := range plan.Steps() {
			recs := plain
			if len(step.Inject) > 0 {
				fmt.Fprintf(stderr, "streamtap replay: requests with %s:\n", strings.Join(step.Inject, ","))
				if recs, err = injectSession(xs, step.Key(), o.seed, stderr); err != nil {
					return err
				}
			}
			handlers[step.Key()] = session.Play(recs, ro)
		}
		broken := fault.Handler(plan, func(s fault.Step) http.Handler { return handlers[s.Key()] },
			fault.Options{Dialect: sessionDialect(xs), Log: ro.Log.Printf, Done: ctx.Done(), Number: proxy.RequestNumber})
		h = session.Handler(broken, ro)
	}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return err
	}
	warnExposed(stderr, ln, replayExposes)
	fmt.Fprintf(stderr, "streamtap: replaying a session of %d exchanges on http://%s (each request its own, %sx)\n", len(xs), ln.Addr(), trimFloat(o.speed))
	return proxy.ServeReplayHandler(ctx, ln, h, ro)
}

// sessionDialect is the dialect of a session's first exchange that has
// one, for the error bodies of status faults.
func sessionDialect(xs []replayExchange) model.Dialect {
	for _, x := range xs {
		var head []byte
		var err error
		if x.file != "" {
			head, err = fileHead(x.file, dialectPeek)
		} else {
			head, err = x.entry()
		}
		if err != nil {
			continue
		}
		if d := inject.Dialect(head); d != model.DialectUnknown {
			return d
		}
	}
	return model.DialectUnknown
}
