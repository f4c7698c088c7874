package inspector

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

// moreBatch is batch as MoreFrames: a batch the reader had waiting.
func moreBatch(fs []capture.Frame) tea.Msg {
	b := &model.Batch{KeepRaw: true}
	for i := range fs {
		b.Add(&fs[i], false)
	}
	return MoreFrames(b, nil)
}

// A batch sent as MoreFrames is added to the session, but the screen and
// the panes' work wait for the next message that is not one: the frame
// that Redraw (or a key) draws shows everything added by then.
func TestMoreFramesDrawsOnceCaughtUp(t *testing.T) {
	t.Parallel()
	data := synthStream(3000)
	fs := frames(data)
	m := liveModel(t, data, 120, 40)
	m.Update(batch(fs[:1000]))
	first := plainView(m)
	if !strings.Contains(first, "1000 events") {
		t.Fatalf("after 1000 events the status line says:\n%s", first)
	}
	_, cmd := m.Update(moreBatch(fs[1000:2000]))
	if got := plainView(m); got != first {
		t.Errorf("a MoreFrames batch redrew the screen:\n%s", got)
	}
	if cmd != nil {
		t.Errorf("a MoreFrames batch started work: %T", cmd())
	}
	if n := m.insp.s.Len(); n != 2000 {
		t.Errorf("the session holds %d events after the MoreFrames batch; want 2000", n)
	}
	m.Update(Redraw())
	if v := plainView(m); !strings.Contains(v, "2000 events") {
		t.Errorf("Redraw did not draw what MoreFrames added:\n%s", v)
	}
	m.Update(moreBatch(fs[2000:]))
	press(m, "k")
	if v := plainView(m); !strings.Contains(v, "3000 events") {
		t.Errorf("a key after MoreFrames did not draw at once:\n%s", v)
	}
}
