package cli

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/ingest"
	"github.com/streamtap/streamtap/ui"
)

// When the reader has batches waiting (a file read faster than the screen
// is drawn), forward hands them on without a redraw (MoreFrames) and
// draws once it caught up (Redraw): a 100 MB capture was indexed in 3x
// the time calls takes, drawing screens for batches that the next one
// replaced at once. The first batch is drawn, and so is the last state.
func TestForwardDrawsOnceCaughtUp(t *testing.T) {
	t.Parallel()
	var stream bytes.Buffer
	for i := range 3 * 2048 { // three whole batches of the inspector's pump
		fmt.Fprintf(&stream, "data: {\"n\":%d}\n\n", i)
	}
	p := uiPump()
	src := capture.FromReader("x", capture.SourceFile, &stream, false)
	if err := ingest.Read(t.Context(), src, capture.ReadOptions{}, p, nil); err != nil {
		t.Fatal(err) // every batch is filled and waiting: the pump holds four
	}
	var got []string
	send := func(msg tea.Msg) {
		if reflect.TypeOf(msg) == reflect.TypeOf(ui.Redraw()) {
			got = append(got, "redraw")
			return
		}
		v := reflect.ValueOf(msg)
		kind := "frames"
		if v.FieldByName("More").Bool() {
			kind = "more"
		}
		got = append(got, kind) // no batch given back: the reader is done
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	forwardEvery(ctx, p, send, time.Hour)
	if want := "frames more more redraw"; strings.Join(got, " ") != want {
		t.Errorf("forward sent %v; want %s", got, want)
	}
}
