package capture

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// TestTeeDelivery: a chunk reaches the sink only after the reader has had
// it, all chunks arrive in order, and done reports how the stream ended.
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
			calls := 0
			tee := NewTee(io.NopCloser(strings.NewReader("abcdef")), time.Now(), 0,
				func(p []byte, at time.Duration) { got = append(got, string(p)) },
				func(err error, at time.Duration) { end = err; calls++ })
			buf := make([]byte, 2)
			if n, _ := tee.Read(buf); n != 2 || len(got) != 0 {
				t.Fatalf("after the first read the sink has %q; want nothing yet", got)
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
			if strings.Join(got, "") != want || !errors.Is(end, tt.want) || calls != 1 {
				t.Fatalf("sink got %q, done(%v) %d times; want %q, done(%v) once", got, end, calls, want, tt.want)
			}
		})
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
