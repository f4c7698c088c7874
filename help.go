package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// helpWidth is the width help text is wrapped to.
const helpWidth = 80

// writeHelp prints the usage of c: the usage line, what it does, and every
// flag of its flag set with its argument, default and meaning. The bare
// inspector's help also lists the commands. It returns the first error
// writing to w.
func writeHelp(w io.Writer, c command) error {
	b := bufio.NewWriter(w)
	fs := c.flags()
	hasFlags := false
	fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	line := "usage: streamtap"
	if c.name != "" {
		line += " " + c.name
	}
	if hasFlags {
		line += " [flags]"
	}
	if c.args != "" {
		line += " " + c.args
	}
	if c.name == "" {
		fmt.Fprintln(b, "streamtap — see what an LLM tool-call stream really did")
		fmt.Fprintln(b)
		line += "\n       streamtap COMMAND [flags] [ARGS]"
	}
	fmt.Fprintln(b, line)
	fmt.Fprintln(b)
	fmt.Fprint(b, c.about)
	if c.name == "" {
		fmt.Fprintln(b, "\ncommands:")
		for _, sub := range commands() {
			if sub.name != "" {
				fmt.Fprintf(b, "  %-9s %s\n", sub.name, sub.summary)
			}
		}
	}
	if hasFlags {
		fmt.Fprintln(b, "\nflags:")
		writeFlags(b, fs)
	}
	if c.exits != "" {
		fmt.Fprint(b, "\n"+c.exits)
	}
	return b.Flush() // a bufio.Writer keeps its first error: Flush returns it
}

// writeFlags lists the flags of fs, one entry each: the flag and its
// argument, then its meaning and default, wrapped beside them.
func writeFlags(w io.Writer, fs *flag.FlagSet) {
	const maxColumn = 26 // a longer flag puts its meaning on the next line
	type entry struct {
		head  string
		words []string // the meaning, then the default as one unbreakable word
	}
	var flags []*flag.Flag
	fs.VisitAll(func(f *flag.Flag) { flags = append(flags, f) })
	// -H and -X sort among the long flags, not before them.
	slices.SortStableFunc(flags, func(a, b *flag.Flag) int {
		return strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name))
	})
	var entries []entry
	column := 0
	for _, f := range flags {
		arg, meaning := flag.UnquoteUsage(f)
		head := dashed(f.Name)
		if !isBoolFlag(f) {
			head += " " + arg
		}
		words := strings.Fields(meaning)
		if def := f.DefValue; !isBoolFlag(f) && def != "" && def != "0" && def != "0s" {
			words = append(words, "(default "+def+")")
		}
		entries = append(entries, entry{head, words})
		if len(head) <= maxColumn {
			column = max(column, len(head))
		}
	}
	indent := strings.Repeat(" ", 2+column+2)
	for _, e := range entries {
		lines := wrap(e.words, helpWidth-len(indent))
		if len(e.head) > column {
			fmt.Fprintf(w, "  %s\n", e.head)
		} else {
			fmt.Fprintf(w, "  %-*s  %s\n", column, e.head, lines[0])
			lines = lines[1:]
		}
		for _, l := range lines {
			fmt.Fprintf(w, "%s%s\n", indent, l)
		}
	}
}

// wrap joins words into lines of at most width bytes; a word longer than
// width gets a line of its own.
func wrap(words []string, width int) []string {
	var lines []string
	cur := ""
	for _, word := range words {
		switch {
		case cur == "":
			cur = word
		case len(cur)+1+len(word) <= width:
			cur += " " + word
		default:
			lines = append(lines, cur)
			cur = word
		}
	}
	return append(lines, cur)
}

