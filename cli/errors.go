package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/streamtap/streamtap/termtext"
)

// parseFailed handles an error from parsing the command line of command
// name: a help request prints its help on stdout (exit 0); anything else
// is one line on stderr naming the problem and the help (exit 2).
func parseFailed(name string, err error, stdout, stderr io.Writer) int {
	if errors.Is(err, flag.ErrHelp) {
		c, _ := lookupCommand(name)
		writeHelp(stdout, c)
		return 0
	}
	return usageFailed(name, err, stderr)
}

// usageFailed reports bad usage of command name in one line and returns 2.
func usageFailed(name string, err error, stderr io.Writer) int {
	prefix, help := "streamtap", "streamtap --help"
	if name != "" {
		prefix, help = "streamtap "+name, "streamtap "+name+" --help"
	}
	msg := flagError(err)
	if c, ok := lookupCommand(name); ok && c.noSample != "" && msg == "unknown flag --sample" {
		msg = c.noSample
	}
	fmt.Fprintf(stderr, "%s: %s; run '%s'\n", prefix, termtext.Safe(msg), help)
	return 2
}

// printError writes err as streamtap's error line on w. Its text may
// hold what the user typed (a file name) or what a stream or a server sent
// (a header, a status line): each line is made terminal-safe, as stream
// content is.
func printError(w io.Writer, err error) { printErrorAs(w, "streamtap", err) }

// printErrorAs is printError with the line's prefix ("streamtap check").
func printErrorAs(w io.Writer, prefix string, err error) {
	lines := strings.Split(err.Error(), "\n")
	for i, l := range lines {
		lines[i] = termtext.Safe(l)
	}
	fmt.Fprintln(w, prefix+": "+strings.Join(lines, "\n"))
}

// exitInterrupted is the exit code after ctrl+c, as shells report a
// command killed by SIGINT (128 + 2).
const exitInterrupted = 130

// readFailed reports a read error in one line and returns exit code 2, or
// exitInterrupted when the read was interrupted (ctrl+c).
func readFailed(stderr io.Writer, err error) int {
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(stderr, "streamtap: interrupted")
		return exitInterrupted
	}
	printError(stderr, err)
	return 2
}
