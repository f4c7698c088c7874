package plain

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/streamtap/streamtap/model/streamdiff"
	"github.com/streamtap/streamtap/termtext"
)

// DiffStyle says how WriteDiff decorates its text.
type DiffStyle struct {
	// Color colours the kinds and the verdict with ANSI SGR sequences:
	// only for a terminal, and never under NO_COLOR (the caller decides).
	Color bool
}

// SGR colours of the plain diff report, by what they mark.
const (
	sgrReset   = "\x1b[0m"
	sgrRemoved = "\x1b[31m" // only in A
	sgrAdded   = "\x1b[32m" // only in B
	sgrChanged = "\x1b[33m" // fields, calls, text, outcome
	sgrMoved   = "\x1b[36m" // order, chunking, sequence, ids
	sgrMuted   = "\x1b[2m"
	sgrBold    = "\x1b[1m"
)

func (st DiffStyle) paint(sgr, s string) string {
	if !st.Color || s == "" {
		return s
	}
	return sgr + s + sgrReset
}

func kindSGR(k streamdiff.Kind) string {
	switch k {
	case streamdiff.OnlyInA:
		return sgrRemoved
	case streamdiff.OnlyInB:
		return sgrAdded
	case streamdiff.Reordered, streamdiff.Chunking, streamdiff.Sequence, streamdiff.IDs:
		return sgrMoved
	case streamdiff.Timing:
		return sgrMuted
	}
	return sgrChanged
}

// WriteDiff writes the plain report of a comparison: both streams, what
// was ignored, each difference with the events it cites on both sides
// (A#N, B#N: the ordinals the inspector's `:N` goes to), the timing when
// both streams are timed, and the verdict. Every string that comes from a
// stream goes through Safe.
func WriteDiff(w io.Writer, r *streamdiff.Result, st DiffStyle) error {
	b := bufio.NewWriter(w)
	writeDiffSide(b, "A", r.A)
	writeDiffSessions(b, "A", r.ASessions)
	writeDiffSide(b, "B", r.B)
	writeDiffSessions(b, "B", r.BSessions)
	if len(r.Ignored) > 0 {
		fmt.Fprintf(b, "ignoring: %s\n", termtext.Safe(strings.Join(r.Ignored, ", ")))
	} else {
		fmt.Fprintln(b, "ignoring nothing (--strict)")
	}
	if r.Note != "" {
		fmt.Fprintf(b, "note: %s\n", termtext.Safe(r.Note))
	}
	events, semantic := splitDiffs(r.Differences)
	if len(events) > 0 {
		fmt.Fprintln(b, "\nevents (aligned by response, item and event type):")
		writeDiffRows(b, events, st)
	}
	if r.Steps != nil {
		writeSteps(b, r)
	}
	if len(semantic) > 0 {
		if r.Steps != nil {
			fmt.Fprintln(b, "\nby step: calls, text, reasoning, outcome (and timing):")
		} else {
			fmt.Fprintln(b, "\ncalls, text, outcome and timing:")
		}
		writeDiffRows(b, semantic, st)
	}
	if r.Timing != nil {
		writeTiming(b, r.Timing)
	}
	fmt.Fprintln(b)
	fmt.Fprintln(b, st.paint(sgrBold, verdict(r)))
	return b.Flush()
}

func writeDiffSide(b *bufio.Writer, label string, s streamdiff.Summary) {
	outcome := termtext.Safe(s.Outcome.State)
	if s.Outcome.Detail != "" {
		outcome += " (" + termtext.Safe(s.Outcome.Detail) + ")"
	}
	fmt.Fprintf(b, "%s  %s: %s · %s · %s · %s\n", label, termtext.Safe(s.Name), s.Dialect, outcome, CountOf(s.Events, "event"), CountOf(s.Calls, "call"))
}

// splitDiffs separates the event-level differences from those about
// calls, text, outcome and timing.
func splitDiffs(diffs []streamdiff.Difference) (events, semantic []streamdiff.Difference) {
	for _, d := range diffs {
		switch d.Kind {
		case streamdiff.Call, streamdiff.Text, streamdiff.Outcome, streamdiff.Timing, streamdiff.Step, streamdiff.Reasoning:
			semantic = append(semantic, d)
		default:
			events = append(events, d)
		}
	}
	return events, semantic
}

// writeDiffRows writes one line per difference: kind, the events of A,
// the events of B, and the message, with the values on lines of their own
// when the message cut them.
func writeDiffRows(b *bufio.Writer, diffs []streamdiff.Difference, st DiffStyle) {
	wa, wb := 1, 1
	for _, d := range diffs {
		wa = max(wa, len(EventRef(sideLabel(&d, streamdiff.SideA), d.EventA, d.LastA)))
		wb = max(wb, len(EventRef(sideLabel(&d, streamdiff.SideB), d.EventB, d.LastB)))
	}
	for _, d := range diffs {
		kind := fmt.Sprintf("%-10s", d.Kind)
		fmt.Fprintf(b, "  %s %-*s %-*s %s\n", st.paint(kindSGR(d.Kind), kind),
			wa, EventRef(sideLabel(&d, streamdiff.SideA), d.EventA, d.LastA), wb, EventRef(sideLabel(&d, streamdiff.SideB), d.EventB, d.LastB), termtext.Safe(d.Message))
		if d.Kind == streamdiff.Call && d.Path == "arguments" || d.Kind == streamdiff.Text || d.Kind == streamdiff.Reasoning {
			writeValue(b, "A", string(d.A), d.Truncated)
			writeValue(b, "B", string(d.B), d.Truncated)
		}
	}
}

