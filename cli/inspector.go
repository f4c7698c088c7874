package cli

import (
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/ingest"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/ui"
)

// The command's help: under its usage line, and after its flags.
const (
	inspectorAbout = `Inspects a stream: the interactive inspector on a terminal, the plain
timeline (one line per event) when stdout is not one. FILE is a stream, a
timed recording or a curl -i capture; - reads stdin. With no FILE, streamtap
reads stdin when it is a pipe or a file (curl -N … | streamtap), opens the
demo sample when stdin is a terminal, and otherwise (stdin is /dev/null, as
an unset variable in a CI script leaves it) says there is no input, exit 2.
streamtap - on a terminal with nothing piped in says so and
waits for q. streamtap A --diff B shows A and B side by side, the selection
linked and the differences marked (streamtap diff A B is the report).
`
	inspectorExits = `Flags may also come before the command: streamtap --json calls x.sse.
Run 'streamtap COMMAND --help' or 'streamtap help COMMAND' for a command's
flags; 'streamtap --version' prints the version.

exit codes: 0 done; 1 check: a finding at or above --fail-on, or an outcome
of error, failed, truncated or empty; request: an HTTP error status or such
an outcome; diff, and --diff not on a terminal: the streams differ; 2
unreadable input or bad usage
`
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

// uiPump is how frames travel to the inspector: with their Raw bytes,
// which the checks read, paced for a screen that redraws per message.
func uiPump() *ingest.Pump {
	return ingest.New(ingest.Options{
		KeepRaw: true, Interval: flushEvery, Due: batchFrames,
		MaxFrames: maxMsgFrames, Batches: maxPending / maxMsgFrames,
	})
}

// viewOrTimeline runs the interactive inspector when stdout is a
// terminal, and prints the plain timeline otherwise (`streamtap x.sse |
// less`).
func viewOrTimeline(ctx context.Context, src *capture.Source, o options, stdout, stderr io.Writer) error {
	if isTerminal(stdout) {
		return runView(ctx, src, o, stdout)
	}
	return runTimeline(ctx, src, o, stdout, stderr)
}

// runView runs the interactive inspector over src: a goroutine reads the
// source into an ingest.Pump, whose batches go to the program as Frames
// messages, while the program takes keys from the terminal. Bubble Tea opens the TTY itself when stdin
// is a pipe, so stdin is never passed as the program's input.
func runView(ctx context.Context, src *capture.Source, o options, stdout io.Writer) error {
	return runInspector(ctx, src, o, stdout, newModel, nil)
}

// modelMaker makes the inspector's session from its options and the
// model over it: the inspector's (newModel), or the diff page's.
type modelMaker func(mo model.Options, uo ui.Options) *ui.Model

// newModel is the inspector over a new session.
func newModel(mo model.Options, uo ui.Options) *ui.Model { return ui.New(model.NewSession(mo), uo) }

// runInspector is runView with the model made by mk; also, when not nil,
// runs beside the reading of src with the program's send (the diff page
// reads its stream B there) and must return once ctx is done.
func runInspector(ctx context.Context, src *capture.Source, o options, stdout io.Writer,
	mk modelMaker, also func(ctx context.Context, send func(tea.Msg))) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	var save io.WriteCloser
	if o.save != "" {
		f, err := createOutput("--save", o.save, o.force)
		if err != nil {
			return err
		}
		defer f.Close()
		save = f
	}
	var p *tea.Program
	send := func(msg tea.Msg) { p.Send(msg) }
	in := newInspector(src, o, save, send, mk)
	p = tea.NewProgram(in.m, tea.WithContext(ctx), tea.WithOutput(stdout))
	var wg sync.WaitGroup
	wg.Go(func() { in.read(ctx) })
	if also != nil {
		wg.Go(func() { also(ctx, send) })
	}
	_, err := p.Run()
	cancel()
	in.stop()
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
		return err
	}
	return nil
}

// inspector is the inspector's model and the reading that feeds it,
// wired the same way for the terminal and for tests.
type inspector struct {
	m    *ui.Model
	src  *capture.Source
	ropt capture.ReadOptions
	pm   *ingest.Pump
	send func(tea.Msg)
}

