package ui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
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
}

// env is what the root shares with its pages and their panes: the
// options, the one key map, the styles and the status notice. The root
// owns it; the pages embed a pointer to it.
type env struct {
	o    Options
	keys keyMap
	st   styles
	note notice
}

// notice is the status line's passing message.
type notice struct {
	text  string
	isErr bool
	gen   int // drops the fade of an earlier notice
}

// noticeDoneMsg fades the status notice of generation gen.
type noticeDoneMsg struct{ gen int }

// flash shows a notice in the status bar for a few seconds.
func (e *env) flash(text string, isErr bool) tea.Cmd {
	e.note.gen++
	e.note.text, e.note.isErr = text, isErr
	gen := e.note.gen
	return tea.Tick(4*time.Second, func(time.Time) tea.Msg { return noticeDoneMsg{gen} })
}

// say shows text in the status bar until another notice replaces it or
// quiet clears it: a notice that lasts as long as what it tells (a
// session loading).
func (e *env) say(text string) {
	e.note.gen++
	e.note.text, e.note.isErr = text, false
}

// quiet clears the status notice.
func (e *env) quiet() { e.note.text = "" }

// page is one screen of the program, shown above the help and status
// lines: the inspector, the proxy's sessions list or the diff page. The
// root shows one page and gives it every message but the few it handles
// itself (size, theme, the help, quit, a notice's fade); a page that holds
// another (the sessions list, the diff page, each holding inspectors)
// hands each message on to the one it is for.
type page interface {
	// setSize gives the page the whole terminal, w×h.
	setSize(w, h int)
	// update takes a key press, a mouse event or a paste, and every
	// message of the page's data and work (frames, results).
	update(msg tea.Msg) tea.Cmd
	// typing says a prompt takes every key, q and ? too.
	typing() bool
	// body draws the lines above the help line.
	body() []string
	// helpLine draws the one-line help (or the prompt being typed).
	helpLine() string
	// status draws the status line.
	status() string
	// work starts the background work the page waits for; it runs after
	// every message.
	work() tea.Cmd
	// shortHelp lists the keys that work now, for the help line.
	shortHelp() []key.Binding
	// restyle drops what was rendered with the styles before a theme
	// change.
	restyle()
	// updateKeys enables only the keys that work now.
	updateKeys()
}

// A page may also implement these; the root asks for them.
type (
	// holder is a page that holds a lock while the root runs Update and
	// View (the sessions list holds the open session's).
	holder interface {
		holdOpen()
		release()
	}
	// typeAheader is a page that kept keys pressed while it could not
	// take them (a session loading); the root handles them as if pressed
	// now, after the message that ended the wait.
	typeAheader interface{ typedAhead() []tea.KeyPressMsg }
	// lessonDropper is a page that shows the lesson of a sample until the
	// first key press, wherever it goes.
	lessonDropper interface{ dropLesson() }
	// findingsLister is a page that shows a session's findings.
	findingsLister interface{ findings() []checks.Finding }
)

// Model is the one tea.Model of the program. It is a router: it owns the
// shared env and the pages, and gives each message to the page it is for.
// The inspector owns the session it shows: frames reach it only through
// Update, so nothing else may touch the session while the program runs.
// Made by NewSessions, the model shows the proxy's sessions list, from
// which one session opens in the inspector; made by NewDiff, two streams
// side by side (the diff page), either of which opens in an inspector.
type Model struct {
	*env
	w, h  int
	small bool // below the minimum size: only a notice is drawn
	help  bool // the full help covers the page
	pg    page // the page shown

	insp *inspector
	list *sessionsPage // the proxy's sessions list, or nil
	dv   *diffPage     // the page of --diff, or nil

	// behind says the last message was a batch another follows at once
	// (MoreFrames): View shows drawn, the screen drawn before it, and the
	// page's work waits for the next message.
	behind bool
	drawn  tea.View
}

// newEnv makes the env of a program run with o.
func newEnv(o Options) *env {
	if o.SlowGap <= 0 {
		o.SlowGap = time.Second
	}
	e := &env{o: o, keys: defaultKeyMap()}
	e.st = newStyles(true, o.NoColor)
	return e
}

