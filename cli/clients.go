package cli

import (
	"flag"
	"fmt"
	"time"

	"github.com/streamtap/streamtap/proxy"
)

// clientLimits are the bounds the proxy and replay's server put on their
// clients (proxy/serve.go), with one set of flags for both.
type clientLimits struct {
	body, idle, head, write time.Duration
	maxConns                int
}

// flags defines the client flags into c.
func (c *clientLimits) flags(fs *flag.FlagSet) {
	fs.DurationVar(&c.body, "client-body-timeout", proxy.DefaultBodyTimeout,
		fmt.Sprintf("cut a client that sends its request body at under %d bytes a second on average over `DURATION` (408; 0: never)", proxy.MinBodyRate))
	fs.DurationVar(&c.idle, "client-idle-timeout", proxy.DefaultClientIdle, "close a client's keep-alive connection after `DURATION` without a request (0: never)")
	fs.DurationVar(&c.head, "client-head-timeout", proxy.DefaultClientHeadTimeout,
		fmt.Sprintf("cut a client that takes longer than `DURATION` to send a request's head (at most %d KiB)", proxy.MaxHeadBytes>>10))
	fs.DurationVar(&c.write, "client-write-timeout", proxy.DefaultClientWriteTimeout,
		"cut a client that reads none of a response for `DURATION`; the proxy cancels the upstream request with it (0: never)")
	fs.IntVar(&c.maxConns, "max-conns", proxy.DefaultMaxConns, "accept at most `N` client connections at once; more wait until one closes (0: no limit)")
}

// check says which flag is out of range.
func (c clientLimits) check() error {
	if c.maxConns < 0 {
		return fmt.Errorf("--max-conns %d: want a number of connections, 0 for no limit", c.maxConns)
	}
	if c.head <= 0 {
		return fmt.Errorf("--client-head-timeout %v: want a duration above 0", c.head)
	}
	return nil
}

// limits are the server's bounds (the body's timeout aside).
func (c clientLimits) limits() proxy.Limits {
	return proxy.Limits{MaxConns: c.maxConns, HeadTimeout: c.head, Idle: c.idle, WriteTimeout: c.write}
}