// The text of each command's help, under its usage line. The flags are
// listed from the flag sets; these say what the command does.
const (
	inspectorAbout = `Inspects a stream: the interactive inspector on a terminal, the plain
timeline (one line per event) when stdout is not one. FILE is a stream, a
timed recording or a curl -i capture; - reads stdin. With no FILE, streamtap
reads stdin when it is a pipe (curl -N … | streamtap), and otherwise opens
the demo sample. streamtap - on a terminal with nothing piped in says so and
waits for q. streamtap A --diff B shows A and B side by side, the selection
linked and the differences marked (streamtap diff A B is the report).
`
	inspectorExits = `Flags may also come before the command: streamtap --json calls x.sse.
Run 'streamtap COMMAND --help' or 'streamtap help COMMAND' for a command's
flags; 'streamtap --version' prints the version.

exit codes: 0 done; 1 check: a finding at or above --fail-on, or an outcome
of error, failed, truncated or empty; request: an HTTP error status or such
an outcome; diff, and --diff not on a terminal: the streams differ; 2
unreadable input or bad usage
`
	timelineAbout = `Prints the plain timeline, even on a terminal: one line per event (ordinal,
arrival time, gap since the previous event, sequence number, kind, type,
what the event did), then a line with the stream's outcome.
`
	callsAbout = `Prints the calls and text a client assembles from the stream, and how the
stream ended. --json prints one object whose fields are a contract: added
to, never renamed (README: streamtap calls --json).
`
	eventsAbout = `Prints one JSON line per event, comment and remainder, in stream order;
their offset/length ranges cover every byte of the input.
`
	checkAbout = `Checks a stream against the protocol rules (streamtap rules lists them) and
prints the stream's outcome and the findings. Reads stdin when FILE is -, or
when no FILE is given and stdin is a pipe.

The check fails on a finding at or above --fail-on, and on an outcome of
error (an HTTP error or an error event), failed, blocked (a refusal or a
filter), truncated (cut before the model finished) or empty, even without
findings: a 401 body or a cut stream fails a CI job; completed, incomplete
(stopped at a limit) and closed pass. --allow-outcome lets named outcomes
pass. The text output says which outcome failed the check; --json adds
"pass": the verdict.

With the request the stream answers (--request FILE, or the request body a
timed recording, a HAR file or a cassette carries), the request/… rules also
hold every call to it: arguments against the tool's JSON Schema, undeclared
tools, tool_choice, parallel calls.
`
	checkExits = `exit codes: 0 pass, 1 fail (findings or outcome), 2 unreadable input or bad
usage
`
	rulesAbout = `Lists every rule the checks know: id, severity in the strict profile (and
in the tolerant one when it differs), summary. docs/rules.md explains each.
`
	samplesAbout = `Lists the sample streams embedded in the binary, each with the lesson it
teaches. Open one with streamtap --sample NAME, with any command that reads a
stream, or play it with streamtap replay --sample NAME.
`
	proxyAbout = `A recording reverse proxy: point a client's base URL at --listen. Streams
pass to the client byte for byte; each request/response pair is a session,
inspected on the side. On a terminal a live sessions list (enter opens a
session in the inspector); with --no-tui, or when output is not a terminal,
one line per session on stderr. Runs until interrupted.
`
	replayAbout = `Plays a recording (or any stream) at its recorded pace divided by --speed:
with --listen, serves it to every request (any method, any path) with the
recorded status and headers; otherwise plays it in the inspector on a
terminal, or prints the plain timeline line by line as its time comes.
--sample NAME plays an embedded sample instead of FILE; a stream without
timing is served at once and played at a fixed pace.
`
	requestAbout = `Makes one HTTP request and inspects the response as it streams: the
inspector on a terminal, the plain timeline otherwise, or the calls report
with --json. $VAR and ${VAR} in -H values are read from the environment, so
keys stay out of shell history.
`
	requestExits = `exit codes: 0 a 2xx status and an outcome that passes; 1 an HTTP error
status, or an outcome of error, failed, blocked, truncated or empty (unless
--allow-outcome); 2 bad usage, no response, or a connection that broke
mid-stream
`
	versionAbout = `Prints the module version, the VCS revision (-dirty when the tree was
modified), the commit time and the Go version this binary was built with.
`
	helpAbout = `Prints the usage of streamtap, or of COMMAND with every flag it takes.
`
)
