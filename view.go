package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/ui"
)

// Batching of frames from the reader to the UI. View runs after every
// message, so frames travel in batches: one message per flushEvery, or
// sooner once batchFrames have piled up. maxPending bounds what the reader
// may run ahead of the UI before it waits.
const (
	flushEvery  = 25 * time.Millisecond
	batchFrames = 256
	maxPending  = 8192
	// maxMsgFrames bounds one message, so that adding a batch in Update
	// (about 3.5 µs a frame) never delays a key by more than ~7 ms.
	maxMsgFrames = 2048
)

// viewOrTimeline runs the interactive inspector when streamtap was run
// without a command and stdout is a terminal, and prints the plain timeline
// otherwise (`streamtap x.sse | less`, `streamtap timeline`).
func viewOrTimeline(ctx context.Context, cmd string, src *capture.Source, o options, stdout, stderr io.Writer) int {
	if f, ok := stdout.(*os.File); ok && cmd == "" && term.IsTerminal(f.Fd()) {
		return runView(ctx, src, o, stdout, stderr)
	}
	return runTimeline(ctx, src, o, stdout, stderr)
}

// runView runs the interactive inspector over src: a pump goroutine reads
// the source and hands frames to the program in batches while the program
// takes keys from the terminal. Bubble Tea opens the TTY itself when stdin
// is a pipe, so stdin is never passed as the program's input.
func runView(ctx context.Context, src *capture.Source, o options, stdout, stderr io.Writer) int {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	var save io.WriteCloser
	if o.save != "" {
		f, err := os.Create(o.save)
		if err != nil {
			fmt.Fprintf(stderr, "streamtap: save: %v\n", err)
			return 2
		}
		defer f.Close()
		save = f
	}
	// A regular file is read back by offset; anything else (a pipe, a
	// sample) is kept once in a Store.
	raw := src.ReaderAt()
	var store *capture.Store
	if raw == nil {
		store = new(capture.Store)
		raw = store
	}
	var total int64
	if src.Kind == capture.SourceFile && !src.Timed {
		if st, err := os.Stat(src.Name); err == nil {
			total = st.Size()
		}
	}
	sopts, chk := checks.Attach(model.Options{KeepEvents: true, Raw: raw})
	if total > 0 {
		// The index of a big file must stay small next to the file: ask the
		// GC to work harder before the process outgrows 0.3× the file + 64
		// MiB (a soft limit on the heap; garbage from framing is what it
		// reclaims). 16 MiB of the budget is left to the runtime and the
		// binary, which the limit does not count.
		debug.SetMemoryLimit(total*3/10 + 48<<20)
	}
	s := model.NewSession(sopts)
	m := ui.New(s, ui.Options{
		Source:      src.Name,
		Live:        true,
		TotalBytes:  total,
		NoColor:     os.Getenv("NO_COLOR") != "",
		KeepSecrets: o.keepSecrets,
		Save:        saver(raw),
		Checks:      checker(chk, checks.Strict),
		Replay:      o.replay,
		Explain:     o.explain,
		Lesson:      sampleLesson(src),
	})
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithOutput(stdout))

	ropt := capture.ReadOptions{Format: o.format, Keep: store}
	if save != nil {
		ropt.Save = save
	}
	pm := newPump(func(b []capture.Frame) { p.Send(ui.Frames(b)) })
	var wg sync.WaitGroup
	wg.Go(func() {
		err := src.Read(ctx, ropt, pm.emit(ctx))
		pm.close()
		if errors.Is(err, context.Canceled) {
			return // the user quit
		}
		p.Send(ui.SourceDone(err))
	})
	_, err := p.Run()
	cancel()
	pm.abort()
	// A read from a pipe cannot be interrupted: a stream that is still
	// open (curl -N) would keep the reader blocked forever. Give it a
	// moment to notice the cancellation, then leave; exiting ends it.
	readerDone := make(chan struct{})
	go func() { wg.Wait(); close(readerDone) }()
	select {
	case <-readerDone:
	case <-time.After(250 * time.Millisecond):
	}
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "streamtap: %v\n", err)
		return 2
	}
	return 0
}

