package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/charmbracelet/x/term"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/ingest"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/samples"
)

// readingCommand is a command that reads one stream: the inspector,
// timeline, calls and events.
func readingCommand(name, summary, about string) command {
	return command{
		name: name, args: "[FILE|-]", summary: summary, about: about,
		flags: func() *flag.FlagSet { return readFlags(name, new(options), new(string)) },
		run: func(ctx context.Context, args []string, stdin *os.File, stdout, stderr io.Writer) error {
			return runReading(ctx, name, args, stdin, stdout, stderr)
		},
	}
}

// runReading runs a command that reads one stream (cmd is "" for the
// inspector).
func runReading(ctx context.Context, cmd string, args []string, stdin *os.File, stdout, stderr io.Writer) error {
	opts, err := parseFlags(cmd, args)
	if err != nil {
		return usageError(cmd, err)
	}
	if err := opts.loadRequest(); err != nil {
		return err
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
		return err
	}
	if ar != nil {
		return runArchive(ctx, cmd, ar, opts, stdout, stderr, func(src *capture.Source, o options, w io.Writer) error {
			return readSource(ctx, cmd, src, o, w, stderr)
		})
	}
	if opts.session > 0 {
		return usageError(cmd, errOneStream)
	}
	src, err := openSource(ctx, opts, stdin, stderr, cmd == "" || cmd == "timeline")
	if err != nil {
		return err
	}
	defer src.Close()
	if opts.saveHAR != "" {
		closeHAR, err := saveHAR(src, nil, opts)
		if err != nil {
			return err
		}
		defer closeHAR()
	}
	return readSource(ctx, cmd, src, opts, stdout, stderr)
}

// readSource runs a reading command (cmd is "" for the inspector) on one
// stream.
func readSource(ctx context.Context, cmd string, src *capture.Source, opts options, stdout, stderr io.Writer) error {
	if opts.saveTimed != "" {
		closeRec, err := saveTimed(src, opts)
		if err != nil {
			return err
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

// isTerminal reports whether f (an *os.File, or any writer) is a terminal.
func isTerminal(f any) bool {
	file, ok := f.(*os.File)
	return ok && file != nil && term.IsTerminal(file.Fd())
}

// sampleLesson is the one-line lesson of the sample src reads (the demo
// included), for the inspector's status line; "" for any other source.
func sampleLesson(src *capture.Source) string {
	if src.Kind != capture.SourceSample {
		return ""
	}
	return samples.Lesson(strings.TrimPrefix(src.Name, "sample "))
}
