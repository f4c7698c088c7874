package cli

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// helpAbout is the command's help under its usage line; the flags are
// listed from its flag set.
const helpAbout = `Prints the usage of streamtap, or of COMMAND with every flag it takes.
`

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

// helpCommand prints the usage, or a command's.
func helpCommand() command {
	return command{name: "help", args: "[COMMAND]", summary: "this usage, or a command's", about: helpAbout, flags: noFlags("help"), run: runHelp}
}

func runHelp(_ context.Context, args []string, _ *os.File, stdout, _ io.Writer) error {
	positional, err := parseInterspersed(noFlags("help")(), args)
	if err != nil {
		return usageError("help", err)
	}
	switch len(positional) {
	case 0:
		c, _ := lookupCommand("")
		return writeHelp(stdout, c)
	case 1:
		c, ok := lookupCommand(positional[0])
		if !ok || positional[0] == "" {
			// The inspector's help lists the commands there are.
			msg := fmt.Sprintf("no command %q", positional[0])
			if near := nearest(positional[0], commandNames()); len(near) > 0 {
				msg += " (did you mean " + orList(near) + "?)"
			}
			return usageError("", errors.New(msg))
		}
		return writeHelp(stdout, c)
	}
	return usageError("help", errors.New("help takes one COMMAND"))
}
