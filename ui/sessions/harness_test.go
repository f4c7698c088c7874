package sessions

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/ui/app"
	"github.com/streamtap/streamtap/ui/inspector"
	"github.com/streamtap/streamtap/ui/internal/uitest"
)

// Model is the program the tests drive: the real router (app.Model)
// showing a sessions list, the list, and the inspector it opens sessions
// in.
type Model struct {
	*app.Model
	list *Page
	insp *inspector.Page
}

// Options configure the program.
type Options = app.Options

// NewSessions is the program ui.NewSessions makes.
func NewSessions(o Options) *Model {
	e := app.NewEnv(o)
	sp := New(e)
	return &Model{app.New(e, sp), sp, sp.insp}
}

// Sessions is the message ui.Sessions makes.
func Sessions(b []model.SessionUpdate) tea.Msg { return Msg{Batch: b} }

// sideName names the pane shown beside the timeline by the first word of
// its title.
func sideName(m *Model) string { return strings.Fields(m.insp.SideTitle())[0] }

// What the tests of every ui package share (uitest).
var (
	StrictChecks = uitest.StrictChecks
	sampleBytes  = uitest.SampleBytes
	keyMsg       = uitest.KeyMsg
	widths       = uitest.Widths
	fakeChecks   = uitest.FakeChecks
	checkFits    = uitest.CheckFits
	frames       = uitest.Frames
	messagesOf   = uitest.MessagesOf
)

const goldenSample = uitest.GoldenSample

func press(m *Model, keys ...string) { uitest.Press(m, keys...) }
func viewOf(m *Model) string         { return uitest.ViewOf(m) }
func plainView(m *Model) string      { return uitest.PlainView(m) }

func Frames(b *model.Batch, done func()) tea.Msg { return app.FramesMsg{Batch: b, Done: done} }

func SourceDone(err error) tea.Msg { return app.SourceDoneMsg{Err: err} }
