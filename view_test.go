package main

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/streamtap/streamtap/capture"
)

// TestPumpBatches checks that frames reach the program in order, in
// batches (never one message per event), and all before close returns.
func TestPumpBatches(t *testing.T) {
	var mu sync.Mutex
	var batches [][]capture.Frame
	p := newPump(func(b []capture.Frame) {
		mu.Lock()
		batches = append(batches, b)
		mu.Unlock()
	})
	emit := p.emit(context.Background())
	const n = 5000
	for i := range n {
		data := []byte(fmt.Sprintf(`{"i":%d}`, i))
		f := capture.Frame{Start: int64(i), Data: data, HasData: true}
		if err := emit(&f); err != nil {
			t.Fatal(err)
		}
		data[2] = 'X' // the framer reuses its buffer: the pump must have copied
	}
	p.close()
	mu.Lock()
	defer mu.Unlock()
	got := 0
	for _, b := range batches {
		for _, f := range b {
			if f.Start != int64(got) || string(f.Data) != fmt.Sprintf(`{"i":%d}`, got) {
				t.Fatalf("frame %d arrived as %d %q", got, f.Start, f.Data)
			}
			got++
		}
	}
	if got != n {
		t.Fatalf("received %d frames; want %d", got, n)
	}
	if len(batches) > n/100 {
		t.Errorf("%d messages for %d frames: frames must travel in batches", len(batches), n)
	}
}

// TestPumpFlushesAPartialBatch checks that a few frames followed by a pause
// still reach the UI without waiting for more.
func TestPumpFlushesAPartialBatch(t *testing.T) {
	got := make(chan int, 10)
	p := newPump(func(b []capture.Frame) { got <- len(b) })
	emit := p.emit(context.Background())
	for range 3 {
		if err := emit(&capture.Frame{}); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case n := <-got:
		if n != 3 {
			t.Errorf("first batch has %d frames; want 3", n)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("a partial batch was not flushed")
	}
	p.abort()
	p.close()
}

// TestPumpAbortUnblocksReader checks that a reader waiting on a full pump
// returns once the program is gone.
func TestPumpAbortUnblocksReader(t *testing.T) {
	block := make(chan struct{})
	p := newPump(func([]capture.Frame) { <-block })
	ctx, cancel := context.WithCancel(context.Background())
	emit := p.emit(ctx)
	done := make(chan error, 1)
	go func() {
		for {
			if err := emit(&capture.Frame{}); err != nil {
				done <- err
				return
			}
		}
	}()
	time.Sleep(50 * time.Millisecond)
	cancel()
	p.abort()
	close(block)
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("the reader stayed blocked after abort")
	}
	p.close()
}
