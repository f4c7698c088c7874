package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"time"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/proxy"
	"github.com/streamtap/streamtap/termtext"
	"github.com/streamtap/streamtap/ui/plain"
)

// timelineAbout is the command's help under its usage line; the flags are
// listed from its flag set.
const timelineAbout = `Prints the plain timeline, even on a terminal: one line per event (ordinal,
arrival time, gap since the previous event, sequence number, kind, type,
what the event did), then a line with the stream's outcome.
`

// timelineCommand prints the plain timeline even on a terminal; with no
// input it reads the demo, as the inspector does.
func timelineCommand() command {
	return readingCommand(&reader{name: "timeline", demo: true, flags: timelineExplainFlag, one: runTimeline},
		"the plain timeline, one line per event, even on a terminal", timelineAbout)
}

// runTimeline prints the plain timeline, each line as its event arrives.
func runTimeline(ctx context.Context, src *capture.Source, o options, stdout, stderr io.Writer) error {
	_, err := timelineSession(ctx, src, o, 0, stdout)
	return err
}

// timelineSession prints the plain timeline and returns the session (even
// with an error: it holds what was read). With
// a speed above 0, each line waits until its event's recorded time
// (divided by speed) has come, and events without a time are printed at
// once; with 0, lines are printed as events arrive, each flushed at once
// when the source is live (a file is written in big blocks).
func timelineSession(ctx context.Context, src *capture.Source, o options, speed float64, stdout io.Writer) (*model.Session, error) {
	w := bufio.NewWriter(stdout)
	prev := capture.NoTime
	start := time.Now()
	var explainer *plain.TimelineExplainer // nil writes nothing
	if o.explain {
		explainer = plain.NewTimelineExplainer()
	}
	s, err := readStream(ctx, src, o, model.Options{}, func(s *model.Session, ev *model.Event, ord int, f *capture.Frame) error {
		if speed <= 0 {
			if src.Timed {
				defer w.Flush() // a live stream shows each event as it arrives
			}
		} else if ev.At != capture.NoTime {
			if err := w.Flush(); err != nil {
				return err
			}
			if err := proxy.Wait(ctx, start, ev.At, speed); err != nil {
				return err
			}
		}
		if err := plain.WriteTimelineLine(w, s, ev, ord, prev, f.Raw); err != nil {
			return err
		}
		if err := explainer.Write(w, s, ev, ord, f.Data); err != nil {
			return err
		}
		prev = ev.At
		return nil
	})
	if err == nil {
		oc := s.Outcome()
		fmt.Fprintf(w, "-- %s: %d events, %d bytes, %s", termtext.Safe(src.Name), s.Len(), s.Bytes(), oc.State)
		if oc.Detail != "" {
			fmt.Fprintf(w, " (%s)", termtext.Safe(oc.Detail))
		}
		fmt.Fprintln(w)
	}
	if werr := w.Flush(); werr != nil && err == nil {
		err = werr
	}
	return s, readError(err)
}
