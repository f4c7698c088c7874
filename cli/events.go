package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"io"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/jsonscan"
	"github.com/streamtap/streamtap/ui/plain"
)

// eventsAbout is the command's help under its usage line; the flags are
// listed from its flag set.
const eventsAbout = `Prints one JSON line per event, comment and remainder, in stream order;
their offset/length ranges cover every byte of the input.
`

// eventsCommand prints one JSON line per event.
func eventsCommand() command {
	return readingCommand(&reader{
		name: "events", heap: headlessHeap, one: runEvents,
		marks: func(options) sessionMark { return markSession },
		flags: func(fs *flag.FlagSet, o *options) {
			fs.BoolVar(&o.explain, "explain", false, `add an "explain" object to each line: the event's shape and what the protocol says about it`)
		},
	}, "one JSON line per event", eventsAbout)
}

// runEvents reads one stream and prints a JSON line per event as it
// arrives.
func runEvents(ctx context.Context, src *capture.Source, o options, stdout, stderr io.Writer) error {
	w := bufio.NewWriter(stdout)
	// The data is the event's JSON as it came: escape what a terminal
	// would obey and the bytes that are not UTF-8.
	enc := json.NewEncoder(&safeJSONWriter{w: w})
	enc.SetEscapeHTML(false)
	_, err := readStream(ctx, src, o, model.Options{}, func(s *model.Session, ev *model.Event, ord int, f *capture.Frame) error {
		line := plain.NewEventLine(s, ev, ord, f, o.keepSecrets)
		if o.explain {
			line.Explain = plain.NewExplainJSON(s, ev, ord, f.Data)
		}
		if err := enc.Encode(line); err != nil {
			return err
		}
		if src.Timed {
			return w.Flush() // a live stream shows each event as it arrives
		}
		return nil
	})
	if werr := w.Flush(); werr != nil && err == nil {
		err = werr
	}
	return readError(err)
}

// safeJSONWriter passes JSON text to w through jsonscan.AppendSafe, 64
// KiB at a time so that a big event is never copied whole. Each Write
// must hold whole JSON texts, as json.Encoder writes them: pieces are cut
// where jsonscan.PieceEnd cuts, so that they escape to the same bytes as
// the whole.
type safeJSONWriter struct {
	w       io.Writer
	scratch []byte
}

func (s *safeJSONWriter) Write(p []byte) (int, error) {
	const piece = 64 << 10
	for j := p; len(j) > 0; {
		cut := jsonscan.PieceEnd(j, piece)
		s.scratch = jsonscan.AppendSafe(s.scratch[:0], j[:cut])
		if _, err := s.w.Write(s.scratch); err != nil {
			return 0, err
		}
		j = j[cut:]
	}
	return len(p), nil
}
