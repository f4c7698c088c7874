package cli

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/samples"
)

// `streamtap proxy --save-har FILE` writes each session into FILE, and
// FILE is a HAR that streamtap reads back to the same stream once the
// proxy is interrupted.
func TestProxySaveHAR(t *testing.T) {
	t.Parallel()
	want, err := samples.Open("responses-single-call")
	if err != nil {
		t.Fatal(err)
	}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(want)
	}))
	defer up.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	path := filepath.Join(t.TempDir(), "s.har")

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	exit := make(chan int, 1)
	var stderr strings.Builder
	go func() {
		exit <- run(ctx, []string{"proxy", "--no-tui", "--listen", addr, "--upstream", up.URL, "--save-har", path}, os.Stdin, io.Discard, &stderr)
	}()
	var resp *http.Response
	for deadline := time.Now().Add(10 * time.Second); ; {
		resp, err = http.Post("http://"+addr+"/v1/responses", "application/json", strings.NewReader(`{"model":"m","stream":true}`))
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("the proxy did not answer: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	cancel()
	select {
	case code := <-exit:
		if code != 0 {
			t.Fatalf("proxy exited %d: %s", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the proxy did not stop")
	}

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	a, err := capture.ReadArchive(data, capture.FormatAuto, capture.ArchiveOptions{})
	if err != nil {
		t.Fatalf("%v\n%.2000s", err, data)
	}
	if len(a.Entries) != 1 || string(a.Entries[0].Bytes()) != string(want) || !strings.HasSuffix(a.Entries[0].URL, "/v1/responses") {
		t.Fatalf("%d entries; want the one stream, byte for byte", len(a.Entries))
	}
	var out strings.Builder
	if code := run(context.Background(), []string{"calls", path}, os.Stdin, &out, io.Discard); code != 0 || !strings.Contains(out.String(), "get_weather") {
		t.Errorf("calls on the HAR: exit %d\n%s", code, out.String())
	}
}
