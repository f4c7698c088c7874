package main

import "testing"

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
	}
	for _, tt := range tests {
		_, err := parseProxyArgs(tt.args)
		if (err == nil) != tt.ok {
			t.Errorf("parseProxyArgs(%q) = %v; want ok %v", tt.args, err, tt.ok)
		}
	}
}
