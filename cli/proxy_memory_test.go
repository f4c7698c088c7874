package cli

import (
	"context"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime/debug"
	"testing"
	"time"
)

// The proxy runs under a soft memory limit that follows what it holds
// (keepHeapNear), as the headless commands do. Without one the collector
// let the heap grow to twice what its last collection found live, and
// the next stream's buffers were allocated beside the last one's
// garbage: scripts/proxy-stream.sh's 50 MB events, which the proxy holds
// 112 MiB of while one passes, peaked at 236-255 MB RSS, and at 136-200
// MB with the limit. The peak itself moves with when the collector runs,
// so the script measures it; this holds the proxy to the limit. Not
// parallel: it sets the process's memory limit.
func TestProxyRunsUnderAMemoryLimit(t *testing.T) {
	oldLimit, oldBudget := debug.SetMemoryLimit(-1), heapBudget.Load()
	defer func() {
		heapBudget.Store(oldBudget)
		debug.SetMemoryLimit(oldLimit)
	}()
	// An earlier command of this process may have set a budget: none,
	// as in a new process.
	heapBudget.Store(0)
	debug.SetMemoryLimit(math.MaxInt64)

	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: {}\n\n")
	}))
	defer up.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	exit := make(chan int, 1)
	go func() {
		exit <- run(ctx, []string{"proxy", "--no-tui", "--listen", addr, "--upstream", up.URL}, os.Stdin, io.Discard, io.Discard)
	}()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		resp, err := rawClient.Get("http://" + addr + "/v1/responses")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the proxy did not answer: %v", err)
		}
	}
	budget, limit := heapBudget.Load(), debug.SetMemoryLimit(-1)
	cancel()
	select {
	case <-exit:
	case <-time.After(10 * time.Second):
		t.Fatal("the proxy did not stop")
	}
	if budget != proxyHeap || limit == math.MaxInt64 {
		t.Errorf("the proxy runs with a heap budget of %d MiB and a memory limit of %d MiB; want its budget (%d MiB) and a limit following its live heap",
			budget>>20, limit>>20, proxyHeap>>20)
	}
}
