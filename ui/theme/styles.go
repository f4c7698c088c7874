package theme

import (
	"image/color"

	"charm.land/bubbles/v2/textinput"
	"charm.land/lipgloss/v2"

	"github.com/streamtap/streamtap/model"
)

// Glyphs used across panes.
const (
	GlyphPending  = "●"
	GlyphDone     = "✓"
	GlyphFailed   = "✗"
	GlyphCursor   = "▌"
	GlyphSep      = "│"
	GlyphEllipsis = "…"
	GlyphCR       = "␍"
	GlyphLF       = "␊"
	GlyphArrow    = "→"

	// Timeline gutter markers of the rows a finding cites, one per
	// severity, so they still differ without colour (NO_COLOR).
	GlyphFindingErr  = "✗"
	GlyphFindingWarn = "!"
	GlyphFindingInfo = "◇"

	// The lanes pane's marks: what an event did to an item's or a
	// response's lane, and the lane's life between its marks.
	GlyphLaneOpen     = "●"
	GlyphLaneArgs     = "│"
	GlyphLaneText     = "┆"
	GlyphLaneFinal    = "◇"
	GlyphLaneDone     = "◆"
	GlyphLaneTerminal = "■"
	GlyphLaneSentinel = "□"
	GlyphLaneTouch    = "·"
	GlyphLaneLife     = "╎"
)

// palette holds the semantic colour tokens of one theme.
type palette struct {
	fg, fgMuted, fgSubtle, accent, selBg, markBg, ok, warn, err, info, delta,
	jsonKey, jsonString, jsonNumber, jsonLiteral, jsonPunct color.Color
}

func newPalette(isDark bool) palette {
	ld := lipgloss.LightDark(isDark)
	c := lipgloss.Color
	return palette{
		fg:       ld(c("#1f2328"), c("#d8dee9")),
		fgMuted:  ld(c("#6e7781"), c("#8b93a1")),
		fgSubtle: ld(c("#8c959f"), c("#5c6370")),
		accent:   ld(c("#8250df"), c("#b392f0")),
		selBg:    ld(c("#ddf4ff"), c("#2d3343")),
		markBg:   ld(c("#fff8c5"), c("#5a4a00")),
		ok:       ld(c("#1a7f37"), c("#7ee787")),
		warn:     ld(c("#9a6700"), c("#e3b341")),
		err:      ld(c("#cf222e"), c("#ff7b72")),
		info:     ld(c("#0969da"), c("#79c0ff")),
		delta:    ld(c("#0a3069"), c("#a5d6ff")),
		// Keys blue and strings green, as jq and fx colour JSON: two
		// blues told keys from strings only by how pale they were.
		jsonKey:     ld(c("#0550ae"), c("#79c0ff")),
		jsonString:  ld(c("#116329"), c("#a5e075")),
		jsonNumber:  ld(c("#953800"), c("#ffa657")),
		jsonLiteral: ld(c("#8250df"), c("#d2a8ff")),
		jsonPunct:   ld(c("#6e7781"), c("#8b949e")),
	}
}

// TokClass is the class of a JSON token, the key of every JSON style.
type TokClass uint8

const (
	TokPlain TokClass = iota
	TokKey
	TokString
	TokNumber
	TokLiteral
	TokPunct
	TokError
	TokComment // raw view: SSE comment lines
	TokControl // raw view: line endings and other made-visible bytes
	TokField   // raw view: SSE field names
	numTokClasses
)

// Styles is every style the UI uses, built once per theme by New and
// passed down from the root.
type Styles struct {
	noColor bool
	IsDark  bool

	Base, Muted, Subtle, Accent, OK, Warn, Err, Sep lipgloss.Style

	Title struct{ Focused, Blurred, Tab, TabActive lipgloss.Style }

	Timeline struct {
		Selected, SelectedBlur, Ord, Time, Gap, SlowGap, Seq, Summary, Match, Flag, Header lipgloss.Style
		Kind                                                                               [maxKinds]lipgloss.Style
		// Finding styles the gutter marker of a row a finding cites, by
		// the finding's severity.
		Finding [NumSeverities]lipgloss.Style
	}

	// JSON and JSONMark are indexed by TokClass; JSONMark marks the fragment
	// the selected event added.
	JSON, JSONMark [numTokClasses]lipgloss.Style

	Calls struct{ Name, ID, Header, StateOK, StateWarn, StateErr, Diff lipgloss.Style }

	Diff struct{ Add, Del, Change, Path, Gap lipgloss.Style }

	Status struct{ Bar, Live, Ended, Error, Warn, Info lipgloss.Style }

	Help struct{ Key, Desc, Group lipgloss.Style }

	// Prompt styles the search, filter and go-to input.
	Prompt textinput.Styles
}

// maxKinds bounds the per-kind style table; model has 12 kinds.
const maxKinds = 16

// kindList is every kind, to build the per-kind styles.
var kindList = model.Kinds()

// Glyphs of the diff page (streamtap A --diff B): the gutter mark of a row
// that differs, by kind of difference, so that kinds still differ without
// colour; and the cursor of the other side when its selection is only the
// nearest counterpart, or has none.
const (
	GlyphOnlyInA   = "-"
	GlyphOnlyInB   = "+"
	GlyphReordered = "↕"
	GlyphField     = "~"
	GlyphChunking  = "÷"
	GlyphSequence  = "#"
	GlyphSemantic  = "◆" // ids, call, text, outcome, timing
	GlyphNear      = "≈"
	GlyphNoMatch   = "∅"
	// GlyphFiller hatches a row of the side by side that stands opposite
	// an event only the other side has.
	GlyphFiller = "╱"
)

