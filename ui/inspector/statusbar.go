package inspector

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/termtext"
	"github.com/streamtap/streamtap/ui/cell"
	"github.com/streamtap/streamtap/ui/plain"
	"github.com/streamtap/streamtap/ui/theme"
)

// statusBar is the bottom line: source, dialect, size, how the stream
// stands or ended, follow and replay state, and findings by severity.
type statusBar struct {
	s  *model.Session
	st *theme.Styles
	w  int
	// lesson is the opened sample's one-line lesson. It takes the line
	// until the first key press rather than fading on a timer: a sample
	// loads at once, so a timed lesson would go while the eye is still on
	// the panes; a key says the reader has moved on.
	lesson string
	// outcome is how the stream ended, read once: an error's outcome
	// joins its code and message, which a hostile stream makes megabytes.
	outcome OutcomeCache
}

// OutcomeCache keeps a session's outcome until its events or its end
// change it.
type OutcomeCache struct {
	s     *model.Session
	n     int
	ended bool
	o     model.Outcome
}

// Of returns s's outcome, read again only when s is another session, has
// more events, or has ended since.
func (c *OutcomeCache) Of(s *model.Session) model.Outcome {
	ended, _ := s.Ended()
	if c.s != s || c.n != s.Len() || c.ended != ended {
		c.s, c.n, c.ended, c.o = s, s.Len(), ended, s.Outcome()
	}
	return c.o
}

func (b *statusBar) setSize(w int) { b.w = w }

// statusInfo is what the root knows that the session does not.
type statusInfo struct {
	source     string
	live       bool // the source is still being read
	totalBytes int64
	follow     bool
	replay     string // "", or "▶ replay 2x" while replaying, "⏸ paused"
	paused     bool   // the replay is paused
	filter     string
	errs       int
	warns      int
	infos      int
	checks     bool
	notice     string
	noticeErr  bool
	at         string // "event #3 of 14": a replay or lesson short of the end
	lesson     string // lesson mode's left of the line: where, what the event does
}

// minNotice is the least room a notice is cut to beside the status
// line's facts; with less, the notice takes the line.
const minNotice = 16

// minSource is the least room the source's name is cut to before it
// goes from the status line.
const minSource = 16

func (b *statusBar) view(in statusInfo) string {
	if b.lesson != "" && !(in.notice != "" && in.noticeErr) {
		return b.lessonView(in)
	}
	if in.lesson != "" {
		return b.lessonModeView(in)
	}
	st, s := b.st, b.s
	sep := st.Subtle.Render(" · ")
	// The left side's segments, and the order they go in when the line is
	// short: the byte size first, then the source's name, then the event
	// count; the dialect and how the stream stands stay.
	source := st.Accent.Render(termtext.Safe(in.source))
	dialect := ""
	if d := s.Dialect(); d != model.DialectUnknown {
		dialect = st.Base.Render(d.String())
	}
	events, size, state := st.Base.Render(plain.CountOf(s.Len(), "event")), st.Base.Render(plain.Bytes(s.Bytes())), b.state(in)
	lefts := [][]string{
		{source, dialect, events, size, state},
		{source, dialect, events, state},
		{dialect, events, state},
		{dialect, state},
	}
	var right []string
	notice := termtext.Safe(in.notice)
	noticeStyle := st.Status.Info
	if in.noticeErr {
		noticeStyle = st.Status.Error
	}
	if in.filter != "" {
		right = append(right, st.Status.Info.Render("filter "+termtext.Safe(in.filter)))
	}
	switch {
	case in.paused:
		right = append(right, st.Status.Warn.Render(in.replay))
	case in.replay != "":
		right = append(right, st.Status.Live.Render(in.replay))
	}
	switch {
	case in.live && in.follow:
		right = append(right, st.Status.Live.Render("follow on"))
	case in.live:
		right = append(right, st.Muted.Render("follow off"))
	}
	if in.checks {
		switch {
		case in.errs+in.warns+in.infos == 0:
			right = append(right, st.OK.Render("no findings"))
		default:
			var parts []string
			if in.errs > 0 {
				parts = append(parts, st.Status.Error.Render(fmt.Sprintf("%d err", in.errs)))
			}
			if in.warns > 0 {
				parts = append(parts, st.Status.Warn.Render(fmt.Sprintf("%d warn", in.warns)))
			}
			if in.infos > 0 {
				parts = append(parts, st.Status.Info.Render(fmt.Sprintf("%d info", in.infos)))
			}
			right = append(right, strings.Join(parts, " "))
		}
	}
	rest := strings.Join(right, sep)
	r := rest
	if notice != "" {
		r = strings.Join(slices.DeleteFunc([]string{noticeStyle.Render(notice), rest}, func(s string) bool { return s == "" }), sep)
	}
	var l string
	for i, segs := range lefts {
		segs = slices.DeleteFunc(segs, func(s string) bool { return s == "" })
		l = strings.Join(segs, sep)
		over := ansi.StringWidth(l) + 1 + ansi.StringWidth(r) - b.w
		if over <= 0 {
			break
		}
		// Before the source goes, it is cut to the room left (a
		// session's long request line keeps its start).
		if i == 1 && segs[0] == source {
			if room := ansi.StringWidth(source) - over; room >= minSource {
				segs[0] = cell.Fit(source, room)
				l = strings.Join(segs, sep)
				break
			}
		}
	}
	if notice != "" && ansi.StringWidth(l)+1+ansi.StringWidth(r) > b.w {
		// A notice too long for the line is cut to the room the facts
		// leave it, rather than push them off.
		room := b.w - ansi.StringWidth(l) - 1
		if rest != "" {
			room -= ansi.StringWidth(rest) + ansi.StringWidth(sep)
		}
		if room >= minNotice {
			r = noticeStyle.Render(cell.Fit(notice, room))
			if rest != "" {
				r += sep + rest
			}
		}
	}
	gap := b.w - ansi.StringWidth(l) - ansi.StringWidth(r)
	if gap < 1 {
		// Not enough room: the right side (state the user changes) wins
		// over the tail of the left side.
		room := b.w - ansi.StringWidth(r) - 1
		if room < 10 {
			return cell.Fit(l, b.w)
		}
		l = cell.Fit(l, room)
		gap = 1
	}
	return cell.Fit(l+strings.Repeat(" ", gap)+r, b.w)
}

