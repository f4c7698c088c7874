package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

// TestPipelinedIngestStopsAtError: an error from the callback stops the
// reader and is what Session returns, with nothing added after it.
func TestPipelinedIngestStopsAtError(t *testing.T) {
	var b strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&b, "data: {\"type\":\"response.output_text.delta\",\"sequence_number\":%d,\"item_id\":\"m\",\"output_index\":0,\"delta\":\"hi\"}\n\n", i)
	}
	for _, pipelined := range []bool{false, true} {
		src := capture.FromReader("test", capture.SourceFile, strings.NewReader(b.String()), false)
		s := model.NewSession(model.Options{})
		stop := errors.New("stop")
		err := Session(t.Context(), src, capture.ReadOptions{}, s, func(*capture.Frame) {},
			func(_ *model.Event, ord int, _ *capture.Frame) error {
				if ord == 1234 {
					return stop
				}
				return nil
			}, false, pipelined)
		if err != stop || s.Len() != 1235 {
			t.Errorf("pipelined=%v: Session = %v after %d events; want %v after 1235", pipelined, err, s.Len(), stop)
		}
	}
}

// TestPipelinedIngestIsLive: each event reaches the session while the
// source waits for more, so batching holds nothing back on a live stream.
func TestPipelinedIngestIsLive(t *testing.T) {
	pr, pw := io.Pipe()
	seen := make(chan int, 3) // buffered: when the test fails, nothing waits on it
	go func() {
		for i := range 3 {
			fmt.Fprintf(pw, "data: {\"type\":\"response.output_text.delta\",\"sequence_number\":%d,\"delta\":\"x\"}\n\n", i)
			select {
			case <-seen: // the event was added before the next was written
			case <-time.After(10 * time.Second):
				pw.CloseWithError(errors.New("event not added while the stream waited"))
				return
			}
		}
		pw.Close()
	}()
	src := capture.FromReader("live", capture.SourceStdin, pr, true)
	s := model.NewSession(model.Options{})
	err := Session(context.Background(), src, capture.ReadOptions{}, s, func(*capture.Frame) {},
		func(_ *model.Event, ord int, _ *capture.Frame) error { seen <- ord; return nil }, false, true)
	if err != nil || s.Len() != 3 {
		t.Fatalf("Session = %v with %d events; want nil with 3", err, s.Len())
	}
}
