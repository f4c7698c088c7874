package capture

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestTeeDelivery: every chunk reaches the sink, in order, before done,
// which is called once and reports how the stream ended.
func TestTeeDelivery(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		readAll bool
		want    error
	}{
		{"clean end", true, nil},
		{"closed early", false, ErrClosedEarly},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			var end error
			calls, sunkAtDone := 0, ""
			tee := NewTee(io.NopCloser(strings.NewReader("abcdef")), time.Now(), 0,
				func(p []byte, at time.Duration) { got = append(got, string(p)) },
				func(err error, at time.Duration) { end = err; calls++; sunkAtDone = strings.Join(got, "") })
			buf := make([]byte, 2)
			if n, _ := tee.Read(buf); n != 2 {
				t.Fatalf("first read: %d bytes", n)
			}
			if tt.readAll {
				_, _ = io.Copy(io.Discard, tee)
			}
			_ = tee.Close()
			_ = tee.Close()
			want := "ab"
			if tt.readAll {
				want = "abcdef"
			}
			if strings.Join(got, "") != want || sunkAtDone != want || !errors.Is(end, tt.want) || calls != 1 {
				t.Fatalf("sink got %q (%q by done), done(%v) %d times; want %q before done(%v), once", got, sunkAtDone, end, calls, want, tt.want)
			}
		})
	}
}

// TestTeeStress hands chunks over thousands of times under shaken
// schedules: chunks of random sizes from a pipe, a sink that yields or
// spins at random, Close from another goroutine at a random point. The
// sink must get, in order and once each, the bytes Read returned before
// Close began (a prefix of the stream), none after done, and done
// once. Run it under -race.
func TestTeeStress(t *testing.T) {
	t.Parallel()
	rounds := 150
	if testing.Short() {
		rounds = 40
	}
	seed := uint64(time.Now().UnixNano())
	for i := range rounds {
		teeRound(t, seed+uint64(i))
		if t.Failed() {
			t.Fatalf("round %d failed (seed %d)", i, seed+uint64(i))
		}
	}
}

func teeRound(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	stream := make([]byte, 1+rng.IntN(2<<20))
	for i := range stream {
		stream[i] = byte('a' + i%26)
	}
	pr, pw := io.Pipe()
	writeRng := rand.New(rand.NewPCG(seed, 9))
	go func() {
		for rest := stream; len(rest) > 0; {
			n := min(len(rest), 1+writeRng.IntN(70000))
			if _, err := pw.Write(rest[:n]); err != nil {
				return
			}
			rest = rest[n:]
		}
		pw.Close()
	}()
	var mu sync.Mutex
	var sunk bytes.Buffer
	doneCalls := 0
	lateSink := false
	sinkRng := rand.New(rand.NewPCG(seed, 8))
	spin := 0
	tee := NewTee(pr, time.Now(), 0,
		func(p []byte, _ time.Duration) {
			switch sinkRng.IntN(4) {
			case 0:
				runtime.Gosched()
			case 1:
				for range sinkRng.IntN(20000) { // a busy sink, a few microseconds
					spin++
				}
			}
			mu.Lock()
			defer mu.Unlock()
			lateSink = lateSink || doneCalls > 0
			sunk.Write(p)
		},
		func(error, time.Duration) { mu.Lock(); doneCalls++; mu.Unlock() })
	var got bytes.Buffer
	closeAt := -1
	if rng.IntN(3) == 0 {
		closeAt = rng.IntN(len(stream))
	}
	closed := make(chan struct{})
	var closeOnce sync.Once
	closeTee := func() { closeOnce.Do(func() { go func() { _ = tee.Close(); close(closed) }() }) }
	buf := make([]byte, 1+rng.IntN(40000))
	for {
		n, err := tee.Read(buf)
		got.Write(buf[:n])
		if closeAt >= 0 && got.Len() >= closeAt {
			closeTee()
			break
		}
		if err != nil {
			break
		}
	}
	closeTee()
	<-closed
	_ = tee.Close()
	mu.Lock()
	defer mu.Unlock()
	switch {
	case doneCalls != 1 || lateSink:
		t.Errorf("seed %d: done %d times, sink after done %v", seed, doneCalls, lateSink)
	case !bytes.HasPrefix(stream, got.Bytes()):
		t.Errorf("seed %d: Read returned bytes not the stream's", seed)
	case !bytes.HasPrefix(got.Bytes(), sunk.Bytes()):
		t.Errorf("seed %d: the sink had bytes Read did not return, or out of order (%d of %d)", seed, sunk.Len(), got.Len())
	case closeAt < 0 && sunk.Len() != len(stream):
		t.Errorf("seed %d: the sink had %d of %d bytes of a stream read to its end", seed, sunk.Len(), len(stream))
	}
}

// TestTeeIdle: a body that stops sending is closed after the idle timeout.
func TestTeeIdle(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe()
	go func() { _, _ = pw.Write([]byte("data: 1\n\n")) }() // then nothing
	var end error
	tee := NewTee(pr, time.Now(), 50*time.Millisecond, func([]byte, time.Duration) {}, func(err error, _ time.Duration) { end = err })
	_, err := io.Copy(io.Discard, tee)
	_ = tee.Close()
	if !errors.Is(err, ErrIdle) || !errors.Is(end, ErrIdle) {
		t.Fatalf("copy = %v, done(%v); want ErrIdle", err, end)
	}
}
