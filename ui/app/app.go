package app

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/ui/cell"
	"github.com/streamtap/streamtap/ui/keys"
	"github.com/streamtap/streamtap/ui/theme"
)

// Options configure the inspector.
type Options struct {
	// Source names the input in the status bar: "stdin", a path, "sample x".
	Source string
	// Live says the source is still being read: frames will arrive as
	// Frames messages and a SourceDone message will end them.
	Live bool
	// TotalBytes is the size of a file source, to show indexing progress.
	TotalBytes int64
	// NoColor drops colours (NO_COLOR, https://no-color.org).
	NoColor bool
	// KeepSecrets shows credential headers unredacted.
	KeepSecrets bool
	// SlowGap is the gap from which an event counts as slow (default 1s).
	SlowGap time.Duration
	// Save writes the first n bytes of the capture somewhere and returns
	// where; nil disables the save key. It runs as a command, off the
	// event loop.
	Save func(n int64) (string, error)
	// Checks computes the protocol findings of a session (StrictChecks
	// does as `streamtap check`); nil hides them. It is called from Update
	// when the stream ends and at most once a second while it streams, so
	// it must be linear in the stream.
	Checks func(s *model.Session) []checks.Finding
	// Replay, when above 0, plays the stream from its first event at this
	// speed once it has been read (streamtap replay on a terminal).
	Replay float64
	// Explain opens the inspector with the selected event's explanation
	// shown under the detail pane (the x key toggles it).
	Explain bool
	// LessonMode opens the inspector in lesson mode (--lesson, the L
	// key): at the first event with the explanation on, space stepping
	// one event a press, and from LessonWideWidth columns the timeline,
	// the calls as of the event and the explanation side by side.
	LessonMode bool
	// Reveal shows the timeline's rows up to the selected event only, as
	// they would arrive live (--reveal, the v key): a replay or a lesson
	// shows no event before the class reaches it.
	Reveal bool
	// Lesson is the one-line lesson of the sample opened, shown in the
	// status line until the first key press; "" shows none.
	Lesson string
	// FirstSession makes a sessions list (NewSessions) open on its first
	// session, as a file is read from the top, for an archive's sessions,
	// all known at once; without it the list follows the newest, as a
	// proxy's does.
	FirstSession bool
	// Keep, when above 0, bounds a sessions list to its newest Keep
	// sessions: older ended ones are let go, with their stored copies.
	Keep int
	// Request is the exchange `streamtap request` made: New shows its
	// request in a request pane, as the proxy's sessions do. nil shows
	// none.
	Request *model.Exchange
	// Warning, when set, stays in the status line of the sessions list
	// (before the source) or of the diff page: what the command said on
	// stderr as it started (a config file the proxy passed over, an
	// --ignore name that matches nothing), which the screen hides.
	Warning string
}

// Env is what the root shares with its pages and their panes: the
// options, the one key map, the styles and the status notice. The root
// owns it; the pages embed a pointer to it.
type Env struct {
	Opts   Options
	Keys   keys.Map
	Styles theme.Styles
	Note   Notice
}

// Notice is the status line's passing message.
type Notice struct {
	Text  string
	IsErr bool
	gen   int // drops the fade of an earlier notice
}

// noticeDoneMsg fades the status notice of generation gen.
type noticeDoneMsg struct{ gen int }

// Flash shows a notice in the status bar for a few seconds.
func (e *Env) Flash(text string, isErr bool) tea.Cmd {
	e.Note.gen++
	e.Note.Text, e.Note.IsErr = text, isErr
	gen := e.Note.gen
	return tea.Tick(4*time.Second, func(time.Time) tea.Msg { return noticeDoneMsg{gen} })
}

// Say shows text in the status bar until another notice replaces it or
// quiet clears it: a notice that lasts as long as what it tells (a
// session loading).
func (e *Env) Say(text string) {
	e.Note.gen++
	e.Note.Text, e.Note.IsErr = text, false
}

// Quiet clears the status notice.
func (e *Env) Quiet() { e.Note.Text = "" }

