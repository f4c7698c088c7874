package cli

import (
	"bufio"
	"context"
	"flag"
	"io"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/ui/plain"
)

// callsAbout is the command's help under its usage line; the flags are
// listed from its flag set.
const callsAbout = `Prints the calls and text a client assembles from the stream, and how the
stream ended. --json prints one object whose fields are a contract: added
to, never renamed (docs/json.md: streamtap calls --json).
`

// callsCommand prints the calls and text a client assembles.
func callsCommand() command {
	return readingCommand(&reader{
		name: "calls", heap: headlessHeap, marks: jsonMarks, one: runCalls,
		flags: func(fs *flag.FlagSet, o *options) {
			fs.BoolVar(&o.json, "json", false, "print one JSON object (a contract: fields are added, never renamed) instead of text")
			requestFlag(fs, o)
		},
	}, "the assembled calls and text", callsAbout)
}

// runCalls reads one stream and prints its calls report.
func runCalls(ctx context.Context, src *capture.Source, o options, stdout, stderr io.Writer) error {
	s, err := readStream(ctx, src, o, model.Options{}, nil)
	if err != nil && s.Len() == 0 {
		return readError(err)
	}
	w := bufio.NewWriter(stdout)
	if o.json {
		_ = s.WriteReportJSON(w)
	} else {
		_ = plain.WriteCalls(w, s.Report())
	}
	if werr := w.Flush(); werr != nil {
		return readError(werr)
	}
	return readError(err)
}
