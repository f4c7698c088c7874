package proxy

import (
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecordingNameIsBounded: a request whose method is 300 characters
// (any HTTP token is a method) or whose path is long and odd is still
// recorded, under a file name of at most 255 bytes made of safe
// characters. A long method used to leave the session unrecorded: the
// file could not be created ("file name too long").
func TestRecordingNameIsBounded(t *testing.T) {
	t.Parallel()
	up := slowUpstream(t, 4096, 0, nil)
	dir := t.TempDir()
	proxyURL, done, logs := startProxy(t, up.URL, func(o *Options) { o.Record = dir })
	tests := []struct{ method, path string }{
		{strings.Repeat("M", 300), "/v1/responses"},
		{"!#$%&'*+-.^_`|~" + strings.Repeat("x", 40), "/v1/" + strings.Repeat("%C3%A9/..", 80)},
		{"POST", "/v1/responses"},
	}
	for _, tt := range tests {
		req, err := http.NewRequest(tt.method, proxyURL+tt.path+"?sample=responses-single-call", strings.NewReader(`{"model":"m"}`))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := rawClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		s := waitSession(t, done)
		name := filepath.Base(s.recPath)
		if s.recPath == "" || filepath.Dir(s.recPath) != dir || len(name) > 255 || strings.ContainsAny(name, "/\\%'*`|~$&!#^+") {
			t.Errorf("method %.20q…: recorded as %q (%d bytes); want a file of at most 255 safe bytes in %s", tt.method, s.recPath, len(name), dir)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.sse"))
	if len(files) != len(tests) {
		t.Errorf("recordings = %d; want %d\n%s", len(files), len(tests), logs)
	}
}
