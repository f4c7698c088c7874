package proxy

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/samples"
)

// TestProxyBedrock: the proxy as docs/proxy.md tells to put it in front of an AWS
// SDK (the endpoint override at the real host over http, HTTP_PROXY at the
// proxy): the SDK's request reaches the upstream with the Host and path it
// signed (SigV4 signs the Host; a proxy that sent another would void the
// signature), and the binary event stream comes back unchanged, messages
// cut across writes, modelled as Bedrock, recorded byte for byte.
func TestProxyBedrock(t *testing.T) {
	t.Parallel()
	want, err := samples.Open("bedrock-converse-text-then-tool")
	if err != nil {
		t.Fatal(err)
	}
	var gotHost, gotPath string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		gotHost, gotPath = r.Host, r.URL.Path
		w.Header().Set("Content-Type", capture.EventStreamContentType)
		rc := http.NewResponseController(w)
		for off := 0; off < len(want); off += 97 { // messages cut across writes
			if _, err := w.Write(want[off:min(off+97, len(want))]); err != nil {
				return
			}
			_ = rc.Flush()
		}
	}))
	t.Cleanup(up.Close)
	dir := t.TempDir()
	proxyURL, done, logs := startProxy(t, up.URL, func(o *Options) { o.Record = dir })
	// The SDK addresses the upstream itself and sends through the proxy
	// (absolute-form request line), as HTTP_PROXY makes it.
	pu, _ := url.Parse(proxyURL)
	sdk := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu), DisableCompression: true}}
	path := "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream"
	body := `{"messages":[{"role":"user","content":[{"text":"Weather in Lisbon?"}]}],"toolConfig":{"tools":[{"toolSpec":{"name":"get_weather","inputSchema":{"json":{"type":"object","required":["location"]}}}}],"toolChoice":{"any":{}}}}`
	resp, err := sdk.Post(up.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Equal(got, want) || resp.Header.Get("Content-Type") != capture.EventStreamContentType {
		t.Fatalf("client got %d bytes of %q; want the %d bytes the server sent, unchanged", len(got), resp.Header.Get("Content-Type"), len(want))
	}
	if u, _ := url.Parse(up.URL); gotHost != u.Host || gotPath != "/model/us.anthropic.claude-sonnet-4-5-20250929-v1:0/converse-stream" {
		t.Errorf("upstream got Host %q, path %q; want the host and path the client addressed", gotHost, gotPath)
	}
	s := waitSession(t, done)
	if s.state != model.OutcomeCompleted || len(s.live.Session().Calls()) != 1 {
		t.Errorf("session: state %q, %d calls; want completed, 1", s.state, len(s.live.Session().Calls()))
	}
	for _, w := range []string{"dialect=bedrock-converse", "calls=1", "outcome=completed"} {
		if !strings.Contains(logs.String(), w) {
			t.Errorf("log line lacks %q:\n%s", w, logs)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(files) != 1 || filepath.Ext(files[0]) != ".eventstream" {
		t.Fatalf("recordings = %v; want 1, a .eventstream", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	rec, err := capture.ParseRecording(data)
	if err != nil || !bytes.Equal(rec.Bytes(), want) {
		t.Errorf("the recording's body is %d bytes (%v); want the %d bytes streamed", len(rec.Bytes()), err, len(want))
	}
	// check judges the recording against the request its header keeps:
	// get_weather is declared in toolConfig, its arguments fit the schema,
	// and toolChoice "any" got its call.
	if fs := checkFile(t, files[0]); len(fs) != 0 {
		t.Errorf("check of the recording: %v; want no finding", fs)
	}
}

// TestProxyRecordsEventStreamByBytes: a body whose Content-Type does not
// say what it is (none at all, application/octet-stream) is recorded as
// what its bytes are: an AWS event stream as NAME.eventstream, each
// message followed by its time, as one whose Content-Type says so; the
// body comes back byte for byte, its prelude cut across reads or not.
// Other bodies without a type are recorded as before: verbatim, in
// NAME.sse. Before, an event stream without its type was NAME.sse,
// untimed.
func TestProxyRecordsEventStreamByBytes(t *testing.T) {
	t.Parallel()
	stream, err := samples.Open("bedrock-converse-text-then-tool")
	if err != nil {
		t.Fatal(err)
	}
	messages := 0
	fr := capture.NewFramer(capture.FormatEventStream)
	count := func(f *capture.Frame) { messages++ }
	fr.Feed(stream, capture.NoTime, count)
	fr.Finish(capture.NoTime, count)
	json := []byte(`{"output":{"message":{"role":"assistant","content":[{"text":"Hi"}]}},"stopReason":"end_turn"}`)
	cases := []struct {
		name, ctype string // ctype "-": no Content-Type at all
		body        []byte
		piece       int
		ext         string
		timed       int // timing lines after the header block
	}{
		{"event stream, no Content-Type", "-", stream, 97, ".eventstream", messages},
		{"event stream, no Content-Type, prelude over 5 reads", "-", stream, 3, ".eventstream", messages},
		{"event stream as application/octet-stream", "application/octet-stream", stream, len(stream), ".eventstream", messages},
		{"event stream shorter than a prelude", "-", stream[:7], 7, ".sse", 0},
		{"JSON, no Content-Type", "-", json, len(json), ".sse", 0},
		{"no body", "-", nil, 1, ".sse", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				if tc.ctype == "-" {
					w.Header()["Content-Type"] = nil // no sniffing either
				} else {
					w.Header().Set("Content-Type", tc.ctype)
				}
				rc := http.NewResponseController(w)
				for off := 0; off < len(tc.body); off += tc.piece {
					if _, err := w.Write(tc.body[off:min(off+tc.piece, len(tc.body))]); err != nil {
						return
					}
					_ = rc.Flush()
				}
			}))
			t.Cleanup(up.Close)
			dir := t.TempDir()
			proxyURL, done, _ := startProxy(t, up.URL, func(o *Options) { o.Record = dir })
			resp, err := http.Post(proxyURL+"/model/m/converse-stream", "application/json", strings.NewReader(`{}`))
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !bytes.Equal(got, tc.body) {
				t.Fatalf("client got %d bytes; want the %d sent", len(got), len(tc.body))
			}
			waitSession(t, done)
			files, _ := filepath.Glob(filepath.Join(dir, "*"))
			if len(files) != 1 || filepath.Ext(files[0]) != tc.ext {
				t.Fatalf("recordings = %v; want 1, a %s", files, tc.ext)
			}
			data, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			rec, err := capture.ParseRecording(data)
			if err != nil || !bytes.Equal(rec.Bytes(), tc.body) {
				t.Fatalf("the recording's body is %d bytes (%v); want the %d bytes streamed", len(rec.Bytes()), err, len(tc.body))
			}
			_, body, _ := bytes.Cut(data, []byte("\n\n")) // after the header block
			if n := bytes.Count(body, []byte(": t=")); n != tc.timed {
				t.Errorf("%d timing lines in the body; want %d", n, tc.timed)
			}
		})
	}
}