// state says how the stream stands: live, indexing, or how it ended.
func (b *statusBar) state(in statusInfo) string {
	st := b.st
	if in.live {
		state := "live"
		if in.totalBytes > 0 {
			state = fmt.Sprintf("indexing %d%%", b.s.Bytes()*100/max(in.totalBytes, 1))
		}
		return st.Status.Live.Render(state)
	}
	if in.at != "" {
		return st.Status.Live.Render(in.at)
	}
	o := b.outcome.Of(b.s)
	text := "ended: " + o.State
	if o.Detail != "" {
		text += " (" + plain.SafeLabel(o.Detail) + ")"
	}
	style := st.Status.Ended
	switch o.State {
	case "failed", "error", "truncated", "blocked", model.OutcomeNotAStream:
		style = st.Status.Error
	case "incomplete":
		style = st.Status.Warn
	}
	return style.Render(text)
}

// lessonView is the status line while the lesson shows: the source, the
// lesson and, at the right, how the stream stands. What does not fit goes,
// the source first, then the state; the lesson stays. An error notice
// takes the line back (see view): what broke matters more.
func (b *statusBar) lessonView(in statusInfo) string {
	st := b.st
	sep := st.Subtle.Render(" · ")
	lesson := st.Status.Info.Render("lesson") + " " + st.Base.Render(termtext.Safe(b.lesson))
	state := b.state(in)
	for _, left := range []string{st.Accent.Render(termtext.Safe(in.source)) + sep + lesson, lesson} {
		if gap := b.w - ansi.StringWidth(left) - ansi.StringWidth(state); gap >= 1 {
			return cell.Fit(left+strings.Repeat(" ", gap)+state, b.w)
		}
	}
	return cell.Fit(lesson, b.w)
}

// lessonModeView is the status line in lesson mode: where the lesson is
// and what the event does at the left, how the stream stands at the
// right once at the last event. A notice takes the right's place;
// what does not fit is cut from the end of the does line.
func (b *statusBar) lessonModeView(in statusInfo) string {
	st := b.st
	right := "" // short of the end, the left says where the class is
	if in.at == "" {
		right = b.state(in)
	}
	if in.notice != "" {
		style := st.Status.Info
		if in.noticeErr {
			style = st.Status.Error
		}
		right = style.Render(termtext.Safe(in.notice))
	}
	room := b.w - ansi.StringWidth(right) - 1
	if room < 20 {
		return cell.Fit(in.lesson, b.w)
	}
	left := cell.Fit(in.lesson, min(room, ansi.StringWidth(in.lesson)))
	gap := b.w - ansi.StringWidth(left) - ansi.StringWidth(right)
	return cell.Fit(left+strings.Repeat(" ", max(gap, 1))+right, b.w)
}
