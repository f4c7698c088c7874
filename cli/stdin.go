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
