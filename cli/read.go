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
	"github.com/streamtap/streamtap/termtext"
)

// reader is what sets a command that reads one stream (the inspector,
// timeline, calls, events, check) apart from the others. The rest they
// share, in runReading: the reading flags, --request, archives and their
// sessions (runArchive), choosing the source, --save, --save-timed and
// --save-har. Adding such a command is one reader, in the command's file.
type reader struct {
	name string // the command's name ("" is the inspector)
	// flags defines the command's own flags into fs, beside the reading
	// flags every reader takes (readFlags).
	flags func(fs *flag.FlagSet, o *options)
	// parsed, when set, checks and completes the options once parsed
	// (check's --fail-on and --profile); its error is bad usage.
	parsed func(o *options) error
	// instead, when set, may run the command in place of reading a
	// stream (the inspector's --diff, and - on a terminal): done says it
	// did, and err is how it ended.
	instead func(ctx context.Context, o options, stdin *os.File, stdout, stderr io.Writer) (done bool, err error)
	// demo: with no input and nothing piped in, read the demo sample
	// instead of saying there is no input.
	demo bool
	// heap is the heap budget of a headless command (keepHeapNear); 0
	// leaves the inspector's own.
	heap int64
	// namesErrors: the command's error lines name it ("streamtap check:
	// …"), as CI logs read them.
	namesErrors bool
	// marks, when set, says how the output of each of several sessions
	// of an archive is marked: by default a header line before it.
	marks func(o options) sessionMark
	// sessionsList: several sessions of an archive open the sessions list
	// when stdout is a terminal.
	sessionsList bool
	// many: the command takes several inputs (check), in options.inputs.
	many bool
	// one reads one stream (the input, or a session of an archive) and
	// writes the command's output.
	one func(ctx context.Context, src *capture.Source, o options, stdout, stderr io.Writer) error
}

// readingCommand is the command r describes, with its line in the list of
// commands and its help.
func readingCommand(r *reader, summary, about string) command {
	return command{
		name: r.name, args: "[FILE|-]", summary: summary, about: about,
		flags: func() *flag.FlagSet { return readFlags(r, new(options), new(string)) },
		run: func(ctx context.Context, args []string, stdin *os.File, stdout, stderr io.Writer) error {
			return runReading(ctx, r, args, stdin, stdout, stderr)
		},
	}
}

// runReading runs the reading command r on the command line args.
func runReading(ctx context.Context, r *reader, args []string, stdin *os.File, stdout, stderr io.Writer) error {
	o, err := parseFlags(r, args)
	if err == nil && r.parsed != nil {
		err = r.parsed(&o)
	}
	if err != nil {
		return usageError(r.name, err)
	}
	if err := o.loadRequest(); err != nil {
		return r.fail(err)
	}
	if r.instead != nil {
		if done, err := r.instead(ctx, o, stdin, stdout, stderr); done {
			return err
		}
	}
	ar, err := loadArchive(ctx, o, stdin)
	if err != nil {
		return r.fail(readError(err))
	}
	if ar != nil {
		if ar.cut != "" {
			fmt.Fprintf(stderr, "streamtap: %s: %s\n", termtext.Safe(ar.name), ar.cut)
		}
		return runArchive(ctx, r, ar, o, stdout, stderr)
	}
	if o.session > 0 {
		return usageError(r.name, errOneStream)
	}
	src, err := openSource(ctx, o, stdin, stderr, r.demo)
	if err != nil {
		return r.fail(err)
	}
	defer src.Close()
	if o.saveHAR != "" {
		closeHAR, err := saveHAR(ctx, src, nil, o, stderr)
		if err != nil {
			return r.fail(err)
		}
		defer closeHAR()
	}
	return r.read(ctx, src, o, stdout, stderr)
}

// read reads one stream, the input or a session of an archive, with
// --save-timed, under the command's heap budget, and writes the output.
func (r *reader) read(ctx context.Context, src *capture.Source, o options, stdout, stderr io.Writer) error {
	if o.saveTimed != "" {
		closeRec, err := saveTimed(src, o)
		if err != nil {
			return r.fail(err)
		}
		defer closeRec()
	}
	if r.heap > 0 {
		keepHeapNear(r.heap)
	}
	return r.fail(r.one(ctx, src, o, stdout, stderr))
}

// fail is err as the command's error line says it: named when the
// command names its errors (commandError), else as it is.
func (r *reader) fail(err error) error {
	if err == nil || !r.namesErrors {
		return err
	}
	return commandError(r.name, err)
}

