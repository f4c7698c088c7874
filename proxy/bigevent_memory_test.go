package proxy

import (
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/streamtap/streamtap/ingest"
)

// A session that framed a big event gives its memory back when it ends,
// not when the next stream's buffers have been allocated beside it: its
// end is followed by a collection. The heap limit follows what the last
// collection found live, which was that session at its largest (its
// framer's buffer and its arguments: 112 MiB for the 50 MB events of
// scripts/proxy-stream.sh), so the next stream could grow the heap to
// 1.5 times that before anything was freed (peaks of 170-200 MB RSS
// against 136 MB). Here, after a stream of 20 MB events, the heap is
// back within 8 MiB of where it was in 2 s without the test collecting.
// Not parallel: it measures the process's heap.
func TestProxyFreesBigSessionAtItsEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: it passes 20 MB events through the proxy; the full suite runs it")
	}
	stream, args := bigEventStream(20_000_000)
	done := make(chan int, 1)
	post := bigEventProxy(t, stream, func(p *Proxy) {
		p.onDone = func(s *session) {
			ms := s.live.Lock()
			n := 0
			if calls := ms.Calls(); len(calls) == 1 && calls[0].FinalArgs() == args {
				n = len(args)
			}
			s.live.Unlock()
			done <- n
		}
	})

	// Signed: the heap may end below where it was (an idle connection of
	// an earlier test freed), which unsigned would read as growth.
	heap := func() int64 {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return int64(m.HeapAlloc)
	}
	runtime.GC()
	before := heap()
	post()
	select {
	case n := <-done:
		if n != len(args) {
			t.Fatalf("the session did not assemble the %d bytes of arguments", len(args))
		}
	case <-time.After(time.Minute):
		t.Fatal("the session did not end within a minute")
	}
	grew := heap() - before
	for deadline := time.Now().Add(2 * time.Second); grew > 8<<20 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		grew = heap() - before
	}
	if grew > 8<<20 {
		t.Errorf("the heap is %d MiB over where it was 2 s after a session of 20 MB events ended; want it collected at the end (within 8 MiB)", grew>>20)
	}
}

// A frame of 16 MiB or more is modelled beside the framer's buffer that
// holds it and nothing else the framer outgrew on the way: the proxy
// collects before it models the frame. The heap limit followed the heap
// that held the framer's last two buffers while it copied one into the
// other, so the model's copies of a 50 MB frame were allocated beside the
// framer's old 32 MiB (proxy-stream.sh's big event peaked at 136-172 MB
// RSS; 113-121 MB with the collection). Here, with the collector left off
// but for the proxy's own collections, the heap holds a 20 MB frame's
// buffer (32 MiB) and its arguments (19 MiB) when the frame is modelled,
// and not the 16, 8, 4 … MiB the buffer grew from. Not parallel: it
// measures the process's heap and turns the collector off.
func TestProxyModelsBigFrameBesideItsBufferOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: it passes 20 MB events through the proxy; the full suite runs it")
	}
	const n = 20_000_000
	stream, args := bigEventStream(n)
	var held []uint64
	done := make(chan struct{})
	post := bigEventProxy(t, stream, func(p *Proxy) {
		p.onBig = func() {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			held = append(held, m.HeapAlloc)
		}
		p.onDone = func(*session) { close(done) }
	})

	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	before := m.HeapAlloc
	post()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the session did not end within a minute")
	}
	if len(held) != 1 {
		t.Fatalf("%d frames of %d MiB or more modelled; want the one", len(held), ingest.CollectAbove>>20)
	}
	budget := uint64(32<<20+len(args)) + 4<<20
	if grew := held[0] - before; grew > budget {
		t.Errorf("the heap held %d MiB when the frame of %d MB was modelled; want its buffer (32 MiB) and its arguments (%d MiB), at most %d MiB",
			grew>>20, n/1_000_000, len(args)>>20, budget>>20)
	}
}

// bigEventProxy starts a proxy, its hooks set by hook, to an upstream
// that answers every request with stream, and returns post, which sends
// a request through it and reads the whole answer.
func bigEventProxy(t *testing.T, stream []byte, hook func(*Proxy)) (post func()) {
	t.Helper()
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", sseType)
		_, _ = w.Write(stream)
	}))
	t.Cleanup(up.Close)
	u, _ := url.Parse(up.URL)
	p := New(Options{Upstream: u, HeadTimeout: DefaultHeadTimeout}, io.Discard)
	hook(p)
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return func() {
		t.Helper()
		resp, err := rawClient.Post(srv.URL+"/v1/responses", "application/json", strings.NewReader(`{"model":"m","stream":true}`))
		if err != nil {
			t.Fatal(err)
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
}