// Page is one screen of the program, shown above the help and status
// lines: the inspector, the proxy's sessions list or the diff page. The
// root shows one page and gives it every message but the few it handles
// itself (size, theme, the help, quit, a notice's fade); a page that holds
// another (the sessions list, the diff page, each holding inspectors)
// hands each message on to the one it is for.
type Page interface {
	// SetSize gives the page the whole terminal, w×h.
	SetSize(w, h int)
	// Update takes a key press, a mouse event or a paste, and every
	// message of the page's data and work (frames, results).
	Update(msg tea.Msg) tea.Cmd
	// Typing says a prompt takes every key, q and ? too.
	Typing() bool
	// Body draws the lines above the help line.
	Body() []string
	// HelpLine draws the one-line help (or the prompt being typed).
	HelpLine() string
	// Status draws the status line.
	Status() string
	// Work starts the background work the page waits for; it runs after
	// every message.
	Work() tea.Cmd
	// ShortHelp lists the keys that work now, for the help line.
	ShortHelp() []key.Binding
	// Restyle drops what was rendered with the styles before a theme
	// change.
	Restyle()
	// UpdateKeys enables only the keys that work now.
	UpdateKeys()
}

// A page may also implement these; the root asks for them.
type (
	// Holder is a page that holds a lock while the root runs Update and
	// View (the sessions list holds the open session's).
	Holder interface {
		HoldOpen()
		Release()
	}
	// TypeAheader is a page that kept keys pressed while it could not
	// take them (a session loading); the root handles them as if pressed
	// now, after the message that ended the wait.
	TypeAheader interface{ TypedAhead() []tea.KeyPressMsg }
	// LessonDropper is a page that shows the lesson of a sample until the
	// first key press, wherever it goes.
	LessonDropper interface{ DropLesson() }
	// FindingsLister is a page that shows a session's findings.
	FindingsLister interface{ Findings() []checks.Finding }
)

// Model is the one tea.Model of the program. It is a router: it owns the
// shared env and the pages, and gives each message to the page it is for.
// The inspector owns the session it shows: frames reach it only through
// Update, so nothing else may touch the session while the program runs.
// Made by NewSessions, the model shows the proxy's sessions list, from
// which one session opens in the inspector; made by NewDiff, two streams
// side by side (the diff page), either of which opens in an inspector.
type Model struct {
	*Env
	w, h  int
	small bool // below the minimum size: only a notice is drawn
	help  bool // the full help covers the page
	// helpTop is the first line of the full help shown, when it is
	// taller than the screen (fullHelp keeps it in range).
	helpTop int
	pg      Page // the page shown

	// behind says the last message was a batch another follows at once
	// (MoreFrames): View shows drawn, the screen drawn before it, and the
	// page's work waits for the next message.
	behind bool
	drawn  tea.View
}

// NewEnv makes the env of a program run with o.
func NewEnv(o Options) *Env {
	if o.SlowGap <= 0 {
		o.SlowGap = time.Second
	}
	e := &Env{Opts: o, Keys: keys.Default()}
	e.Styles = theme.New(true, o.NoColor)
	return e
}

// New returns the root showing page p, made with e.
func New(e *Env, p Page) *Model {
	m := &Model{Env: e, pg: p}
	m.updateKeybindings()
	return m
}

// FramesMsg is a batch of frames from the reader (see ingest.Pump), and
// the function that gives the batch back once it is added.
type FramesMsg struct {
	Batch *model.Batch
	Done  func()
	More  bool // another batch follows at once (MoreFrames)
}

// SourceDoneMsg says the source ended: err is nil at a clean EOF.
type SourceDoneMsg struct{ Err error }

// RedrawMsg asks for the screen to be drawn, after MoreFrames.
type RedrawMsg struct{}

// Init asks the terminal for its background colour, to pick the theme.
func (m *Model) Init() tea.Cmd { return tea.RequestBackgroundColor }

