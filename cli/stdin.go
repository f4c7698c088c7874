package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/charmbracelet/x/term"
)

// terminalStdinHint is printed on stderr when a headless command reads a
// stream typed at the terminal, as `streamtap calls -` with nothing piped
// in: without it the command looks hung.
const terminalStdinHint = "streamtap: reading a stream from the terminal; end it with ctrl+d (ctrl+c cancels)"

// waitingText is what the inspector shows when `streamtap -` finds stdin on
// the terminal: no stream can arrive, and the keys are the terminal's.
const waitingText = `streamtap: waiting for a stream on stdin, but stdin is this terminal.

  pipe one in:     curl -N https://… | streamtap
  or open a file:  streamtap FILE          (streamtap --help for more)

q, ctrl+c or ctrl+d quits.
`

// waitForPipe runs `streamtap -` when stdin is the terminal and stdout too:
// it says what it waits for and how to pipe a stream in, then waits for q,
// ctrl+c or ctrl+d. It reads the keys itself in raw mode instead of
// starting the inspector, because the capture and Bubble Tea would both
// read the one terminal and split the keys between them. A quit is exit 0,
// like quitting the inspector.
func waitForPipe(ctx context.Context, stdin *os.File, stdout io.Writer) error {
	fmt.Fprint(stdout, waitingText)
	if state, err := term.MakeRaw(stdin.Fd()); err == nil {
		defer func() { _ = term.Restore(stdin.Fd(), state) }()
	}
	keys := make(chan byte, 16)
	go func() {
		defer close(keys)
		buf := make([]byte, 64)
		for {
			n, err := stdin.Read(buf)
			for _, b := range buf[:n] {
				keys <- b
			}
			if err != nil || n == 0 {
				return // EOF: ctrl+d when the terminal stayed in line mode
			}
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return nil
		case k, ok := <-keys:
			if !ok || isQuitKey(k) {
				return nil
			}
		}
	}
}

// isQuitKey reports whether a byte typed in raw mode quits: q, ctrl+c
// (ETX) or ctrl+d (EOT).
func isQuitKey(b byte) bool {
	return b == 'q' || b == 'Q' || b == 0x03 || b == 0x04
}

// cancelableReader reads r on a goroutine of its own so that a Read that
// waits on a terminal returns as soon as ctx ends: a read from a terminal
// cannot be interrupted otherwise, and ctrl+c must end `streamtap calls -`.
// After ctx ends, the goroutine stays blocked until the terminal yields a
// byte or the process exits, so it serves only a terminal stdin. It is not
// safe for concurrent use.
type cancelableReader struct {
	ctx     context.Context
	r       io.Reader
	pending chan readResult // the read in flight, or nil
	rest    []byte          // read but not yet returned
	err     error           // returned once rest is drained
}

type readResult struct {
	b   []byte
	err error
}

func newCancelableReader(ctx context.Context, r io.Reader) *cancelableReader {
	return &cancelableReader{ctx: ctx, r: r}
}

func (c *cancelableReader) Read(p []byte) (int, error) {
	if len(c.rest) > 0 {
		n := copy(p, c.rest)
		c.rest = c.rest[n:]
		return n, nil
	}
	if c.err != nil {
		return 0, c.err
	}
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	if c.pending == nil {
		ch := make(chan readResult, 1)
		buf := make([]byte, max(len(p), 1))
		go func() {
			n, err := c.r.Read(buf)
			ch <- readResult{buf[:n], err}
		}()
		c.pending = ch
	}
	select {
	case res := <-c.pending:
		c.pending = nil
		n := copy(p, res.b)
		c.rest = res.b[n:]
		if len(c.rest) > 0 {
			c.err = res.err
			return n, nil
		}
		return n, res.err
	case <-c.ctx.Done():
		return 0, c.ctx.Err()
	}
}
