package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/samples"
	"github.com/streamtap/streamtap/ui"
)

// shapedCredentials are names in no list that look like credentials:
// a gateway nobody listed yet.
var shapedCredentials = []string{"X-My-Gateway-Api-Key", "X-Auth-Token", "Client-Secret", "X-Goog-Signature-V9"}

// plainHeaders are known non-secrets (some shaped almost like
// credentials): every writer keeps them, and request -L sends them on.
var plainHeaders = map[string]string{
	"X-Trace": "kept", "Cache-Control": "no-cache", "Idempotency-Key": "idem-kept",
	"X-Ratelimit-Remaining-Tokens": "99-tokens-left",
}

// credentials are the secrets each test sends as headers: every name of
// the one list (capture.CredentialNames) and every shaped one, each with
// a value that names it and holds SECRET.
var credentials = func() map[string]string {
	m := map[string]string{}
	for _, n := range append(capture.CredentialNames(), shapedCredentials...) {
		m[http.CanonicalHeaderKey(n)] = "SECRET-h-" + strings.ToLower(n)
	}
	return m
}()

// credentialArgs are -H flags for every credential and plain header.
func credentialArgs() []string {
	var args []string
	for _, h := range []map[string]string{credentials, plainHeaders} {
		for _, k := range slices.Sorted(func(yield func(string) bool) {
			for k := range h {
				if !yield(k) {
					return
				}
			}
		}) {
			args = append(args, "-H", k+": "+h[k])
		}
	}
	return args
}

// secretQuery is a query naming every credential of the list and every
// shaped one, and max_tokens, which is none.
func secretQuery() string {
	q := []string{"alt=sse"}
	for _, n := range append(capture.CredentialNames(), shapedCredentials...) {
		q = append(q, url.QueryEscape(n)+"=SECRET-q-"+url.QueryEscape(strings.ToLower(n)))
	}
	return strings.Join(append(q, "max_tokens=77"), "&")
}

