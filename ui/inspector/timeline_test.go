package inspector

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/ui/plain"
	"github.com/streamtap/streamtap/ui/theme"
)

// stdinRecording is what `cat sample | streamtap --save-timed FILE -`
// writes: a header block with no HTTP head (its first event, the header
// comment, has no time), then each event with the time its line arrived,
// 10 ms apart.
func stdinRecording(t testing.TB, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	rec := capture.NewRecorder(&buf, &capture.Exchange{Source: "stdin", HeadAt: capture.NoTime},
		capture.RecordOptions{Format: capture.FormatAuto})
	lines := bytes.SplitAfter(data, []byte("\n"))
	for i, l := range lines {
		if err := rec.Write(l, time.Duration(i+1)*10*time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Close(time.Duration(len(lines)+1) * 10 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// timelineLines is the timeline pane of a plain view: its header row and
// rows, cut at the pane's width.
func timelineLines(m *Model) []string {
	lines := strings.Split(plainView(m), "\n")
	var out []string
	for _, l := range lines[1 : m.insp.tl.h+2] {
		out = append(out, ansi.Cut(l, 0, m.insp.r.timeline.W))
	}
	return out
}

func TestTimedRecordingFromStdinShowsTimes(t *testing.T) {
	rec := stdinRecording(t, sampleBytes(t, "responses-single-call"))
	s := newSession(rec)
	if s.Events.At(0).HasTime() || !s.Events.At(1).HasTime() {
		t.Fatalf("the recording should start with an untimed header comment, then timed events")
	}
	for _, w := range []int{80, 120, 200} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			m := newProgram(s, Options{Source: "rec.sse"})
			m.Update(tea.WindowSizeMsg{Width: w, Height: 30})
			tl := strings.Join(timelineLines(m), "\n")
			if !strings.Contains(tl, "gap") || !strings.Contains(tl, "+30ms") {
				t.Errorf("the timeline of a timed recording lacks its gap column:\n%s", tl)
			}
			if w >= 200 && (!strings.Contains(tl, "time") || !strings.Contains(tl, "0.060s")) {
				t.Errorf("the timeline of a timed recording lacks its time column:\n%s", tl)
			}
		})
	}
	// The plain timeline prints each event's recorded time and its gap.
	var out bytes.Buffer
	prev := capture.NoTime
	for ord := range s.Len() {
		ev := s.Events.At(ord)
		if err := plain.WriteTimelineLine(&out, s, ev, ord, prev, nil); err != nil {
			t.Fatal(err)
		}
		prev = ev.At
	}
	lines := strings.Split(out.String(), "\n")
	if !strings.Contains(lines[1], "0.030s") || !strings.Contains(lines[2], "0.060s") || !strings.Contains(lines[2], "+0.030s") {
		t.Errorf("plain timeline:\n%s\nwant event 1 at 0.030s, event 2 at 0.060s, 0.030s after it", strings.Join(lines[:3], "\n"))
	}
}

// TestTimedDecidedByAnyEvent: a live stream whose first events carry no
// time (a recording's header, a file replayed) gets its time columns as
// soon as a timed event arrives.
func TestTimedDecidedByAnyEvent(t *testing.T) {
	data := sampleBytes(t, "responses-single-call")
	fs := frames(data)
	for i := range fs {
		if i >= 3 {
			fs[i].At = time.Duration(i) * 50 * time.Millisecond
		}
	}
	m := liveModel(t, data, 200, 30)
	m.Update(batch(fs[:3]))
	if tl := strings.Join(timelineLines(m), "\n"); strings.Contains(tl, " gap ") {
		t.Fatalf("untimed events should not show time columns yet:\n%s", tl)
	}
	m.Update(batch(fs[3:]))
	if tl := strings.Join(timelineLines(m), "\n"); !strings.Contains(tl, " gap ") || !strings.Contains(tl, "+50ms") {
		t.Fatalf("after timed events arrived the time columns should show:\n%s", tl)
	}
}

func TestTimelineHeader(t *testing.T) {
	untimed := sampleBytes(t, "responses-parallel-calls")
	timed := stdinRecording(t, untimed)
	chat := sampleBytes(t, "chat-parallel-calls")
	tests := []struct {
		name string
		data []byte
		w    int
		want []string
		not  []string
	}{
		{"responses 80", untimed, 80, []string{"#", "seq", "type", "summary"}, []string{"time", "gap"}},
		{"responses 120", untimed, 120, []string{"#", "seq", "type", "summary"}, []string{"time", "gap"}},
		{"responses 200", untimed, 200, []string{"#", "seq", "type", "summary"}, []string{"time", "gap"}},
		{"timed 80", timed, 80, []string{"#", "gap", "type", "summary"}, nil},
		{"timed 140", timed, 140, []string{"#", "time", "gap", "type", "summary"}, nil},
		{"timed 200", timed, 200, []string{"#", "time", "gap", "seq", "type", "summary"}, nil},
		{"chat has no seq", chat, 120, []string{"#", "type", "summary"}, []string{"seq"}},
		{"narrow", untimed, 60, []string{"#", "type"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newTestModel(t, tt.data, tt.w, 30)
			header := timelineLines(m)[0]
			fields := strings.Fields(header)
			for _, w := range tt.want {
				if !contains(fields, w) {
					t.Errorf("header %q lacks %q", header, w)
				}
			}
			for _, w := range tt.not {
				if contains(fields, w) {
					t.Errorf("header %q should not name %q", header, w)
				}
			}
			// The header names the columns in row order.
			last := -1
			for _, f := range fields {
				i := strings.Index(header, " "+f)
				if f == "#" {
					i = strings.Index(header, "#")
				}
				if i < last {
					t.Errorf("header %q: %q out of order", header, f)
				}
				last = i
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestTimelineKeepsFragmentsVisible: at every width the argument fragment
// an args-delta row added is shown whole, for timed and untimed streams.
func TestTimelineKeepsFragmentsVisible(t *testing.T) {
	untimed := sampleBytes(t, goldenSample)
	inputs := []struct {
		name string
		data []byte
	}{{"untimed", untimed}, {"timed", stdinRecording(t, untimed)}}
	for _, in := range inputs {
		for _, w := range []int{80, 110, 115, 120, 125, 130, 135, 140, 200} {
			t.Run(fmt.Sprintf("%s_%d", in.name, w), func(t *testing.T) {
				m := newTestModel(t, in.data, w, 40)
				m.insp.tl.SelectOrd(30) // the deltas of both calls interleave around it
				rows := timelineLines(m)[1:]
				seen := 0
				for i, row := range rows {
					ord := m.insp.tl.ordAt(m.insp.tl.offset + i)
					ev := m.insp.s.Events.At(ord)
					if ev.Kind != model.KindArgsDelta {
						continue
					}
					frag, ok := plain.Fragment(&m.insp.s.Items[ev.Item].Args, ord)
					if !ok {
						continue
					}
					seen++
					if want := "+" + plain.QuoteShort(frag); !strings.Contains(row, want) {
						t.Errorf("row of event %d lacks its fragment %s: %q", ord, want, row)
					}
				}
				if seen == 0 {
					t.Fatalf("no args-delta row in view:\n%s", strings.Join(rows, "\n"))
				}
			})
		}
	}
}

// TestTimelineMarksCitedEvents: rows cited by a finding carry a marker in
// the gutter, styled by the finding's severity.
func TestTimelineMarksCitedEvents(t *testing.T) {
	m := goldenModel(t, 120, 40)
	m.insp.tl.SelectOrd(0)
	rowOf := func(ord int) (string, string) {
		lines := strings.Split(viewOf(m), "\n")
		l := lines[2+ord-m.insp.tl.offset]
		return l, ansi.Cut(ansi.Strip(l), 0, m.insp.r.timeline.W)
	}
	tests := []struct {
		ord   int
		glyph string
		style func() string
	}{
		{21, theme.GlyphFindingWarn, func() string { return m.Styles.Timeline.Finding[theme.SevWarning].Render(theme.GlyphFindingWarn) }},
		{24, theme.GlyphFindingWarn, func() string { return m.Styles.Timeline.Finding[theme.SevWarning].Render(theme.GlyphFindingWarn) }},
		{29, theme.GlyphFindingErr, func() string { return m.Styles.Timeline.Finding[theme.SevError].Render(theme.GlyphFindingErr) }},
	}
	for _, tt := range tests {
		styled, plain := rowOf(tt.ord)
		if !strings.HasPrefix(plain, " "+tt.glyph) {
			t.Errorf("row %d = %q; want the marker %q in the gutter", tt.ord, plain, tt.glyph)
		}
		if !strings.Contains(styled, tt.style()) {
			t.Errorf("row %d: the marker is not styled by severity: %q", tt.ord, styled)
		}
	}
	for _, ord := range []int{20, 22, 30} {
		if _, plain := rowOf(ord); !strings.HasPrefix(plain, "  ") {
			t.Errorf("row %d = %q; an uncited row has no marker", ord, plain)
		}
	}
}
