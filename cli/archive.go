package cli

// Archives (HAR files, VCR cassettes) hold several exchanges: each is a
// session of its own, read as a stream by the same commands. This file
// wires them: loading and choosing sessions, a header or a "session"
// member per session in the headless outputs, the sessions list in the
// inspector, and --save-har.

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/jsonscan"
	"github.com/streamtap/streamtap/termtext"
	"github.com/streamtap/streamtap/ui"
)

// errOneStream refuses --session on an input that is not an archive.
var errOneStream = errors.New("--session N chooses a session of a HAR file or a cassette; this input is one stream")

// archiveInput is an archive read from the input: where its sessions
// are, not the sessions. Each is read from the file when it is asked for
// (capture.OpenArchive), so an archive of 50,000 sessions costs its
// index, and one session at a time.
type archiveInput struct {
	name string
	ar   *capture.Archive // its entries that are sessions (model.IsLLMExchange)
	file *fileAt          // the file the entries are read from
	// continues holds the archive positions (Entry.Index) of the
	// requests that can continue an earlier session (model.Turns).
	continues map[int]bool
	// wants says a request continues an earlier session by what it
	// carries (model.Wants: an MCP GET that resumes a stream): its
	// session is read with that session's request, so the links are
	// found before any session is read.
	wants bool
	cut   string // what was repaired of a HAR whose writer was stopped inside an entry
}

// len is the number of sessions.
func (in *archiveInput) len() int { return in.ar.Len() }

// entry reads session k (from 0).
func (in *archiveInput) entry(k int) (*capture.Entry, error) { return in.ar.Entry(k) }

// source is session k's stream, named name; its Read fails when the
// session cannot be read again.
func (in *archiveInput) source(k int, name string) *capture.Source { return in.ar.Source(k, name) }

// close closes the archive's file; a later read opens it again.
func (in *archiveInput) close() {
	if in.file != nil {
		in.file.close()
	}
}

// loadArchive reads the input as an archive when --format says it is one,
// or when it is a file that DetectArchive recognises; it returns nil for a
// stream. Standard input is an archive only with --format: detecting it
// would wait for bytes a live stream has not sent yet. A file's archive
// is read from the file as its sessions are asked for; standard input's
// from a copy of it in a temporary file (spillStdin).
func loadArchive(ctx context.Context, o options, stdin *os.File) (*archiveInput, error) {
	if _, isSample := sampleOperand(o.input); o.sample != "" || isSample {
		return nil, nil
	}
	format := o.format
	if format == capture.FormatAuto {
		if o.input == "" || o.input == "-" || !isRegular(o.input) {
			return nil, nil
		}
		head, err := readHead(o.input)
		if err != nil {
			return nil, err
		}
		if format = capture.DetectArchive(head); format == capture.FormatAuto {
			return nil, nil
		}
	}
	if !format.IsArchive() {
		return nil, nil
	}
	in := &archiveInput{name: o.input}
	var r io.ReaderAt
	var size int64
	switch {
	case o.input == "" || o.input == "-":
		in.name = "stdin"
		f, n, err := spillStdin(ctx, stdin)
		if err != nil {
			return nil, err
		}
		in.file = &fileAt{size: n, f: f, spilled: true}
		r, size = in.file, n
	default:
		f, err := openFileAt(o.input)
		if err != nil {
			return nil, err
		}
		defer f.close() // reopened for the sessions, when they are read
		in.file, r, size = f, f, f.size
	}
	in.continues = map[int]bool{}
	// Each entry is read once here: whether it is a session (as
	// model.LLMEntries chooses), and whether its request continues one.
	keep := func(e *capture.Entry) bool {
		wants := model.Wants(&e.Exchange)
		if req, _ := model.EntryRequest(e); req.Continues() || wants {
			in.continues[e.Index] = true
		}
		in.wants = in.wants || wants
		return model.IsLLMExchange(e)
	}
	ar, err := capture.OpenArchive(ctx, r, size, format, capture.ArchiveOptions{KeepSecrets: o.keepSecrets, Keep: keep})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.name, err)
	}
	in.ar, in.cut = ar, ar.Cut
	if ar.Len() == 0 {
		return nil, fmt.Errorf("%s: %w", in.name, errNoLLMExchange)
	}
	return in, nil
}

// fileAt reads a file at offsets, opening it at the first read and again
// after close: an archive's sessions are read from it one at a time, and
// a check of thousands of archives keeps none of them open.
type fileAt struct {
	path string
	size int64 // when it was first opened: a file that changed since is refused
	mu   sync.Mutex
	f    *os.File
	// spilled is standard input's copy (spillStdin): it has no name to be
	// opened again by, so it stays open until the process ends.
	spilled bool
}