// newModel returns the root showing page p, made with e.
func newModel(e *env, p page) *Model {
	m := &Model{env: e, pg: p}
	m.updateKeybindings()
	return m
}

// framesMsg is a batch of frames from the reader (see ingest.Pump), and
// the function that gives the batch back once it is added.
type framesMsg struct {
	batch *model.Batch
	done  func()
	more  bool // another batch follows at once (MoreFrames)
}

// sourceDoneMsg says the source ended: err is nil at a clean EOF.
type sourceDoneMsg struct{ err error }

// redrawMsg asks for the screen to be drawn, after MoreFrames.
type redrawMsg struct{}

// Init asks the terminal for its background colour, to pick the theme.
func (m *Model) Init() tea.Cmd { return tea.RequestBackgroundColor }

// Update routes each message: input to the page shown, the data and
// results of work to the page they are for. After every message it starts
// the work the page shown waits for and brings the key bindings up to
// date.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if h, ok := m.pg.(holder); ok {
		h.holdOpen()
		defer h.release()
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
			cmd = m.pg.update(msg)
		}
	case noticeDoneMsg:
		if typed.gen == m.note.gen {
			m.note.text = ""
		}
	default:
		cmd = m.pg.update(msg)
	}
	if t, ok := m.pg.(typeAheader); ok {
		for _, k := range t.typedAhead() { // typed while it waited: they were for it
			cmd = tea.Batch(cmd, m.handleKey(k, k))
		}
	}
	if fm, ok := msg.(framesMsg); ok && fm.more && m.drawn.Content != "" {
		m.behind = true
		return m, cmd
	}
	m.behind = false
	if !m.help {
		cmd = tea.Batch(cmd, m.pg.work())
	}
	m.updateKeybindings()
	return m, cmd
}

func (m *Model) handleSize(w, h int) {
	m.w, m.h = w, h
	m.small = tooSmall(w, h)
	m.pg.setSize(w, h)
}

func (m *Model) handleTheme(dark bool) {
	if dark == m.st.isDark {
		return
	}
	m.st = newStyles(dark, m.o.NoColor)
	m.pg.restyle()
}

// handleKey routes a key: the full help takes it while shown, then a
// prompt being typed, then the keys of the whole program (quit, help),
// then the page shown. raw is msg as Update got it, passed on as it is
// rather than boxed again on every key.
func (m *Model) handleKey(msg tea.KeyPressMsg, raw tea.Msg) tea.Cmd {
	k := &m.keys
	if l, ok := m.pg.(lessonDropper); ok {
		l.dropLesson() // the lesson stays until the first key
	}
	if m.help {
		if key.Matches(msg, k.App.Help, k.Prompt.Cancel) {
			m.help = false
		} else if key.Matches(msg, k.App.Quit) {
			return tea.Quit
		}
		return nil
	}
	p := m.pg
	if p.typing() {
		return p.update(raw)
	}
	switch {
	case key.Matches(msg, k.App.Quit):
		return tea.Quit
	case key.Matches(msg, k.App.Help):
		m.help = true
		return nil
	}
	return p.update(raw)
}

// updateKeybindings enables only the keys that work now, so help never
// offers a key that does nothing.
func (m *Model) updateKeybindings() { m.pg.updateKeys() }

// View draws the screen. It costs O(visible rows).
func (m *Model) View() tea.View {
	if h, ok := m.pg.(holder); ok {
		h.holdOpen()
		defer h.release()
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
		return fit(fmt.Sprintf("streamtap needs at least %d×%d (now %d×%d)", minWidth, minHeight, m.w, m.h), m.w)
	}
	p := m.pg
	var lines []string
	if m.help {
		lines = strings.Split(m.fullHelp(m.w, m.h-2), "\n")
	} else {
		lines = p.body()
	}
	lines = append(lines, p.helpLine(), p.status())
	return strings.Join(lines, "\n")
}

// Minimum terminal size; below it the UI shows a one-line notice.
const (
	minWidth  = 60
	minHeight = 15
)

// tooSmall says a w×h terminal is below the minimum size.
func tooSmall(w, h int) bool { return w < minWidth || h < minHeight }
