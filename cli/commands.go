package cli

import (
	"context"
	"flag"
	"io"
	"os"
	"strings"

	_ "github.com/streamtap/streamtap/model/dialects" // every dialect streamtap reads
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
	// run runs the command; its error says how it ended (exit).
	run func(ctx context.Context, args []string, stdin *os.File, stdout, stderr io.Writer) error
}

// commands lists every command in the order help shows them. It is a
// function, not a variable: the commands' run functions print help, which
// reads this list, and a variable would make that an initialization cycle.
func commands() []command {
	return []command{
		inspectorCommand(),
		callsCommand(),
		eventsCommand(),
		checkCommand(),
		diffCommand(),
		rulesCommand(),
		samplesCommand(),
		timelineCommand(),
		proxyCommand(),
		replayCommand(),
		injectCommand(),
		requestCommand(),
		completionCommand(),
		versionCommand(),
		helpCommand(),
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
