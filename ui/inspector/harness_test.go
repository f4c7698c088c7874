package inspector

import (
	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/ui/app"
	"github.com/streamtap/streamtap/ui/internal/uitest"
)

// Model is the program the tests drive: the real router (app.Model)
// showing an inspector, and that inspector, whose insides the tests read.
type Model struct {
	*app.Model
	insp *Page
}

// Options configure the program.
type Options = app.Options

// newProgram is the program ui.New makes: the inspector over s.
func newProgram(s *model.Session, o Options) *Model {
	e := app.NewEnv(o)
	in := New(e, s)
	return &Model{app.New(e, in), in}
}

// The messages ui's Frames, MoreFrames, Redraw and SourceDone make.

func Frames(b *model.Batch, done func()) tea.Msg { return app.FramesMsg{Batch: b, Done: done} }

func MoreFrames(b *model.Batch, done func()) tea.Msg {
	return app.FramesMsg{Batch: b, Done: done, More: true}
}

func Redraw() tea.Msg { return app.RedrawMsg{} }

func SourceDone(err error) tea.Msg { return app.SourceDoneMsg{Err: err} }

// What the tests of every ui package share (uitest).
var (
	StrictChecks             = uitest.StrictChecks
	sampleBytes              = uitest.SampleBytes
	newSession               = uitest.NewSession
	keyMsg                   = uitest.KeyMsg
	widths                   = uitest.Widths
	skipHugeFieldsUnderShort = uitest.SkipHugeFieldsUnderShort
	fakeChecks               = uitest.FakeChecks
	checkFits                = uitest.CheckFits
	frames                   = uitest.Frames
	batch                    = uitest.Batch
	lastLine                 = uitest.LastLine
	synthStream              = uitest.SynthStream
	allocatedBy              = uitest.AllocatedBy
	messagesOf               = uitest.MessagesOf
	hugeFieldStream          = uitest.HugeFieldStream
	payloadText              = uitest.PayloadText
	jsonString               = uitest.JSONString
)

const goldenSample = uitest.GoldenSample

func press(m *Model, keys ...string) { uitest.Press(m, keys...) }
func typeText(m *Model, s string)    { uitest.TypeText(m, s) }
func viewOf(m *Model) string         { return uitest.ViewOf(m) }
func plainView(m *Model) string      { return uitest.PlainView(m) }
