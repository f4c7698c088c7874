package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/charmbracelet/x/term"

	"github.com/streamtap/streamtap/ui"
)

// command is one command of streamtap. Its help is rendered from the flag
// set its flags function returns, which is the constructor the command
// parses with too, so the help cannot drift from the flags.
type command struct {
	name    string // "" is the bare inspector
	args    string // the operands after the flags, e.g. "[FILE|-]"
	summary string // one line in the list of commands
	about   string // the text under the usage line
	exits   string // the text after the flags: exit codes
	// flags returns a fresh set of every flag the command takes.
	flags func() *flag.FlagSet
	// noSample, when set, says why the command takes no --sample and what
	// to run instead; it replaces the unknown-flag error.
	noSample string
	run      func(ctx context.Context, args []string, stdin *os.File, stdout, stderr io.Writer) int
}

// commands lists every command in the order help shows them. It is a
// function, not a variable: the commands' run functions print help, which
// reads this list, and a variable would make that an initialization cycle.
func commands() []command {
	return []command{
		inspectorCommand(),
		readingCommand("calls", "the assembled calls and text", callsAbout),
		readingCommand("events", "one JSON line per event", eventsAbout),
		checkCommand(),
		diffCommand(),
		{name: "rules", summary: "every rule the checks know", about: rulesAbout, flags: rulesFlags, run: runRules,
			noSample: "rules takes no --sample: it lists the rules (check a sample with streamtap check --sample NAME)"},
		{name: "samples", summary: "list the embedded sample streams", about: samplesAbout, flags: noFlags("samples"), run: runSamples,
			noSample: "samples takes no --sample: it lists the samples (open one with streamtap --sample NAME)"},
		readingCommand("timeline", "the plain timeline, one line per event, even on a terminal", timelineAbout),
		{name: "proxy", summary: "a recording reverse proxy, one session per request", about: proxyAbout,
			flags: func() *flag.FlagSet { fs, _ := proxyFlags(new(proxyOptions)); return fs }, run: runProxy,
			noSample: "proxy takes no --sample: it records live traffic (serve a sample with streamtap replay --sample NAME --listen ADDR)"},
		{name: "replay", args: "FILE | --sample NAME", summary: "play a recording at its pace, or serve it as an SSE endpoint",
			about: replayAbout, flags: func() *flag.FlagSet { return replayFlags(new(replayOptions)) }, run: runReplay},
		{name: "request", args: "URL", summary: "make a request and inspect its response", about: requestAbout, exits: requestExits,
			flags: func() *flag.FlagSet { fs, _, _ := requestFlags(new(requestOptions)); return fs }, run: runRequest,
			noSample: "request takes no --sample: it makes its own request (open a sample with streamtap --sample NAME, or play it with streamtap replay --sample NAME)"},
		{name: "version", summary: "the version, VCS revision and Go version of this binary", about: versionAbout,
			flags: noFlags("version"), run: runVersion},
		{name: "help", args: "[COMMAND]", summary: "this usage, or a command's", about: helpAbout, flags: noFlags("help"), run: runHelp},
	}
}

