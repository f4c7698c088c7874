package cli

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/samples"
)

// requestServer answers POST /v1/chat/completions with a sample when the
// key and body are right, 401 otherwise; /limited answers 429.
func requestServer(t *testing.T, key string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		switch {
		case r.URL.Path == "/limited":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"error":{"message":"slow down","type":"rate_limit_error"}}`)
		case r.Header.Get("Authorization") != "Bearer "+key:
			http.Error(w, "bad key", http.StatusUnauthorized)
		case r.Method != http.MethodPost || !strings.Contains(string(body), `"stream":true`):
			http.Error(w, "bad request", http.StatusBadRequest)
		default:
			data, _ := samples.Open("chat-single-call")
			w.Header().Set("Content-Type", sseType)
			w.Write(data)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestRequest(t *testing.T) {
	const key = "sk-test-request-key"
	t.Setenv("STREAMTAP_TEST_KEY", key)
	srv := requestServer(t, key)
	dir := t.TempDir()
	body := filepath.Join(dir, "body.json")
	os.WriteFile(body, []byte(`{"model":"m","stream":true}`), 0o644)
	rec := filepath.Join(dir, "rec.sse")
	auth := "Authorization: Bearer $STREAMTAP_TEST_KEY"

	code, out, errs := runCLI(t, nil, "request", srv.URL+"/v1/chat/completions", "-H", auth, "-d", "@"+body, "--save-timed", rec)
	if code != 0 {
		t.Fatalf("request = %d; stderr %s", code, errs)
	}
	if !strings.Contains(out, "completed") || !strings.Contains(out, "get_stock_quote") || !strings.Contains(errs, "200 OK") {
		t.Fatalf("stdout:\n%s\nstderr:\n%s", out, errs)
	}
	data, _ := os.ReadFile(rec)
	if strings.Contains(string(data), key) {
		t.Error("the recording holds the key")
	}
	r, err := capture.ParseRecording(data)
	want, _ := samples.Open("chat-single-call")
	if err != nil || string(r.Bytes()) != string(want) || r.Method != "POST" || string(r.RequestBody) != `{"model":"m","stream":true}` {
		t.Fatalf("recording: %v %+v", err, r)
	}

	tests := []struct {
		name string
		args []string
		code int
		errs string
	}{
		{"json calls", []string{srv.URL + "/v1/chat/completions", "-H", auth, "-d", `{"stream":true}`, "--json"}, 0, ""},
		{"http error", []string{"-X", "POST", srv.URL + "/limited"}, 1, "429"},
		{"wrong key", []string{srv.URL + "/v1/chat/completions", "-d", `{"stream":true}`}, 1, "401"},
		{"unset variable", []string{srv.URL, "-H", "Authorization: Bearer $STREAMTAP_TEST_UNSET"}, 2, "STREAMTAP_TEST_UNSET is not set"},
		{"bad header", []string{srv.URL, "-H", "novalue"}, 2, "want 'Name: value'"},
		{"no url", []string{}, 2, "one URL"},
		{"not http", []string{"ftp://x"}, 2, "http://"},
	}
	for _, tt := range tests {
		code, out, errs := runCLI(t, nil, append([]string{"request"}, tt.args...)...)
		if code != tt.code || !strings.Contains(errs, tt.errs) {
			t.Errorf("%s: request = %d, stderr %q; want %d and %q", tt.name, code, errs, tt.code, tt.errs)
		}
		if tt.name == "json calls" && !strings.Contains(out, `"name":"get_stock_quote"`) {
			t.Errorf("--json output: %s", out)
		}
	}

	// An unreachable server: no response at all.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	if code, _, errs := runCLI(t, nil, "request", "http://"+addr+"/"); code != 2 || !strings.Contains(errs, "unreachable") {
		t.Errorf("unreachable: %d %q", code, errs)
	}
}

// TestRequestOutcome: request fails on the outcomes check fails on, says
// which, and --allow-outcome lets them pass, as with check.
func TestRequestOutcome(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", sseType)
		if r.URL.Path == "/cut" {
			io.WriteString(w, `data: {"candidates":[{"content":{"role":"model","parts":[{"text":"hi"}]},"index":0}]}`+"\n\n")
		}
	}))
	t.Cleanup(srv.Close)
	tests := []struct {
		path  string
		args  []string
		code  int
		state string
	}{
		{"/empty", nil, 1, "empty"},
		{"/cut", nil, 1, "truncated"},
		{"/empty", []string{"--allow-outcome", "empty"}, 0, ""},
		{"/cut", []string{"--allow-outcome", "truncated", "--json"}, 0, ""},
		{"/cut", []string{"--allow-outcome", "cut"}, 2, ""},
	}
	for _, tt := range tests {
		args := append([]string{"request", srv.URL + tt.path}, tt.args...)
		code, _, errs := runCLI(t, nil, args...)
		why := "outcome " + tt.state + " fails the request (allow it with --allow-outcome " + tt.state + ")"
		if code != tt.code || (tt.state != "") != strings.Contains(errs, why) {
			t.Errorf("streamtap %q = %d, stderr %q; want %d and, for %q, %q", args, code, errs, tt.code, tt.state, why)
		}
	}
}
