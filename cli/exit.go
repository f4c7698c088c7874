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

// Exit statuses besides 0 (done). A command returns an error; exit turns
// it into one of these and the line stderr gets, in one place.
const (
	// statusFailed is a verdict, not a breakdown: check found what fails
	// it, diff found a difference, request got an error status or an
	// outcome that fails.
	statusFailed = 1
	// statusError is bad usage, input that cannot be read, or a failure
	// of the machine (a file not written, a port taken).
	statusError = 2
	// statusInterrupted is the status after ctrl+c, as shells report a
	// command killed by SIGINT (128 + 2).
	statusInterrupted = 130
)

// exitError ends a command with an exit status other than 0 (or with 0
// after its help) and says what went wrong. An error of any other type
// ends it with statusError and the line "streamtap: ERR".
type exitError struct {
	status int
	err    error    // what the line says; nil for no line
	line   lineKind // how the line reads
	cmd    string   // the command the line names ("" is the inspector)
}

// lineKind is how an exitError's line reads.
type lineKind uint8

const (
	linePlain lineKind = iota // "streamtap: ERR"
	lineNamed                 // "streamtap CMD: ERR"
	lineUsage                 // "streamtap CMD: ERR; run 'streamtap CMD --help'"
	lineHelp                  // no line: CMD's help on stdout
)

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.status)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageError is bad usage of command cmd ("" is the inspector): exit 2
// after one line naming the problem and the command's help. A help
// request (flag.ErrHelp, from -h) prints the help on stdout instead, exit
// 0.
func usageError(cmd string, err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return &exitError{status: 0, line: lineHelp, cmd: cmd}
	}
	return &exitError{status: statusError, err: err, line: lineUsage, cmd: cmd}
}

// commandError is err with the line naming command cmd ("streamtap
// check: …"), exit 2: check and diff name themselves, as CI logs read
// them. An exitError passes unchanged.
func commandError(cmd string, err error) error {
	var e *exitError
	if errors.As(err, &e) {
		return err
	}
	return &exitError{status: statusError, err: err, line: lineNamed, cmd: cmd}
}

// readError is the error a read ended with: exit 130 after "streamtap:
// interrupted" when ctrl+c interrupted it (ctx cancelled), else err
// itself.
func readError(err error) error {
	if errors.Is(err, context.Canceled) {
		return &exitError{status: statusInterrupted, err: errors.New("interrupted")}
	}
	return err
}

// exitStatus ends a command with status and no line: the output said
// why (a failed check's report, a diff's differences), or each part said
// it already (an archive's sessions).
func exitStatus(status int) error {
	if status == 0 {
		return nil
	}
	return &exitError{status: status}
}

// exit writes the line err asks for, on stderr (or the help on stdout),
// and returns the exit status: the one place an error becomes a status.
// nil is 0.
func exit(err error, stdout, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	var e *exitError
	if !errors.As(err, &e) {
		e = &exitError{status: statusError, err: err}
	}
	switch {
	case e.line == lineHelp:
		c, _ := lookupCommand(e.cmd)
		if werr := writeHelp(stdout, c); werr != nil {
			// help > /dev/full printed nothing and exited 0.
			writeErrorLine(stderr, "streamtap", werr)
			return statusError
		}
	case e.err == nil:
	case e.line == lineUsage:
		writeUsageLine(stderr, e.cmd, e.err)
	case e.line == lineNamed:
		writeErrorLine(stderr, "streamtap "+e.cmd, e.err)
	default:
		writeErrorLine(stderr, "streamtap", e.err)
	}
	return e.status
}

// writeUsageLine reports bad usage of command name in one line that
// names the command's help.
func writeUsageLine(w io.Writer, name string, err error) {
	prefix, help := "streamtap", "streamtap --help"
	if name != "" {
		prefix, help = "streamtap "+name, "streamtap "+name+" --help"
	}
	msg := flagError(err)
	c, ok := lookupCommand(name)
	if flag, unknown := strings.CutPrefix(msg, "unknown flag "); ok && unknown {
		if c.noSample != "" && flag == "--sample" {
			msg = c.noSample
		} else if hint := flagSuggestion(c, strings.TrimLeft(flag, "-")); hint != "" {
			msg += " (" + hint + ")"
		}
	}
	fmt.Fprintf(w, "%s: %s; run '%s'\n", prefix, termtext.Safe(msg), help)
}

// writeErrorLine writes err as streamtap's error line on w, after prefix
// ("streamtap", "streamtap check"). Its text may hold what the user typed
// or a pull request named (a file name) or what a stream or a server sent
// (a header, a status line): it is made terminal-safe as stream content
// is, line breaks included, so that it is one line, as it says, and
// starts none of its own in a CI log (a file name holding a line break
// and "::error::" forged a workflow command there).
func writeErrorLine(w io.Writer, prefix string, err error) {
	fmt.Fprintln(w, prefix+": "+termtext.Safe(err.Error()))
}
