package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/streamtap/streamtap/proxy"
)

func TestProxyLogFlag(t *testing.T) {
	t.Parallel()
	o, err := parseProxyArgs([]string{"--upstream", "http://127.0.0.1:1", "--log", "proxy.log"})
	if err != nil || o.logFile != "proxy.log" || o.noTUI {
		t.Errorf("parseProxyArgs(--log proxy.log) = %+v, %v; want logFile proxy.log", o, err)
	}
}

func TestParseProxyArgs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		ok   bool
	}{
		{[]string{"--upstream", "https://api.openai.com"}, true},
		{[]string{"--upstream", "ftp://x"}, false},
		{[]string{}, false},
		{[]string{"--upstream", "http://x", "extra"}, false},
		{[]string{"--upstream", "http://x", "--keep", "50"}, true},
		// --keep and --log shape the sessions list, which --no-tui has not.
		{[]string{"--upstream", "http://x", "--no-tui", "--keep", "50"}, false},
		{[]string{"--upstream", "http://x", "--no-tui", "--log", "p.log"}, false},
		{[]string{"--upstream", "http://x", "--no-tui", "--keep", "0"}, true},
	}
	for _, tt := range tests {
		_, err := parseProxyArgs(tt.args)
		if (err == nil) != tt.ok {
			t.Errorf("parseProxyArgs(%q) = %v; want ok %v", tt.args, err, tt.ok)
		}
	}
}

// The client deadlines have defaults, and their flags reach the proxy.
func TestProxyClientDeadlineFlags(t *testing.T) {
	t.Parallel()
	o, err := parseProxyArgs([]string{"--upstream", "http://127.0.0.1:1"})
	if err != nil || o.proxy(nil).BodyTimeout != proxy.DefaultBodyTimeout || o.proxy(nil).ClientIdle != proxy.DefaultClientIdle {
		t.Errorf("defaults: %+v, %v; want body %v, idle %v", o.proxy(nil), err, proxy.DefaultBodyTimeout, proxy.DefaultClientIdle)
	}
	o, err = parseProxyArgs([]string{"--upstream", "http://127.0.0.1:1", "--client-body-timeout", "5s", "--client-idle-timeout", "0"})
	if po := o.proxy(nil); err != nil || po.BodyTimeout != 5*time.Second || po.ClientIdle != 0 {
		t.Errorf("parseProxyArgs(--client-body-timeout 5s --client-idle-timeout 0) = %+v, %v", po, err)
	}
}

// TestProxyLegArgs: --listen and --upstream go in pairs, the Nth --listen
// forwarding to the Nth --upstream; one --upstream keeps the default
// --listen.
func TestProxyLegArgs(t *testing.T) {
	for _, tt := range []struct {
		args []string
		legs []string // listen→upstream; nil for an error
	}{
		{[]string{"--upstream", "http://a"}, []string{"127.0.0.1:8787→http://a"}},
		{[]string{"--listen", ":1", "--upstream", "http://a", "--listen", ":2", "--upstream", "https://b"}, []string{":1→http://a", ":2→https://b"}},
		{[]string{"--listen", ":1", "--listen", ":2", "--upstream", "http://a", "--upstream", "https://b"}, []string{":1→http://a", ":2→https://b"}},
		{[]string{"--upstream", "http://a", "--upstream", "https://b"}, nil},
		{[]string{"--listen", ":1", "--listen", ":2", "--upstream", "http://a"}, nil},
		{[]string{"--listen", ":1", "--upstream", "http://a", "--listen", ":2", "--upstream", "ftp://b"}, nil},
	} {
		o, err := parseProxyArgs(tt.args)
		var got []string
		for _, l := range o.legs {
			got = append(got, l.listen+"→"+l.upstream.String())
		}
		if (err != nil) != (tt.legs == nil) || (err == nil && strings.Join(got, " ") != strings.Join(tt.legs, " ")) {
			t.Errorf("parseProxyArgs(%q) = %v, %v; want %v", tt.args, got, err, tt.legs)
		}
	}
}
