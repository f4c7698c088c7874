package cli

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/streamtap/streamtap/capture"
)

// landing records what each request to it carried: the server a redirect
// leads to.
type landing struct {
	*httptest.Server
	mu   sync.Mutex
	hits []landed
}

type landed struct {
	method string
	header http.Header
	body   string
}

func newLanding(t *testing.T) *landing {
	t.Helper()
	l := &landing{}
	l.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		l.mu.Lock()
		l.hits = append(l.hits, landed{r.Method, r.Header.Clone(), string(body)})
		l.mu.Unlock()
		if loc := r.URL.Query().Get("to"); loc != "" { // a redirect of its own
			code := http.StatusFound
			if r.URL.Query().Get("code") == "307" {
				code = http.StatusTemporaryRedirect
			}
			http.Redirect(w, r, loc, code)
			return
		}
		w.Header().Set("Content-Type", sseType)
		io.WriteString(w, chatStream)
	}))
	t.Cleanup(l.Close)
	return l
}

func (l *landing) got() []landed {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]landed(nil), l.hits...)
}

// redirector answers every request with a redirect to ?to= with the
// status ?code= (302 by default).
func redirector(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		code := http.StatusFound
		switch r.URL.Query().Get("code") {
		case "301":
			code = http.StatusMovedPermanently
		case "303":
			code = http.StatusSeeOther
		case "307":
			code = http.StatusTemporaryRedirect
		case "308":
			code = http.StatusPermanentRedirect
		}
		w.Header().Set("Location", r.URL.Query().Get("to"))
		w.WriteHeader(code)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestRequestRedirects: request follows redirects only with -L, as curl
// does; a hop to another origin (host, or port, or scheme) gets none of
// the credential headers redaction knows and no Referer naming the first
// URL (its ?key=), and a 307/308 body goes to another origin only with
// --location-trusted; stderr says which URL answered. The landing server
// asserts which headers arrived.
func TestRequestRedirects(t *testing.T) {
	t.Parallel()
	from := redirector(t)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(from.URL, "http://"))
	type want struct {
		code      int
		hits      int    // requests the landing server got
		method    string // of the one it got
		secrets   bool   // it got every credential
		body      string
		errs      []string // in stderr
		notInErrs []string
	}
	tests := []struct {
		name  string
		to    func(l *landing) string // where the redirect leads
		code  string
		args  []string
		want  want
		query string
	}{
		{name: "not followed without -L", to: func(l *landing) string { return l.URL + "/final" }, code: "302",
			want: want{code: 1, errs: []string{"302 Found: redirect to http://127.0.0.1:", "not followed (add -L to follow it)", "→ HTTP/1.1 302 Found"}}},
		{name: "another host, same port", code: "302", args: []string{"-L"},
			to:   func(l *landing) string { return strings.Replace(l.URL, "127.0.0.1", "localhost", 1) + "/final" },
			want: want{code: 0, hits: 1, method: "GET", errs: []string{"302 Found → GET http://localhost:", "not sent beyond the first origin: Access_token, Api-Key, Api_key, Apikey, Authorization, ", "streamtap: GET http://localhost:"}}},
		{name: "another port", code: "302", args: []string{"--location"},
			to:   func(l *landing) string { return l.URL + "/final" },
			want: want{code: 0, hits: 1, method: "GET"}},
		{name: "same origin keeps the credentials", code: "302", args: []string{"-L"},
			to:   func(*landing) string { return "/final?to=" }, // served by the redirector's own port: see below
			want: want{code: 0}},
		{name: "302 of a POST is a GET without the body", code: "302", args: []string{"-L", "-d", `{"stream":true}`},
			to:   func(l *landing) string { return l.URL + "/final" },
			want: want{code: 0, hits: 1, method: "GET"}},
		{name: "307 POST to another origin is not followed", code: "307", args: []string{"-L", "-d", `{"stream":true}`},
			to: func(l *landing) string { return strings.Replace(l.URL, "127.0.0.1", "localhost", 1) + "/final" },
			want: want{code: 1, errs: []string{"307 Temporary Redirect: redirect to http://localhost:", "it would send the request body to another origin (add --location-trusted to send it)",
				"streamtap: POST http://127.0.0.1:" + port}}},
		{name: "308 POST to another origin with --location-trusted", code: "308", args: []string{"--location-trusted", "-d", `{"stream":true}`},
			to:   func(l *landing) string { return l.URL + "/final" },
			want: want{code: 0, hits: 1, method: "POST", secrets: true, body: `{"stream":true}`}},
		{name: "307 GET to another origin", code: "307", args: []string{"-L"},
			to:   func(l *landing) string { return l.URL + "/final" },
			want: want{code: 0, hits: 1, method: "GET"}},
		{name: "the key in the first URL is not sent as Referer", code: "302", args: []string{"-L"}, query: "&key=sk-query-7",
			to:   func(l *landing) string { return l.URL + "/final" },
			want: want{code: 0, hits: 1, method: "GET", notInErrs: []string{"sk-query-7"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLanding(t)
			to := tt.to(l)
			u := from.URL + "/start?code=" + tt.code + tt.query + "&to=" + url.QueryEscape(to)
			if tt.name == "same origin keeps the credentials" {
				// The landing server redirects to itself: same origin.
				u = l.URL + "/start?to=" + url.QueryEscape(l.URL+"/final")
			}
			args := append([]string{"request", u}, credentialArgs()...)
			code, _, errs := runCLI(t, nil, append(args, tt.args...)...)
			if code != tt.want.code {
				t.Fatalf("exit %d; want %d; stderr:\n%s", code, tt.want.code, errs)
			}
			for _, s := range tt.want.errs {
				if !strings.Contains(errs, s) {
					t.Errorf("stderr lacks %q:\n%s", s, errs)
				}
			}
			for _, s := range append(tt.want.notInErrs, "SECRET") {
				if strings.Contains(errs, s) {
					t.Errorf("stderr holds %q:\n%s", s, errs)
				}
			}
			hits := l.got()
			if tt.name == "same origin keeps the credentials" {
				if len(hits) != 2 {
					t.Fatalf("landing got %d requests; want 2", len(hits))
				}
				hits = hits[1:]
				tt.want.hits, tt.want.method, tt.want.secrets = 1, "GET", true
			}
			if len(hits) != tt.want.hits {
				t.Fatalf("landing got %d requests; want %d", len(hits), tt.want.hits)
			}
			if tt.want.hits == 0 {
				return
			}
			h := hits[0]
			if h.method != tt.want.method || h.body != tt.want.body {
				t.Errorf("landing got %s %q; want %s %q", h.method, h.body, tt.want.method, tt.want.body)
			}
			for k, v := range plainHeaders {
				if h.header.Get(k) != v {
					t.Errorf("%s was not sent on: %v", k, h.header)
				}
			}
			for k, v := range credentials {
				if got := h.header.Get(k); (got == v) != tt.want.secrets || (!tt.want.secrets && got != "") {
					t.Errorf("landing got %s: %q; want it sent: %v", k, got, tt.want.secrets)
				}
			}
			if ref := h.header.Get("Referer"); ref != "" {
				t.Errorf("landing got Referer %q", ref)
			}
		})
	}
}

// TestRequestRecordsTheURLThatAnswered: after a redirect the recording
// holds the request that got the response (its method, URL and headers,
// credentials redacted), and the source is named after it.
func TestRequestRecordsTheURLThatAnswered(t *testing.T) {
	t.Parallel()
	from := redirector(t)
	l := newLanding(t)
	rec := filepath.Join(t.TempDir(), "rec.sse")
	code, _, errs := runCLI(t, nil, "request", from.URL+"/start?code=302&to="+url.QueryEscape(l.URL+"/final?key=sk-final-8"),
		"-L", "-H", "X-Api-Key: sk-xapi-3", "--save-timed", rec)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	data, _ := os.ReadFile(rec)
	r, err := capture.ParseRecording(data)
	if err != nil {
		t.Fatal(err)
	}
	if r.Method != "GET" || !strings.HasPrefix(r.URL, l.URL+"/final?key=") || strings.Contains(string(data), "sk-") {
		t.Errorf("recording: %s %s\n%s", r.Method, r.URL, data)
	}
	if len(r.RequestHeader["X-Api-Key"]) != 0 {
		t.Errorf("recorded request headers %v: the key was not sent to the second origin", r.RequestHeader)
	}
	if !strings.Contains(errs, "streamtap: GET "+l.URL+"/final?key=%5Bredacted%5D → HTTP/1.1 200 OK") || strings.Contains(errs, "sk-final-8") {
		t.Errorf("stderr does not name the URL that answered, redacted:\n%s", errs)
	}
}

// TestRequestErrorsRedactTheURL: a server that cannot be reached, a URL
// that does not parse and a scheme that is not http print the URL with
// its ?key= redacted, as every other line does; --keep-secrets keeps it.
func TestRequestErrorsRedactTheURL(t *testing.T) {
	t.Parallel()
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	tests := []struct {
		name string
		args []string
		code int
		errs string
	}{
		{"unreachable", []string{"http://" + addr + "/v1beta/models/g:streamGenerateContent?alt=sse&key=sk-secret-9"}, 2, "unreachable"},
		{"bad url", []string{"http://x.test/a b\x7f?key=sk-secret-9"}, 2, "invalid control character"},
		{"not http", []string{"ftp://x.test/?key=sk-secret-9"}, 2, "want an http:// or https:// URL"},
	}
	for _, tt := range tests {
		code, _, errs := runCLI(t, nil, append([]string{"request"}, tt.args...)...)
		if code != tt.code || !strings.Contains(errs, tt.errs) || strings.Contains(errs, "sk-secret-9") || !strings.Contains(errs, "key=%5Bredacted%5D") {
			t.Errorf("%s: exit %d, stderr %q; want %d, %q and the key redacted", tt.name, code, errs, tt.code, tt.errs)
		}
		code, _, errs = runCLI(t, nil, append([]string{"request", "--keep-secrets"}, tt.args...)...)
		if code != tt.code || !strings.Contains(errs, "sk-secret-9") {
			t.Errorf("%s --keep-secrets: exit %d, stderr %q; want the key", tt.name, code, errs)
		}
	}
}

// TestRequestRedirectBackToTheOrigin: once a redirect left the first
// origin, no later hop gets the credentials, back on that origin
// included (the host it passed through chose where they would go).
func TestRequestRedirectBackToTheOrigin(t *testing.T) {
	t.Parallel()
	l := newLanding(t)
	back := l.URL + "/final"
	via := strings.Replace(l.URL, "127.0.0.1", "localhost", 1) + "/hop?to=" + url.QueryEscape(back)
	args := append([]string{"request", l.URL + "/start?to=" + url.QueryEscape(via), "-L"}, credentialArgs()...)
	if code, _, errs := runCLI(t, nil, args...); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	hits := l.got()
	if len(hits) != 3 {
		t.Fatalf("%d requests; want 3", len(hits))
	}
	for i, h := range hits {
		for k, v := range credentials {
			if got := h.header.Get(k); (got == v) != (i == 0) {
				t.Errorf("request %d got %s: %q", i, k, got)
			}
		}
	}
}