// Update routes each message: input to the page shown, the data and
// results of work to the page they are for. After every message it starts
// the work the page shown waits for and brings the key bindings up to
// date.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if h, ok := m.pg.(Holder); ok {
		h.HoldOpen()
		defer h.Release()
	}
	var cmd tea.Cmd
	switch typed := msg.(type) {
	case tea.WindowSizeMsg:
		m.handleSize(typed.Width, typed.Height)
	case tea.BackgroundColorMsg:
		m.handleTheme(typed.IsDark())
	case tea.KeyPressMsg:
		cmd = m.handleKey(typed, msg)
	case tea.MouseClickMsg, tea.MouseWheelMsg:
		if !m.small && !m.help {
			cmd = m.pg.Update(msg)
		}
	case noticeDoneMsg:
		if typed.gen == m.Note.gen {
			m.Note.Text = ""
		}
	default:
		cmd = m.pg.Update(msg)
	}
	if t, ok := m.pg.(TypeAheader); ok {
		for _, k := range t.TypedAhead() { // typed while it waited: they were for it
			cmd = tea.Batch(cmd, m.handleKey(k, k))
		}
	}
	if fm, ok := msg.(FramesMsg); ok && fm.More && m.drawn.Content != "" {
		m.behind = true
		return m, cmd
	}
	m.behind = false
	if !m.help {
		cmd = tea.Batch(cmd, m.pg.Work())
	}
	m.updateKeybindings()
	return m, cmd
}

func (m *Model) handleSize(w, h int) {
	m.w, m.h = w, h
	m.small = TooSmall(w, h)
	m.pg.SetSize(w, h)
}

func (m *Model) handleTheme(dark bool) {
	if dark == m.Styles.IsDark {
		return
	}
	m.Styles = theme.New(dark, m.Opts.NoColor)
	m.pg.Restyle()
}

// handleKey routes a key: the full help takes it while shown, then a
// prompt being typed, then the keys of the whole program (quit, help),
// then the page shown. raw is msg as Update got it, passed on as it is
// rather than boxed again on every key.
func (m *Model) handleKey(msg tea.KeyPressMsg, raw tea.Msg) tea.Cmd {
	k := &m.Keys
	if l, ok := m.pg.(LessonDropper); ok {
		l.DropLesson() // the lesson stays until the first key
	}
	if m.help {
		if key.Matches(msg, k.App.Help, k.Prompt.Cancel) {
			m.help = false
		} else if key.Matches(msg, k.App.Quit) {
			return tea.Quit
		} else if d, ok := keys.NavDelta(k, msg, m.h-3); ok {
			m.helpTop = cell.Clamp(m.helpTop+cell.Clamp(d, -m.h*100, m.h*100), 0, m.h*100)
		}
		return nil
	}
	p := m.pg
	if p.Typing() {
		return p.Update(raw)
	}
	switch {
	case key.Matches(msg, k.App.Quit):
		return tea.Quit
	case key.Matches(msg, k.App.Help):
		m.help, m.helpTop = true, 0
		return nil
	}
	return p.Update(raw)
}

// updateKeybindings enables only the keys that work now, so help never
// offers a key that does nothing.
func (m *Model) updateKeybindings() { m.pg.UpdateKeys() }

// View draws the screen. It costs O(visible rows).
func (m *Model) View() tea.View {
	if h, ok := m.pg.(Holder); ok {
		h.HoldOpen()
		defer h.Release()
	}
	if m.behind {
		return m.drawn
	}
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "streamtap"
	m.drawn = v
	return v
}

// render builds the screen content: the page shown (or the full help
// over it), its help line and its status line.
func (m *Model) render() string {
	if m.w == 0 {
		return ""
	}
	if m.small {
		return cell.Fit(fmt.Sprintf("streamtap needs at least %d×%d (now %d×%d)", MinWidth, MinHeight, m.w, m.h), m.w)
	}
	p := m.pg
	var lines []string
	if m.help {
		lines = strings.Split(m.fullHelp(m.w, m.h-2), "\n")
	} else {
		lines = p.Body()
	}
	lines = append(lines, p.HelpLine(), p.Status())
	return strings.Join(lines, "\n")
}

// Minimum terminal size; below it the UI shows a one-line notice.
const (
	MinWidth  = 60
	MinHeight = 15
)

// TooSmall says a w×h terminal is below the minimum size.
func TooSmall(w, h int) bool { return w < MinWidth || h < MinHeight }

// Findings returns what the findings pane lists, in its order: what the
// user sees, for tests that hold it against `streamtap check`.
func (m *Model) Findings() []checks.Finding {
	if f, ok := m.pg.(FindingsLister); ok {
		return slices.Clone(f.Findings())
	}
	return nil
}
