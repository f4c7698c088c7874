package cli

import (
	"bufio"
	"context"
	"io"
	"net"
	"strings"
	"testing"
)

func TestExposure(t *testing.T) {
	t.Parallel()
	tests := []struct {
		ip   string
		want string
	}{
		{"127.0.0.1", ""},
		{"127.0.0.2", ""},
		{"::1", ""},
		{"0.0.0.0", "every network interface"},
		{"::", "every network interface"},
		{"192.168.1.5", "a network interface (192.168.1.5)"},
	}
	for _, tt := range tests {
		if got := exposure(&net.TCPAddr{IP: net.ParseIP(tt.ip), Port: 8787}); got != tt.want {
			t.Errorf("exposure(%s) = %q; want %q", tt.ip, got, tt.want)
		}
	}
}

// TestListenWarnsBeyondLoopback: proxy and replay --listen :PORT bind
// every interface, and say so on stderr; on loopback they say nothing.
// They used to bind every interface silently.
func TestListenWarnsBeyondLoopback(t *testing.T) {
	t.Parallel()
	rec := writeTemp(t, "s.sse", "data: {}\n\n")
	for _, tt := range []struct {
		name string
		args []string
		warn bool
	}{
		{"proxy every interface", []string{"proxy", "--no-tui", "--upstream", "http://127.0.0.1:1", "--listen", ":0"}, true},
		{"proxy 0.0.0.0", []string{"proxy", "--no-tui", "--upstream", "http://127.0.0.1:1", "--listen", "0.0.0.0:0"}, true},
		{"proxy loopback", []string{"proxy", "--no-tui", "--upstream", "http://127.0.0.1:1", "--listen", "127.0.0.1:0"}, false},
		{"proxy localhost", []string{"proxy", "--no-tui", "--upstream", "http://127.0.0.1:1", "--listen", "localhost:0"}, false},
		{"replay every interface", []string{"replay", rec, "--listen", ":0"}, true},
		{"replay loopback", []string{"replay", rec, "--listen", "127.0.0.1:0"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(t.Context())
			pr, pw := io.Pipe()
			done := make(chan int, 1)
			go func() {
				done <- run(ctx, tt.args, nil, io.Discard, pw)
				pw.Close()
			}()
			// Everything up to the line that says where it listens.
			var head strings.Builder
			br := bufio.NewReader(pr)
			for {
				line, err := br.ReadString('\n')
				head.WriteString(line)
				if strings.Contains(line, "http://") || err != nil {
					break
				}
			}
			cancel()
			go func() { _, _ = io.Copy(io.Discard, pr) }()
			if code := <-done; code != 0 {
				t.Fatalf("exit %d:\n%s", code, head.String())
			}
			got := head.String()
			warned := strings.Contains(got, "warning: listening on every network interface") && strings.Contains(got, "--listen 127.0.0.1:")
			if warned != tt.warn || (!tt.warn && strings.Contains(got, "warning")) {
				t.Errorf("%s: stderr =\n%s\nwant a warning: %v", strings.Join(tt.args, " "), got, tt.warn)
			}
		})
	}
}