func openFileAt(path string) (*fileAt, error) {
	f := &fileAt{path: path, size: -1}
	if err := f.open(); err != nil {
		return nil, err
	}
	return f, nil
}

func (f *fileAt) open() error {
	file, err := os.Open(f.path)
	if err != nil {
		return err
	}
	st, err := file.Stat()
	switch {
	case err != nil:
	case f.size >= 0 && st.Size() != f.size:
		err = fmt.Errorf("%s changed while it was read (%d bytes, was %d)", f.path, st.Size(), f.size)
	}
	if err != nil {
		file.Close()
		return err
	}
	f.f, f.size = file, st.Size()
	return nil
}

// ReadAt implements io.ReaderAt.
func (f *fileAt) ReadAt(p []byte, off int64) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.f == nil {
		if err := f.open(); err != nil {
			return 0, err
		}
	}
	return f.f.ReadAt(p, off)
}

func (f *fileAt) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.f != nil && !f.spilled {
		f.f.Close()
		f.f = nil
	}
}

// spillStdin copies standard input into a temporary file, removed from
// its directory at once (on Unix: the open file lives on until the
// process ends), so that an archive piped in (a HAR of 1 GB) is read a
// session at a time as a file's is, not held in memory whole. The file is
// the user's alone (0600), as the archive's credentials may be in it.
func spillStdin(ctx context.Context, stdin *os.File) (*os.File, int64, error) {
	f, err := os.CreateTemp("", "streamtap-stdin-*")
	if err != nil {
		return nil, 0, fmt.Errorf("a copy of standard input: %w", err)
	}
	_ = os.Remove(f.Name()) // where that fails (Windows), the file is left in the temporary directory
	sr, done := capture.Interruptible(ctx, stdin)
	n, err := io.Copy(f, sr)
	done()
	if err != nil {
		f.Close()
		if errors.Is(err, context.Canceled) || ctx.Err() != nil {
			return nil, 0, err
		}
		return nil, 0, fmt.Errorf("standard input (copied to a temporary file in %s): %w", os.TempDir(), err)
	}
	return f, n, nil
}

// errNoLLMExchange is an archive in which no exchange is an LLM's: a
// cassette of telemetry or of another API.
var errNoLLMExchange = errors.New("no stream or LLM response in it")

func isRegular(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// readHead reads as much of a file as archive detection looks at.
func readHead(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := int64(64 << 10)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = min(size, st.Size()) // a small file: no 64 KiB buffer for each of a suite's
	}
	buf := make([]byte, size)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return buf[:n], nil
}

// sessionMark is how the output of each of several sessions of an archive
// says which session it is.
type sessionMark uint8

const (
	// markHeader puts a header line before each session's output: "#
	// session 2/3: POST https://… 200", and the earlier session its
	// request continues.
	markHeader sessionMark = iota
	// markSession adds a "session" member to each JSON object.
	markSession
	// markExchange adds "session" and "exchange" (method, URL, status).
	markExchange
)

// jsonMarks marks the sessions of a command whose --json prints one
// object per stream (calls, check): by members with --json, by header
// lines without.
func jsonMarks(o options) sessionMark {
	if o.json {
		return markExchange
	}
	return markHeader
}

