package diffview

import (
	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/streamdiff"
	"github.com/streamtap/streamtap/ui/app"
	"github.com/streamtap/streamtap/ui/inspector"
	"github.com/streamtap/streamtap/ui/internal/uitest"
)

// Model is the program the tests drive: the real router (app.Model)
// showing the diff page, the page, and A's inspector.
type Model struct {
	*app.Model
	dv   *Page
	insp *inspector.Page
}

// Options configure the program.
type Options = app.Options

// NewDiff is the program ui.NewDiff makes.
func NewDiff(a *model.Session, rec *streamdiff.Recorder, o Options, d Config) *Model {
	e := app.NewEnv(o)
	dp := New(e, a, rec, d)
	return &Model{app.New(e, dp), dp, dp.side[0].in}
}

// SideRead is the message ui.SideRead makes.
func SideRead(sd *streamdiff.Side, err error) tea.Msg { return SideReadMsg{Side: sd, Err: err} }

// What the tests of every ui package share (uitest).
var (
	StrictChecks    = uitest.StrictChecks
	sampleBytes     = uitest.SampleBytes
	keyMsg          = uitest.KeyMsg
	widths          = uitest.Widths
	checkFits       = uitest.CheckFits
	frames          = uitest.Frames
	batch           = uitest.Batch
	synthStream     = uitest.SynthStream
	allocatedBy     = uitest.AllocatedBy
	hugeFieldStream = uitest.HugeFieldStream
)

func typeText(m *Model, s string) { uitest.TypeText(m, s) }
func viewOf(m *Model) string      { return uitest.ViewOf(m) }
func plainView(m *Model) string   { return uitest.PlainView(m) }

func Frames(b *model.Batch, done func()) tea.Msg { return app.FramesMsg{Batch: b, Done: done} }

func SourceDone(err error) tea.Msg { return app.SourceDoneMsg{Err: err} }