// lookupCommand finds a command by name; "" is the inspector.
func lookupCommand(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// run dispatches a command line and returns the exit code. Flags may come
// before the command (`streamtap --json calls x.sse`): they are handed to
// it as if they followed it.
func run(ctx context.Context, args []string, stdin *os.File, stdout, stderr io.Writer) int {
	name, rest := splitCommand(args)
	c, _ := lookupCommand(name)
	return c.run(ctx, rest, stdin, stdout, stderr)
}

// splitCommand finds the command among args: the first argument that is
// not a flag or a flag's value. It returns the command's name ("" when the
// first such argument is not a command: the inspector's FILE) and the
// arguments without it, flags before it kept in front. --version among the
// leading flags is the version command.
func splitCommand(args []string) (string, []string) {
	takesValue := valueFlags()
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if a == "-" || !strings.HasPrefix(a, "-") {
			if _, ok := lookupCommand(a); ok && a != "" {
				return a, append(args[:i:i], args[i+1:]...)
			}
			break
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name == "version" {
			return "version", append(args[:i:i], args[i+1:]...)
		}
		if !hasValue && takesValue[name] {
			i++ // skip the flag's value: `--sample calls` names a sample
		}
	}
	return "", args
}

// valueFlags is the set of flag names that take a value in any command.
// A name is a value flag in every command that has it (a test holds that),
// so it tells how to skip flags before the command is known.
func valueFlags() map[string]bool {
	m := map[string]bool{}
	for _, c := range commands() {
		c.flags().VisitAll(func(f *flag.Flag) {
			if !isBoolFlag(f) {
				m[f.Name] = true
			}
		})
	}
	return m
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

func noFlags(name string) func() *flag.FlagSet {
	return func() *flag.FlagSet { return newFlagSet(name) }
}

// newFlagSet makes the flag set of a command: errors are returned, never
// printed by the flag package, because parseFailed reports them.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(strings.TrimSpace("streamtap "+name), flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parseInterspersed parses flags wherever they stand among the positional
// arguments, so `streamtap calls x.sse --json` works like
// `streamtap calls --json x.sse`; the standard flag package stops at the
// first positional one. Everything after "--" is positional.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// parseFailed handles an error from parsing the command line of command
// name: a help request prints its help on stdout (exit 0); anything else
// is one line on stderr naming the problem and the help (exit 2).
func parseFailed(name string, err error, stdout, stderr io.Writer) int {
	if errors.Is(err, flag.ErrHelp) {
		c, _ := lookupCommand(name)
		return printHelp(stdout, stderr, c)
	}
	return usageFailed(name, err, stderr)
}

// printHelp writes c's help to stdout and returns 0, or says on stderr why
// it could not and returns 2 (help > /dev/full printed nothing and exited
// 0).
func printHelp(stdout, stderr io.Writer, c command) int {
	if err := writeHelp(stdout, c); err != nil {
		printError(stderr, err)
		return 2
	}
	return 0
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
	fmt.Fprintf(stderr, "%s: %s; run '%s'\n", prefix, ui.Safe(msg), help)
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
		lines[i] = ui.Safe(l)
	}
	fmt.Fprintln(w, prefix+": "+strings.Join(lines, "\n"))
}

// flagError rewrites the flag package's messages to name flags the way
// the help does (--name, or -X for one letter). Other errors pass through.
func flagError(err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return "unknown flag " + dashed(name)
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return dashed(name) + " needs an argument"
	}
	if m := invalidFlagValue.FindStringSubmatch(msg); m != nil {
		return "invalid " + m[1] + "value " + m[2] + " for " + dashed(m[3]) + ": " + m[4]
	}
	return msg
}

// invalidFlagValue matches the flag package's `invalid value "x" for flag
// -name: reason` and `invalid boolean value "x" for -name: reason`.
var invalidFlagValue = regexp.MustCompile(`^invalid (boolean )?value (".*") for (?:flag )?-([^ :]+): (.*)$`)

// isTerminal reports whether f (an *os.File, or any writer) is a terminal.
func isTerminal(f any) bool {
	file, ok := f.(*os.File)
	return ok && file != nil && term.IsTerminal(file.Fd())
}

// dashed writes a flag name as the help does: -X for one letter, --name
// otherwise (the flag package takes either).
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

func runHelp(_ context.Context, args []string, _ *os.File, stdout, stderr io.Writer) int {
	positional, err := parseInterspersed(noFlags("help")(), args)
	if err != nil {
		return parseFailed("help", err, stdout, stderr)
	}
	switch len(positional) {
	case 0:
		c, _ := lookupCommand("")
		return printHelp(stdout, stderr, c)
	case 1:
		c, ok := lookupCommand(positional[0])
		if !ok || positional[0] == "" {
			// The inspector's help lists the commands there are.
			return usageFailed("", fmt.Errorf("no command %q", positional[0]), stderr)
		}
		return printHelp(stdout, stderr, c)
	}
	return usageFailed("help", errors.New("help takes one COMMAND"), stderr)
}

func runSamples(_ context.Context, args []string, _ *os.File, stdout, stderr io.Writer) int {
	positional, err := parseInterspersed(noFlags("samples")(), args)
	if err != nil {
		return parseFailed("samples", err, stdout, stderr)
	}
	if len(positional) > 0 {
		return usageFailed("samples", fmt.Errorf("samples takes no arguments (got %s)", strings.Join(positional, " ")), stderr)
	}
	return listSamples(stdout)
}