// newInspector builds the inspector over src with the model made by mk,
// its messages going to send; save, when not nil, gets a copy of the bytes
// read.
func newInspector(src *capture.Source, o options, save io.Writer, send func(tea.Msg), mk modelMaker) *inspector {
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
	var times *readTimes // live input: w saves a timed recording (save_live.go)
	if src.Timed {
		times = new(readTimes)
		src.Record(times)
	}
	sopts, _ := attachChecks(model.Options{KeepEvents: true, Raw: raw}, src, o)
	if total > 0 {
		// The index of a big file should stay small next to it: 0.3x the
		// file + 64 MiB, of which 16 MiB are the runtime's own.
		keepHeapNear(total*3/10 + 48<<20)
	}
	m := mk(sopts, ui.Options{
		Source:      src.Name,
		Live:        true,
		TotalBytes:  total,
		NoColor:     os.Getenv("NO_COLOR") != "",
		KeepSecrets: o.keepSecrets,
		Save:        saver(raw, src, times, o),
		Checks:      ui.StrictChecks,
		Replay:      o.replay,
		Explain:     o.explain,
		LessonMode:  o.lesson,
		Reveal:      o.reveal,
		Lesson:      sampleLesson(src),
		Request:     requestShown(src),
	})
	ropt := capture.ReadOptions{Format: o.format, Keep: store}
	if save != nil {
		ropt.Save = save
	}
	return &inspector{m: m, src: src, ropt: ropt, send: send, pm: uiPump()}
}

// read reads the source to its end, handing the frames to the program in
// batches, and then the end of the source.
func (in *inspector) read(ctx context.Context) {
	forwarded := make(chan struct{})
	go func() {
		defer close(forwarded)
		forward(ctx, in.pm, in.send)
	}()
	err := ingest.Read(ctx, in.src, in.ropt, in.pm, nil)
	<-forwarded // the end of the source comes after its last frame
	if errors.Is(err, context.Canceled) || errors.Is(err, ingest.ErrStopped) {
		return // the user quit
	}
	in.send(ui.SourceDone(err))
}

// stop lets a reader blocked on a program that quit go on.
func (in *inspector) stop() { in.pm.Stop() }

// forward sends each batch of p to the program, which gives it back
// once added. Sending blocks while the program is busy: back-pressure.
// A batch that was waiting already when the program took the last one (a
// file read faster than the screen is drawn) goes as MoreFrames, added
// without a redraw, for at most redrawEvery since the last screen drawn;
// before forward waits for the reader, a Redraw draws what the last of
// them added.
func forward(ctx context.Context, p *ingest.Pump, send func(tea.Msg)) {
	forwardEvery(ctx, p, send, redrawEvery)
}

// forwardEvery is forward with the longest wait between two screens.
func forwardEvery(ctx context.Context, p *ingest.Pump, send func(tea.Msg), every time.Duration) {
	var drawn time.Time // the first batch is drawn
	owed := false
	for {
		b, ok := p.TryNext()
		behind := ok
		if !ok {
			if owed {
				send(ui.Redraw()) // the batch Next waits for is drawn below, which resets drawn and owed
			}
			if b, ok = p.Next(ctx); !ok {
				return
			}
		}
		release := func() { p.Release(b) }
		if behind && time.Since(drawn) < every {
			send(ui.MoreFrames(b, release))
			owed = true
			continue
		}
		send(ui.Frames(b, release))
		drawn, owed = time.Now(), false
	}
}

// redrawEvery is the longest the inspector's screen waits while batches
// keep coming: 10 redraws a second.
const redrawEvery = 100 * time.Millisecond

// inspectorCommand is the bare `streamtap [FILE|-]`.
func inspectorCommand() command {
	c := readingCommand(inspectorReader(), "", inspectorAbout)
	c.exits = inspectorExits
	return c
}

// inspectorReader reads the input into the inspector on a terminal, and
// prints the plain timeline otherwise; with no input it opens the demo.
func inspectorReader() *reader {
	return &reader{
		name: "", demo: true, sessionsList: true,
		flags: func(fs *flag.FlagSet, o *options) {
			requestFlag(fs, o)
			timelineExplainFlag(fs, o)
			fs.BoolVar(&o.lesson, "lesson", false, "open the inspector in lesson mode (L): at the first event with the explanation on, space steps one event a press, and from 160 columns the timeline, the calls as of the event and the explanation side by side")
			fs.BoolVar(&o.reveal, "reveal", false, "show the timeline's rows up to the selected event only, as they would arrive live (v): for a lesson or a replay, where the class should not see what comes next")
			fs.StringVar(&o.diff, "diff", "", "compare the input (A) with stream `B`, a FILE or sample:NAME, side by side; not on a terminal, print the report of 'streamtap diff A B'")
			o.compare.define(fs, "with --diff: ")
		},
		instead: inspectInstead,
		one:     viewOrTimeline,
	}
}

// inspectInstead runs what the inspector runs in place of reading one
// stream: the diff page of --diff, or, for - on a terminal with nothing
// piped in, the text that says so (the inspector would read keys and the
// stream from one terminal).
func inspectInstead(ctx context.Context, o options, stdin *os.File, stdout, stderr io.Writer) (bool, error) {
	switch {
	case o.diff != "":
		return true, runDiffView(ctx, o, stdin, stdout, stderr)
	case o.sample == "" && o.input == "-" && isTerminal(stdin) && isTerminal(stdout):
		return true, waitForPipe(ctx, stdin, stdout)
	}
	return false, nil
}