// New is the only place that creates lipgloss styles. With noColor
// (NO_COLOR set, https://no-color.org) it uses attributes only: bold,
// reverse, underline.
func New(isDark, noColor bool) Styles {
	p := newPalette(isDark)
	var s Styles
	s.noColor, s.IsDark = noColor, isDark
	ns := lipgloss.NewStyle
	fg := func(c color.Color) lipgloss.Style {
		if noColor {
			return ns()
		}
		return ns().Foreground(c)
	}
	s.Base = fg(p.fg)
	s.Muted = fg(p.fgMuted)
	s.Subtle = fg(p.fgSubtle)
	s.Accent = fg(p.accent).Bold(true)
	s.OK = fg(p.ok)
	s.Warn = fg(p.warn).Bold(true)
	s.Err = fg(p.err).Bold(true)
	s.Sep = fg(p.fgSubtle)

	s.Title.Focused = fg(p.accent).Bold(true)
	s.Title.Blurred = fg(p.fgMuted)
	s.Title.Tab = fg(p.fgMuted)
	s.Title.TabActive = fg(p.accent).Bold(true).Underline(true)

	t := &s.Timeline
	if noColor {
		t.Selected = ns().Reverse(true)
		t.SelectedBlur = ns().Underline(true)
	} else {
		t.Selected = ns().Background(p.selBg).Bold(true)
		t.SelectedBlur = ns().Background(p.selBg)
	}
	t.Ord = fg(p.fgMuted)
	t.Time = fg(p.fgMuted)
	t.Gap = fg(p.fgSubtle)
	t.SlowGap = fg(p.warn).Bold(true)
	t.Seq = fg(p.fgMuted)
	t.Summary = fg(p.fg)
	t.Match = fg(p.accent).Bold(true)
	t.Flag = fg(p.warn)
	t.Header = fg(p.fgMuted).Bold(true)
	t.Finding[SevInfo] = fg(p.info)
	t.Finding[SevWarning] = fg(p.warn).Bold(true)
	t.Finding[SevError] = fg(p.err).Bold(true)
	kindColor := map[model.Kind]color.Color{
		model.KindUnknown: p.warn, model.KindLifecycle: p.info, model.KindItemOpen: p.accent,
		model.KindArgsDelta: p.delta, model.KindArgsDone: p.ok, model.KindItemDone: p.ok,
		model.KindTextDelta: p.fg, model.KindTextDone: p.ok, model.KindTerminal: p.ok,
		model.KindKeepalive: p.fgSubtle, model.KindSentinel: p.fgMuted, model.KindError: p.err,
	}
	for i, k := range kindList {
		t.Kind[i] = fg(kindColor[k])
		if k == model.KindTerminal || k == model.KindError {
			t.Kind[i] = t.Kind[i].Bold(true)
		}
	}

	classColor := [numTokClasses]color.Color{
		TokPlain: p.fg, TokKey: p.jsonKey, TokString: p.jsonString, TokNumber: p.jsonNumber,
		TokLiteral: p.jsonLiteral, TokPunct: p.jsonPunct, TokError: p.err,
		TokComment: p.fgMuted, TokControl: p.warn, TokField: p.info,
	}
	for c := range numTokClasses {
		s.JSON[c] = fg(classColor[c])
		if noColor {
			s.JSONMark[c] = ns().Underline(true).Bold(true)
		} else {
			s.JSONMark[c] = fg(classColor[c]).Background(p.markBg).Underline(true)
		}
	}
	s.JSON[TokError] = s.JSON[TokError].Underline(true)
	s.JSON[TokComment] = s.JSON[TokComment].Italic(true)

	s.Calls.Name = fg(p.accent).Bold(true)
	s.Calls.ID = fg(p.fgMuted)
	s.Calls.Header = fg(p.fg).Bold(true)
	s.Calls.StateOK = fg(p.ok)
	s.Calls.StateWarn = fg(p.warn)
	s.Calls.StateErr = fg(p.err).Bold(true)
	if noColor {
		s.Calls.Diff = ns().Reverse(true)
	} else {
		s.Calls.Diff = fg(p.err).Background(p.markBg).Bold(true)
	}

	s.Diff.Add = fg(p.ok)
	s.Diff.Del = fg(p.err)
	s.Diff.Change = fg(p.warn)
	s.Diff.Path = fg(p.jsonKey)
	s.Diff.Gap = fg(p.err).Bold(true)

	s.Status.Bar = fg(p.fg)
	s.Status.Live = fg(p.ok).Bold(true)
	s.Status.Ended = fg(p.fgMuted)
	s.Status.Error = fg(p.err).Bold(true)
	s.Status.Warn = fg(p.warn).Bold(true)
	s.Status.Info = fg(p.info)

	s.Help.Key = fg(p.accent).Bold(true)
	s.Help.Desc = fg(p.fgMuted)
	s.Help.Group = fg(p.fg).Bold(true).Underline(true)

	// A steady cursor: a blinking one would redraw the screen twice a
	// second for nothing.
	in := textinput.Styles{Cursor: textinput.CursorStyle{Color: p.accent}}
	in.Focused.Text, in.Focused.Prompt = fg(p.fg), s.Accent
	in.Focused.Placeholder, in.Focused.Suggestion = s.Muted, s.Muted
	in.Blurred = in.Focused
	if noColor {
		in.Cursor.Color = nil
	}
	s.Prompt = in
	return s
}

// Kind returns the timeline style of an event kind.
func (s *Styles) Kind(k model.Kind) lipgloss.Style {
	if int(k) < len(s.Timeline.Kind) {
		return s.Timeline.Kind[k]
	}
	return s.Timeline.Kind[0]
}