// secretServer streams a chat answer with every credential as a
// response header too (Set-Cookie among them), and the plain ones.
func secretServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		for k, v := range credentials {
			w.Header().Set(k, strings.Replace(v, "-h-", "-r-", 1))
		}
		for k, v := range plainHeaders {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", sseType)
		io.WriteString(w, chatStream)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// holdsNoSecret fails when text holds a secret, and when it lacks a
// plain header's value (it was not a writer of headers, then, or it
// redacted a non-secret).
func holdsNoSecret(t *testing.T, what, text string, headers bool) {
	t.Helper()
	if i := strings.Index(text, "SECRET"); i >= 0 {
		t.Errorf("%s holds a secret: …%s…", what, text[max(i-60, 0):min(i+60, len(text))])
	}
	if headers {
		for k, v := range plainHeaders {
			if !strings.Contains(text, v) {
				t.Errorf("%s lacks %s: %s (a non-secret)", what, k, v)
			}
		}
	}
}

// TestRequestRedactsEveryCredential: request's status line, its
// recording (--save-timed) and its errors hold no credential of the one
// list, nor a shaped one, nor the URL's user and password, whether sent
// as a header, a query parameter or the userinfo, or received as a
// response header; the non-secrets stay; --keep-secrets keeps them all.
func TestRequestRedactsEveryCredential(t *testing.T) {
	t.Parallel()
	srv := secretServer(t)
	u := strings.Replace(srv.URL, "http://", "http://user:SECRET-password@", 1) + "/v1/chat?" + secretQuery()
	rec := filepath.Join(t.TempDir(), "rec.sse")
	code, _, errs := runCLI(t, nil, append([]string{"request", u, "--save-timed", rec}, credentialArgs()...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	holdsNoSecret(t, "stderr", errs, false)
	if !strings.Contains(errs, "http://%5Bredacted%5D@127.0.0.1:") || !strings.Contains(errs, "max_tokens=77") {
		t.Errorf("the status line does not show the URL redacted:\n%s", errs)
	}
	data, _ := os.ReadFile(rec)
	holdsNoSecret(t, "the recording", string(data), true)
	for k := range credentials {
		for _, side := range []string{"request-header ", "response-header "} {
			if !strings.Contains(string(data), side+k+": "+capture.Redacted+"\n") {
				t.Errorf("the recording lacks %s%s: [redacted]", side, k)
			}
		}
	}

	kept := filepath.Join(t.TempDir(), "kept.sse")
	code, _, errs = runCLI(t, nil, append([]string{"request", u, "--save-timed", kept, "--keep-secrets"}, credentialArgs()...)...)
	data, _ = os.ReadFile(kept)
	if code != 0 || !strings.Contains(errs, "SECRET-password") || !strings.Contains(string(data), "SECRET-h-authorization") ||
		!strings.Contains(string(data), "SECRET-q-x-amz-signature") {
		t.Errorf("--keep-secrets: exit %d, the credentials are not kept:\n%s\n%.2000s", code, errs, data)
	}

	// An error quoting the URL: the server is gone.
	srv.Close()
	code, _, errs = runCLI(t, nil, "request", u)
	if code != 2 {
		t.Errorf("unreachable: exit %d; want 2", code)
	}
	holdsNoSecret(t, "the error", errs, false)
}

// TestProxyRedactsEveryCredential: the proxy's first line, its log line,
// its recordings and its HAR hold no credential of the one list, nor a
// shaped one, nor the upstream's user and password; the non-secrets
// stay; --keep-secrets keeps them.
func TestProxyRedactsEveryCredential(t *testing.T) {
	t.Parallel()
	srv := secretServer(t)
	upstream := strings.Replace(srv.URL, "http://", "http://gw-user:SECRET-upstream-password@", 1) + "/base"
	path := "/v1/chat/completions?" + secretQuery()
	for _, keep := range []bool{false, true} {
		dir := t.TempDir()
		stderr := proxyOnce(t, dir, upstream, path, credentials, keep)
		files, _ := filepath.Glob(filepath.Join(dir, "rec", "*"))
		if len(files) != 1 {
			t.Fatalf("the proxy wrote %v; want one recording", files)
		}
		rec, _ := os.ReadFile(files[0])
		har, _ := os.ReadFile(filepath.Join(dir, "s.har"))
		if keep {
			for what, text := range map[string]string{"stderr": stderr, "the recording": string(rec), "the HAR": string(har)} {
				if !strings.Contains(text, "SECRET-upstream-password") && what == "stderr" || !strings.Contains(text, "SECRET-q-key") {
					t.Errorf("--keep-secrets: %s does not keep the credentials:\n%.3000s", what, text)
				}
			}
			continue
		}
		holdsNoSecret(t, "the log", stderr, false)
		if !strings.Contains(stderr, "→ http://%5Bredacted%5D@127.0.0.1:") || !strings.Contains(stderr, "max_tokens=77") {
			t.Errorf("the log does not show the URLs redacted:\n%s", stderr)
		}
		holdsNoSecret(t, "the recording", string(rec), true)
		holdsNoSecret(t, "the HAR", string(har), true)
		var doc struct {
			Log struct {
				Entries []struct {
					Request struct {
						URL         string
						Headers     []struct{ Name, Value string }
						QueryString []struct{ Name, Value string }
					}
				}
			}
		}
		if err := json.Unmarshal(har, &doc); err != nil || len(doc.Log.Entries) != 1 {
			t.Fatalf("the HAR does not parse (%v) or has not one entry:\n%.2000s", err, har)
		}
		r := doc.Log.Entries[0].Request
		if !strings.HasPrefix(r.URL, "http://%5Bredacted%5D@127.0.0.1:") {
			t.Errorf("the HAR's URL %s: want the upstream's userinfo redacted", r.URL)
		}
		redacted := 0
		for _, h := range r.Headers {
			if _, ok := credentials[http.CanonicalHeaderKey(h.Name)]; ok && h.Value == capture.Redacted {
				redacted++
			}
		}
		if redacted != len(credentials) {
			t.Errorf("the HAR's request has %d credential headers redacted; want %d", redacted, len(credentials))
		}
	}
}

// proxyOnce runs `streamtap proxy --no-tui` to upstream with a recording
// directory and a HAR in dir, sends one request to path with headers
// (and the plain ones), and returns what the proxy wrote on stderr.
func proxyOnce(t *testing.T, dir, upstream, path string, headers map[string]string, keep bool) string {
	t.Helper()
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	exit := make(chan int, 1)
	var stderr strings.Builder
	args := []string{"proxy", "--no-tui", "--listen", addr, "--upstream", upstream,
		"--record", filepath.Join(dir, "rec"), "--save-har", filepath.Join(dir, "s.har")}
	if keep {
		args = append(args, "--keep-secrets")
	}
	go func() { exit <- run(ctx, args, os.Stdin, io.Discard, &stderr) }()
	var resp *http.Response
	var err error
	for deadline := time.Now().Add(10 * time.Second); ; {
		req, _ := http.NewRequest("POST", "http://"+addr+path, strings.NewReader(`{"contents":[]}`))
		for _, h := range []map[string]string{headers, plainHeaders} {
			for k, v := range h {
				req.Header.Set(k, v)
			}
		}
		if resp, err = http.DefaultClient.Do(req); err == nil || time.Now().After(deadline) {
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
	case <-exit:
	case <-time.After(10 * time.Second):
		t.Fatal("the proxy did not stop")
	}
	return stderr.String()
}

// TestRequestPaneRedactsEveryCredential: the inspector's request pane of
// `streamtap request` shows every credential header of the one list, and
// the shaped ones, redacted, and the URL without its userinfo and query
// credentials; the non-secrets show.
func TestRequestPaneRedactsEveryCredential(t *testing.T) {
	body := []byte(`{"model":"gpt-4.1","stream":true,"tools":[{"type":"function","name":"get_weather"}]}`)
	data, err := samples.Open("responses-single-call")
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{}
	for _, m := range []map[string]string{credentials, plainHeaders} {
		for k, v := range m {
			h.Set(k, v)
		}
	}
	src := capture.FromReader("POST http://api.test/v1/responses", capture.SourceHTTP, bytes.NewReader(data), true)
	src.Exchange = &capture.Exchange{Method: "POST", URL: "http://u:SECRET-pw@api.test/v1/responses?" + secretQuery(), Status: 200,
		RequestHeader: h, RequestBody: body, HeadAt: capture.NoTime, Started: time.Now()}
	msgs := make(chan tea.Msg, 16)
	insp := newInspector(src, options{}, nil, func(m tea.Msg) { msgs <- m }, newModel)
	go insp.read(t.Context())
	defer insp.stop()
	insp.m.Update(tea.WindowSizeMsg{Width: 200, Height: 150})
	for {
		msg := <-msgs
		insp.m.Update(msg)
		if fmt.Sprintf("%T", msg) == fmt.Sprintf("%T", ui.SourceDone(nil)) {
			break
		}
	}
	insp.m.Update(tea.KeyPressMsg{Code: '7', Text: "7"})
	v := ansi.Strip(insp.m.View().Content)
	holdsNoSecret(t, "the request pane", v, true)
	for k := range credentials {
		if !strings.Contains(v, k+": "+capture.Redacted) {
			t.Errorf("the request pane lacks %s: [redacted]", k)
		}
	}
	if !strings.Contains(v, "max_tokens=77") {
		t.Errorf("the request pane lacks the URL's max_tokens=77:\n%s", v)
	}
}