// runArchive runs the reading command r on the sessions of an archive:
// the one --session names, or each in turn. One session reads exactly as
// a stream does. With several, each session's output is marked as r says
// (a header line, or members of each JSON object), or the sessions list
// opens. Each session's error is said when it ends; the exit status is
// the worst of the sessions'.
func runArchive(ctx context.Context, r *reader, ar *archiveInput, o options, stdout, stderr io.Writer) error {
	defer ar.close()
	lo, hi := 0, ar.len()
	if o.session > 0 {
		if o.session > ar.len() {
			return usageError(r.name, fmt.Errorf("--session %d: %s holds %s", o.session, ar.name, sessionsCount(ar.len())))
		}
		lo, hi = o.session-1, o.session
	}
	if hi-lo > 1 && (o.save != "" || o.saveTimed != "") {
		return usageError(r.name, fmt.Errorf("--save and --save-timed write one stream: choose one of the %d sessions with --session N", hi-lo))
	}
	o.format = capture.FormatAuto // an entry reads as `curl -i` output
	var har *harFile
	if o.saveHAR != "" {
		h, err := createHAR(ctx, o.saveHAR, o.keepSecrets, o.force, stderr)
		if err != nil {
			return err
		}
		defer func() { _ = h.close() }() // each entry's Close says when it was not written
		har = h
	}
	// record adds --save-har to session i's stream (from 0).
	record := func(src *capture.Source) *capture.Source {
		if har != nil && src.Exchange != nil {
			src.Record(har.h.Entry(src.Exchange))
		}
		return src
	}
	source := func(i int) *capture.Source { return record(ar.source(i, fmt.Sprintf("%s #%d", ar.name, i+1))) }
	// The sessions each one continues: the text outputs' headers say
	// them, and a session that continues another by what its request
	// carries (an MCP GET that resumes a stream) is read with it. Linking
	// models the sessions before the last that continues one once more,
	// plainly, as the output reads each anew.
	var links []turnLink
	link := func() {
		if links == nil {
			links = linkTurns(ar, func(i int, _ turnLink) *model.Session {
				s, _ := readSession(ctx, ar.source(i, ""), capture.ReadOptions{}, model.Options{}, false, nil)
				return s
			})
		}
	}
	if ar.wants {
		link()
	}
	if hi-lo == 1 {
		so := o
		if links != nil {
			so.earlier = links[lo].earlier
		}
		return r.read(ctx, source(lo), so, stdout, stderr)
	}
	if r.sessionsList && isTerminal(stdout) {
		return runSessionsView(ctx, ar, source, o, stdout)
	}
	mark := markHeader
	if r.marks != nil {
		mark = r.marks(o)
	}
	worst := 0
	for i := lo; i < hi; i++ {
		n := i + 1
		var w io.Writer = stdout
		e, err := ar.entry(i)
		if err != nil {
			worst = max(worst, exit(readError(fmt.Errorf("%s #%d: %w", ar.name, n, err)), stdout, stderr))
			continue
		}
		switch mark {
		case markSession:
			w = &sessionLines{w: stdout, prefix: fmt.Sprintf(`"session":%d,`, n), start: true}
		case markExchange:
			w = &sessionLines{w: stdout, prefix: fmt.Sprintf(`"session":%d,"exchange":%s,`, n, exchangeJSON(e)), start: true}
		default:
			if i > lo {
				fmt.Fprintln(stdout)
			}
			link()
			fmt.Fprintf(stdout, "# session %d/%d: %s%s\n", n, ar.len(), termtext.Safe(e.String()), links[i])
		}
		so := o
		if links != nil {
			so.earlier = links[i].earlier
		}
		err = r.read(ctx, record(e.Source(fmt.Sprintf("%s #%d", ar.name, n))), so, w, stderr)
		var x *exitError
		if errors.As(err, &x) && x.status == statusInterrupted {
			return err
		}
		worst = max(worst, exit(err, stdout, stderr))
	}
	return exitStatus(worst)
}

// sessionsCount says "1 session" or "3 sessions".
func sessionsCount(n int) string {
	if n == 1 {
		return "1 session"
	}
	return fmt.Sprintf("%d sessions", n)
}

// turnLink is the earlier session a session's request continues, as
// model.Turns links them: 0 for none, and that session's calls the
// request sends no output for; or, for a request that continues it by
// what it carries (model.Turns.LinkExchange: an MCP GET resuming a
// stream), what it does to it and that session's request, which its own
// session reads.
type turnLink struct {
	of         int
	unanswered []string
	verb       string
	earlier    model.Earlier
}

// String is what a session's header line adds: "" for no link, else
// " · answers #1" (or what the request does: " · resumes #1"), and " · no
// tool output for …" naming the calls.
func (l turnLink) String() string {
	if l.of == 0 {
		return ""
	}
	s := fmt.Sprintf(" · %s #%d", cmp.Or(l.verb, "answers"), l.of)
	if len(l.unanswered) > 0 {
		s += " · no tool output for " + termtext.Safe(strings.Join(l.unanswered, ", "))
	}
	return s
}

// linkTurns links each of an archive's sessions (numbered from 1, all of
// them in order) to the earlier one its request continues, as the proxy
// links its exchanges (model.Turns). Linking needs the earlier sessions'
// responses, calls and marks: session(i, link) gives session i modelled
// (link is its own, found from the sessions before it), and is asked only
// for the sessions before the last request that can continue one (found
// as the archive was indexed), so an archive whose requests continue
// nothing costs nothing more.
func linkTurns(ar *archiveInput, session func(i int, link turnLink) *model.Session) []turnLink {
	last := -1 // the last request that can continue an earlier session
	for i := range ar.len() {
		if ar.continues[ar.ar.Index(i)] {
			last = i
		}
	}
	links := make([]turnLink, ar.len())
	var turns model.Turns
	for i := 0; i <= last; i++ { // a later request continues nothing
		if e, err := ar.entry(i); err == nil {
			req, _ := model.EntryRequest(e)
			links[i].of, links[i].unanswered = turns.Link(req)
			if l := turns.LinkExchange(&e.Exchange); links[i].of == 0 && l.Prev > 0 {
				links[i].of, links[i].verb, links[i].earlier = l.Prev, l.Verb, l.Earlier
			}
		}
		if i < last {
			turns.Add(i+1, session(i, links[i]))
		}
	}
	return links
}

