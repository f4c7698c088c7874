package cli

import (
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
