package model_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/internal/dialecttest"
	"github.com/streamtap/streamtap/model/internal/modeltest"
)

func TestAddBatchMatchesAdd(t *testing.T) {
	t.Parallel() // reads only its own inputs
	var streams [][]byte
	for _, s := range modeltest.Seeds() {
		streams = append(streams, []byte(s))
	}
	if !testing.Short() { // -short: the seeds and files only, not 64 KiB of each dialect
		for _, dialect := range []string{"responses", "chat", "anthropic"} {
			data, _ := modeltest.GenStream(dialect, 64<<10)
			streams = append(streams, data)
		}
	}
	modeltest.FileSeeds(t, func(data []byte) { streams = append(streams, data) })
	for i, data := range streams {
		t.Run(fmt.Sprint(i), func(t *testing.T) { dialecttest.BatchMatchesAdd(t, data, model.HoldsBatch) })
	}
}

// FuzzAddBatch holds the batched path to Add on any input.
func FuzzAddBatch(f *testing.F) {
	for _, s := range modeltest.Seeds() {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, pattern uint8) {
		opts := model.Options{KeepEvents: true}
		want := model.Assemble(data, capture.FormatAuto, opts)
		got := dialecttest.AssembleBatched(t, data, opts, 1+int(pattern%13), func(i int) bool { return pattern>>(i%8)&1 == 1 }, model.HoldsBatch)
		dialecttest.SameSession(t, got, want)
	})
}

func TestAddBatchStopsAtError(t *testing.T) {
	data := []byte(modeltest.Seeds()[0])
	var b model.Batch
	fr := capture.NewFramer(capture.FormatAuto)
	emit := func(f *capture.Frame) { b.Add(f, false); b.ValidateLast() }
	fr.Feed(data, capture.NoTime, emit)
	fr.Finish(capture.NoTime, emit)
	s := model.NewSession(model.Options{})
	stop := errors.New("stop")
	err := s.AddBatch(&b, func(_ *model.Event, ord int, _ *capture.Frame) error {
		if ord == 2 {
			return stop
		}
		return nil
	})
	if err != stop || s.Len() != 3 {
		t.Fatalf("AddBatch = %v after %d events; want %v after 3", err, s.Len(), stop)
	}
}