// openSource resolves the input: a sample, a file, "-" or a piped stdin,
// or (for the viewer only) the demo sample when there is no input and
// stdin is a terminal.
// "-" on a terminal reads what is typed until ctrl+d, like cat, after a
// hint on stderr; ctrl+c (ctx) ends the read at once, as it ends any
// read (capture.Interruptible).
func openSource(ctx context.Context, o options, stdin *os.File, stderr io.Writer, demo bool) (*capture.Source, error) {
	if name, ok := sampleOperand(o.input); ok {
		// One of check's several inputs.
		return sampleSource(name)
	}
	switch {
	case o.sample != "":
		return sampleSource(o.sample)
	case o.input == "-" && isTerminal(stdin):
		fmt.Fprintln(stderr, terminalStdinHint)
		return capture.FromReader("stdin", capture.SourceStdin, stdin, true), nil // Read gives way to ctx
	case o.input != "":
		src, err := capture.Open(o.input, stdin)
		return src, operandError(o.input, err)
	case capture.IsPipe(stdin):
		return capture.Open("-", stdin)
	case demo && isTerminal(stdin):
		return sampleSource(samples.Default)
	case demo:
		// stdin is neither a pipe, a file nor a terminal: /dev/null, as a
		// CI script whose variable was unset leaves it. The demo there
		// would pass for the stream the script meant, with exit 0.
		return nil, errors.New("no input: stdin is not a pipe, a file or a terminal (/dev/null?): give a FILE, '-' for stdin, or pipe a stream in; the demo opens only on a terminal")
	}
	return nil, errors.New("no input: give a FILE, '-' for stdin, or pipe a stream in")
}

func sampleSource(name string) (*capture.Source, error) {
	data, err := openSample(name)
	if err != nil {
		return nil, err
	}
	return capture.FromReader("sample "+strings.TrimSuffix(name, ".sse"), capture.SourceSample, bytes.NewReader(data), false), nil
}

// readStream reads the source into a session as a reading command does:
// in the format --format says, writing the bytes to --save, calling each
// after every event. The session is never nil: when --save cannot be
// created it is empty and ended with the error.
func readStream(ctx context.Context, src *capture.Source, o options, opt model.Options,
	each func(s *model.Session, ev *model.Event, ord int, f *capture.Frame) error) (*model.Session, error) {
	ropt := capture.ReadOptions{Format: o.format}
	if opt.Exchange == nil {
		opt.Exchange, opt.Earlier = exchangeOf(src, o), o.earlier
	}
	if o.save != "" {
		save, err := createOutput("--save", o.save, o.force)
		if err != nil {
			s := model.NewSession(opt)
			s.End(err)
			return s, err
		}
		defer save.Close()
		ropt.Save = save
	}
	return readSession(ctx, src, ropt, opt, false, each)
}

// readSession reads src to its end into a new session made with opt, and
// ends the session with the error the read ended with (nil at a clean
// end). It is how the commands model a stream they do not show live:
// framing on one goroutine and modelling on another when there are two
// cores (ingest.Session). each, when not nil, is called after every
// event. The session reads its events' bytes back through opt.Raw, by
// default the source's ReaderAt (a file, a body held in memory); with
// keep, a source without one (a pipe, a body inflated as it is read) has
// its bytes kept once in a capture.Store as they are read, for a session
// that shows or compares its events.
func readSession(ctx context.Context, src *capture.Source, ropt capture.ReadOptions, opt model.Options, keep bool,
	each func(s *model.Session, ev *model.Event, ord int, f *capture.Frame) error) (*model.Session, error) {
	return readSessionPiped(ctx, src, ropt, opt, keep, pipelined(src), each)
}

// readSessionPiped is readSession with framing and modelling on two
// goroutines when pipe is set: a caller that reads two streams at once
// (diff) keeps both cores busy already, and a second goroutine per
// stream would only add the cost of handing frames over.
func readSessionPiped(ctx context.Context, src *capture.Source, ropt capture.ReadOptions, opt model.Options, keep, pipe bool,
	each func(s *model.Session, ev *model.Event, ord int, f *capture.Frame) error) (*model.Session, error) {
	if opt.Raw == nil {
		opt.Raw = src.ReaderAt()
	}
	if opt.Exchange == nil {
		opt.Exchange = src.Exchange
	}
	if opt.Raw == nil && keep {
		store := new(capture.Store)
		opt.Raw, ropt.Keep = store, store
	}
	s := model.NewSession(opt)
	var added func(ev *model.Event, ord int, f *capture.Frame) error
	if each != nil {
		added = func(ev *model.Event, ord int, f *capture.Frame) error { return each(s, ev, ord, f) }
	}
	keepRaw := each != nil || opt.Observer != nil
	err := ingest.Session(ctx, src, ropt, s, nil, added, keepRaw, pipe)
	s.End(err)
	return s, err
}

// pipelineAbove is the size of file from which framing on a goroutine of
// its own pays: below it, starting the goroutine and copying each frame
// into a batch cost more than the second core saves (a check over a
// thousand recordings of 24 KB ran 5x the time of one file of all their
// events).
const pipelineAbove = 1 << 20

// pipelined says whether to read src with framing and modelling on two
// goroutines: with two cores, unless src is a small file.
func pipelined(src *capture.Source) bool {
	if size, ok := src.Size(); ok && size < pipelineAbove {
		return false
	}
	return runtime.GOMAXPROCS(0) > 1
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