// exchangeJSON is the "exchange" member of a session's calls or check
// object: method, URL (credentials redacted unless --keep-secrets) and
// status, safe to print as the rest of the object is.
func exchangeJSON(e *capture.Entry) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(struct {
		Method string `json:"method"`
		URL    string `json:"url"`
		Status int    `json:"status"`
	}{e.Method, e.URL, e.Status})
	return string(jsonscan.AppendSafe(nil, bytes.TrimSpace(b.Bytes())))
}

// sessionLines writes JSON lines with prefix inserted after the opening
// brace of each, so that every object of a session says which it is.
type sessionLines struct {
	w      io.Writer
	prefix string
	start  bool // at the start of a line
}

func (s *sessionLines) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if s.start && p[0] == '{' {
			if _, err := io.WriteString(s.w, "{"+s.prefix); err != nil {
				return 0, err
			}
			p = p[1:]
		}
		s.start = false
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			_, err := s.w.Write(p)
			return n, err
		}
		if _, err := s.w.Write(p[:i+1]); err != nil {
			return 0, err
		}
		p, s.start = p[i+1:], true
	}
	return n, nil
}

// runSessionsView opens the sessions list over the archive's sessions:
// each is read into a session of its own first (an archive is a file,
// read at once), checked and linked to the one its request continues,
// then handed to the list as ended. The list keeps every session.
func runSessionsView(ctx context.Context, ar *archiveInput, source func(int) *capture.Source, o options, stdout io.Writer) error {
	n := ar.len()
	sessions := make([]*model.Session, n)
	errs := make([]error, n)
	read := func(i int, l turnLink) *model.Session {
		if sessions[i] == nil {
			src, so := source(i), o
			so.earlier = l.earlier
			sopts, _ := attachChecks(model.Options{KeepEvents: true}, src, so)
			sessions[i], errs[i] = readSession(ctx, src, capture.ReadOptions{}, sopts, true, nil)
		}
		return sessions[i]
	}
	links := linkTurns(ar, read)
	xs := make([]model.Exchange, 0, n)
	metas := make([]legEntry, 0, n)
	for i := range n {
		s := read(i, links[i])
		e, err := ar.entry(i)
		if err != nil {
			e = &capture.Entry{Exchange: capture.Exchange{HeadAt: capture.NoTime}, Dur: capture.NoTime, Note: err.Error()}
		}
		x := exchangeInfo(i+1, e, s)
		x.TurnOf, x.Unanswered, x.Link = links[i].of, links[i].unanswered, links[i].verb
		xs = append(xs, x)
		metas = append(metas, legEntry{url: e.URL, started: e.Started, dur: e.Dur, notModel: namesNoModel(&e.Exchange)})
	}
	linkLegs(metas, func(i int) *model.Session { return sessions[i] }, xs)
	batch := make([]model.SessionUpdate, 0, n)
	for i, s := range sessions {
		batch = append(batch, model.SessionUpdate{Info: xs[i], Live: model.NewLive(s), Ended: true, EndErr: errs[i]})
	}
	m := ui.NewSessions(ui.Options{
		Source:       ar.name,
		NoColor:      os.Getenv("NO_COLOR") != "",
		KeepSecrets:  o.keepSecrets,
		Checks:       ui.StrictChecks,
		FirstSession: true,
	})
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithOutput(stdout))
	go p.Send(ui.Sessions(batch))
	if _, err := p.Run(); err != nil && !errors.Is(err, tea.ErrProgramKilled) && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// exchangeInfo is what the sessions list shows of an imported session,
// but for its turn link.
func exchangeInfo(id int, e *capture.Entry, s *model.Session) model.Exchange {
	req, path := model.EntryRequest(e)
	req.Header, req.Size = e.RequestHeader, len(e.RequestBody)
	x := model.Exchange{
		Exchange: e.Exchange, ID: id, Path: path, Model: req.Model,
		Dur: e.Dur, TTFB: e.HeadAt, TFE: capture.NoTime,
		Outcome: s.Outcome().State, Err: e.Note,
	}
	if len(e.RequestBody) > 0 && json.Valid(e.RequestBody) {
		x.Request = &req
	}
	return x
}
