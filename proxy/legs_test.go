package proxy

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/samples"
)

// startLegs runs a proxy with two listeners, the first in front of app,
// the second in front of provider, and returns their URLs, the feed's
// updates and the log. app is made by the caller once the provider's
// listener is known (its base URL goes to the app, as an app's baseURL
// goes to the proxy).
func startLegs(t *testing.T, provider *httptest.Server, app func(providerURL string) *httptest.Server) (appURL, provURL string, updates func() []model.SessionUpdate, logs *syncBuffer) {
	t.Helper()
	lnApp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	lnProv, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	appSrv := app("http://" + lnProv.Addr().String())
	upApp, _ := url.Parse(appSrv.URL)
	upProv, _ := url.Parse(provider.URL)
	var mu sync.Mutex
	var got []model.SessionUpdate
	feed := NewFeed(func(b []model.SessionUpdate) {
		mu.Lock()
		got = append(got, b...)
		mu.Unlock()
	})
	t.Cleanup(feed.Abort)
	logs = &syncBuffer{}
	p := New(Options{Upstream: upApp, HeadTimeout: DefaultHeadTimeout, Feed: feed}, logs)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- p.ServeLegs(ctx, []Leg{{Listener: lnApp, Upstream: upApp}, {Listener: lnProv, Upstream: upProv}})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("ServeLegs: %v", err)
		}
		if t.Failed() {
			t.Logf("proxy log:\n%s", logs)
		}
	})
	return "http://" + lnApp.Addr().String(), "http://" + lnProv.Addr().String(), func() []model.SessionUpdate {
		mu.Lock()
		defer mu.Unlock()
		return append([]model.SessionUpdate(nil), got...)
	}, logs
}

// sampleServer serves embedded samples: /NAME.
func sampleServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		data, err := samples.Open(strings.TrimPrefix(r.URL.Path, "/"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", sseType)
		w.Write(data)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// relay is an app that answers each request by calling its provider (at
// base) once per name in steps and passing every stream on to its client,
// one after the other: its stream holds the provider's call ids and text.
func relay(t *testing.T, steps ...string) func(string) *httptest.Server {
	return relayWith(t, `{"model":"m","stream":true}`, steps...)
}

// relayWith is relay whose requests send body.
func relayWith(t *testing.T, body string, steps ...string) func(string) *httptest.Server {
	return func(base string) *httptest.Server {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", sseType)
			w.WriteHeader(http.StatusOK)
			for _, s := range steps {
				resp, err := http.Post(base+"/"+s, "application/json", strings.NewReader(body))
				if err != nil {
					t.Errorf("the app's provider request: %v", err)
					return
				}
				io.Copy(w, resp.Body)
				resp.Body.Close()
				http.NewResponseController(w).Flush()
			}
		}))
		t.Cleanup(srv.Close)
		return srv
	}
}

// TestProxyLinksLegs: an app's session and the provider sessions it made
// while streaming are linked, in the log line of the one that ended last
// and in the sessions list (the provider's row updated after it ended); a
// provider request made outside any app request is linked to nothing.
func TestProxyLinksLegs(t *testing.T) {
	t.Parallel()
	provider := sampleServer(t)
	appURL, provURL, updates, logs := startLegs(t, provider, relay(t, "chat-parallel-calls", "responses-single-call"))
	post := func(u, want string) string {
		resp, err := http.Post(u, "application/json", strings.NewReader(`{"messages":[]}`))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			for _, l := range strings.Split(logs.String(), "\n") {
				if strings.Contains(l, want) {
					return l
				}
			}
		}
		t.Fatalf("no log line %q", want)
		return ""
	}
	appLine := post(appURL+"/api/chat", " POST /api/chat ")
	// The app's session is #1, its model calls #2 and #3 (by their call
	// ids: the relay passes them on).
	if !regexp.MustCompile(`^streamtap: #1 POST /api/chat 200 .* legs=#2,#3 linked-by=call-ids`).MatchString(appLine) {
		t.Fatalf("the app's line %q; want legs=#2,#3 linked-by=call-ids\n%s", appLine, logs)
	}
	var prov *model.Exchange
	for deadline := time.Now().Add(5 * time.Second); prov == nil && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		for _, u := range updates() {
			if u.Info.ID == 3 && u.Info.LegOf == 1 {
				prov = &u.Info
			}
		}
	}
	if prov == nil || prov.Step != 2 || len(prov.LegsBy) != 1 || prov.LegsBy[0] != "call ids" {
		t.Errorf("session #3's links in the sessions list: %+v; want step 2 of #1, by call ids", prov)
	}
	// A provider request of no app's.
	if l := post(provURL+"/chat-single-call", " POST /chat-single-call "); strings.Contains(l, "leg") {
		t.Errorf("a provider request outside any app's is linked: %q", l)
	}
	for _, u := range updates() {
		if u.Info.ID == 1 && u.Ended && !u.Relink && (len(u.Info.Legs) != 2 || u.Info.Legs[0] != 2) {
			t.Errorf("the app's final update has legs %v; want [2 3]", u.Info.Legs)
		}
	}
}

// TestServeLegsStops: with a stream open through one listener and the
// other idle, ServeLegs returns within 2 s of its context's end, the
// stream cut and its session logged.
func TestServeLegsStops(t *testing.T) {
	t.Parallel()
	up := slowUpstream(t, 64, time.Millisecond, nil)
	u, _ := url.Parse(up.URL)
	var lns [2]net.Listener
	for i := range lns {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns[i] = ln
	}
	logs := &syncBuffer{}
	p := New(Options{Upstream: u, HeadTimeout: DefaultHeadTimeout}, logs)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- p.ServeLegs(ctx, []Leg{{Listener: lns[0], Upstream: u}, {Listener: lns[1], Upstream: u}})
	}()
	resp, err := http.Get("http://" + lns[1].Addr().String() + "/v1?sample=responses-single-call&stall=1m")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	start := time.Now()
	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("ServeLegs: %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("ServeLegs still serving 2 s after its context ended")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("ServeLegs took %v to stop", d)
	}
	if !strings.Contains(logs.String(), "#1 GET /v1") {
		t.Errorf("the cut session was not logged:\n%s", logs)
	}
}

// TestProxyLegsNoModel: a request that names no model (an MCP tools/call
// the app makes while it streams) is no model call of the app's, even
// when it is the only one in its time.
func TestProxyLegsNoModel(t *testing.T) {
	t.Parallel()
	provider := sampleServer(t)
	appURL, _, _, logs := startLegs(t, provider, relayWith(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`, "mcp-tools-call-progress"))
	resp, err := http.Post(appURL+"/api/chat", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(logs.String(), " POST /api/chat "); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no line for the app's session:\n%s", logs)
		}
	}
	if strings.Contains(logs.String(), "legs=") || strings.Contains(logs.String(), "leg-of=") {
		t.Errorf("an MCP tools/call linked as a model call:\n%s", logs)
	}
}