// checker adapts model/checks to the findings pane. The Checker observed
// every event as the session added it, so a report costs only the rules
// that wait for the end, not a pass over the stream.
func checker(c *checks.Checker, p checks.Profile) ui.Checker {
	return func(s *model.Session) []ui.Finding {
		rep := c.Report(s, p)
		out := make([]ui.Finding, 0, len(rep.Findings))
		for _, f := range rep.Findings {
			out = append(out, ui.Finding{Severity: f.Severity.String(), Code: f.Rule, Message: f.Message, Events: f.Events})
		}
		return out
	}
}

// saver writes the first n bytes of the capture to a new file in the
// current directory, for the w key.
func saver(raw io.ReaderAt) func(n int64) (string, error) {
	return func(n int64) (string, error) {
		name := "streamtap-" + time.Now().Format("20060102-150405") + ".sse"
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return "", err
		}
		if _, err := io.Copy(f, io.NewSectionReader(raw, 0, n)); err != nil {
			f.Close()
			return "", fmt.Errorf("write %s: %w", name, err)
		}
		return name, f.Close()
	}
}

// pump carries frames from the reader goroutine to the program in
// batches. The reader appends; a flusher sends whatever is pending every
// flushEvery, or as soon as batchFrames are pending. When the UI falls
// behind by maxPending frames the reader waits, so memory stays bounded.
type pump struct {
	send    func([]capture.Frame)
	mu      sync.Mutex
	cond    *sync.Cond
	pending []capture.Frame
	closed  bool // the reader is done
	aborted bool // the program is gone: drop everything
	kick    chan struct{}
	done    chan struct{}
}

func newPump(send func([]capture.Frame)) *pump {
	p := &pump{send: send, kick: make(chan struct{}, 1), done: make(chan struct{})}
	p.cond = sync.NewCond(&p.mu)
	go p.flusher()
	return p
}

// emit returns the callback for capture.Source.Read.
func (p *pump) emit(ctx context.Context) func(*capture.Frame) error {
	return func(f *capture.Frame) error {
		p.mu.Lock()
		for len(p.pending) >= maxPending && !p.aborted {
			p.cond.Wait()
		}
		if p.aborted {
			p.mu.Unlock()
			return ctx.Err()
		}
		p.pending = append(p.pending, f.Detach())
		n := len(p.pending)
		p.mu.Unlock()
		if n >= batchFrames {
			select {
			case p.kick <- struct{}{}:
			default:
			}
		}
		return nil
	}
}

// flusher sends pending frames in order, one batch per message.
func (p *pump) flusher() {
	defer close(p.done)
	t := time.NewTicker(flushEvery)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-p.kick:
		}
		p.mu.Lock()
		batch, closed, aborted := p.pending, p.closed, p.aborted
		p.pending = nil
		p.cond.Broadcast()
		p.mu.Unlock()
		if aborted {
			return
		}
		for len(batch) > 0 {
			n := min(len(batch), maxMsgFrames)
			p.send(batch[:n:n]) // blocks while the UI is busy: back-pressure
			batch = batch[n:]
		}
		if closed {
			p.mu.Lock()
			empty := len(p.pending) == 0
			p.mu.Unlock()
			if empty {
				return
			}
		}
	}
}

// close flushes what is pending and waits until it has been sent, so that
// the end-of-source message arrives after the last frame.
func (p *pump) close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	select {
	case p.kick <- struct{}{}:
	default:
	}
	<-p.done
}

// abort stops the pump after the program quit; the reader unblocks.
func (p *pump) abort() {
	p.mu.Lock()
	p.aborted = true
	p.cond.Broadcast()
	p.mu.Unlock()
}