// sideLabel names side w of a difference for its event references: "A",
// or "A2" for the second stream of a side made of several.
func sideLabel(d *streamdiff.Difference, w streamdiff.Which) string {
	label := "AB"[w : w+1]
	if i, multi := d.Session(w); multi {
		label += strconv.Itoa(i + 1)
	}
	return label
}

// writeDiffSessions lists the streams of a side made of several, one
// line each, under the side's line.
func writeDiffSessions(b *bufio.Writer, label string, each []streamdiff.Summary) {
	for i, s := range each {
		writeDiffSide(b, fmt.Sprintf("   %s%d", label, i+1), s)
	}
}

// writeSteps writes how the model calls of both sides were lined up: one
// line per step, each side's stream and events, outcome and calls, and
// the step's notes.
func writeSteps(b *bufio.Writer, r *streamdiff.Result) {
	fmt.Fprintln(b, "\nsteps (one model call each, lined up in order and by shared call ids):")
	cell := func(label string, multi bool, s *streamdiff.StepSide) string {
		if s == nil {
			return label + " -"
		}
		if multi {
			label += strconv.Itoa(s.Session + 1)
		}
		out := termtext.Safe(s.Outcome.State)
		if s.Outcome.Detail != "" {
			out += " (" + termtext.Safe(Truncate(s.Outcome.Detail, 60)) + ")"
		}
		if s.Cut != "" {
			out += ", cut"
		}
		ref := EventRef(label, s.First, s.Last)
		if s.First < 0 {
			ref = label + " (no events)"
		}
		return fmt.Sprintf("%s %s · %s", ref, out, CountOf(s.Calls, "call"))
	}
	// A long conversation's steps are listed only where something is
	// said of them: a difference, a note, a side missing.
	cited := map[int]bool{}
	for _, d := range r.Differences {
		cited[d.Step] = true
	}
	quiet := 0
	for _, sp := range r.Steps {
		if len(r.Steps) > maxStepsListed && !cited[sp.Step] && len(sp.Notes) == 0 && sp.A != nil && sp.B != nil {
			quiet++
			continue
		}
		fmt.Fprintf(b, "  step %-3d %s   %s\n", sp.Step, cell("A", r.ASessions != nil, sp.A), cell("B", r.BSessions != nil, sp.B))
		for _, n := range sp.Notes {
			fmt.Fprintf(b, "           note: %s\n", termtext.Safe(n))
		}
	}
	switch {
	case quiet == len(r.Steps):
		fmt.Fprintf(b, "  all %d steps paired, without a difference (--json lists every step)\n", quiet)
	case quiet > 0:
		fmt.Fprintf(b, "  and %s paired without a difference (--json lists every step)\n", CountOf(quiet, "more step"))
	}
}

// maxStepsListed is how many steps the report lists before it lists only
// those something is said of.
const maxStepsListed = 50

// EventRef is "A#4", "A#4–#9", or "-" when the side has no event.
func EventRef(side string, first, last int) string {
	switch {
	case first < 0:
		return "-"
	case last > first:
		return fmt.Sprintf("%s#%d–#%d", side, first, last)
	}
	return fmt.Sprintf("%s#%d", side, first)
}

// maxValueLine is the most of a value written under a call or text
// difference.
const maxValueLine = 400

func writeValue(b *bufio.Writer, side, v string, truncated bool) {
	if v == "" {
		v = "(absent)"
	}
	s := Truncate(termtext.Safe(v), maxValueLine)
	if truncated && !strings.HasSuffix(s, "…") {
		s += " …(cut)"
	}
	fmt.Fprintf(b, "      %s %s\n", side, s)
}

func writeTiming(b *bufio.Writer, t *streamdiff.TimingPair) {
	fmt.Fprintln(b, "\ntiming (from the start of each capture):")
	rows := []struct {
		name string
		a, b time.Duration
	}{
		{"first event", t.A.FirstEvent, t.B.FirstEvent},
		{"first args delta", t.A.FirstArgsDelta, t.B.FirstArgsDelta},
		{"last event", t.A.Total, t.B.Total},
		{"largest gap", t.A.LargestGap, t.B.LargestGap},
	}
	fmt.Fprintf(b, "  %-17s %10s %10s\n", "", "A", "B")
	for _, r := range rows {
		fmt.Fprintf(b, "  %-17s %10s %10s\n", r.name, durationCell(r.a), durationCell(r.b))
	}
	if t.A.GapEvent >= 0 || t.B.GapEvent >= 0 {
		fmt.Fprintf(b, "  %-17s %10s %10s\n", "  ends at", EventRef("A", t.A.GapEvent, -1), EventRef("B", t.B.GapEvent, -1))
	}
}

func durationCell(d time.Duration) string {
	if d < 0 {
		return "-"
	}
	return fmt.Sprintf("%.3fs", d.Seconds())
}

// verdict is the last line: equivalent, or how many differences of which
// kinds.
func verdict(r *streamdiff.Result) string {
	if r.Equal() {
		return "equivalent: no differences beyond the ignored ones"
	}
	total := 0
	var parts []string
	for _, k := range streamdiff.Kinds() {
		if n := r.Counts[k.String()]; n > 0 {
			total += n
			parts = append(parts, fmt.Sprintf("%d %s", n, k))
		}
	}
	s := fmt.Sprintf("%s: %s", CountOf(total, "difference"), strings.Join(parts, ", "))
	if r.Omitted > 0 {
		s += fmt.Sprintf(" (the first %d listed)", len(r.Differences))
	}
	return s
}
