package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/model/streamdiff"
	"github.com/streamtap/streamtap/samples"
	"github.com/streamtap/streamtap/suite"
)

const completionAbout = `Prints a script that completes streamtap's commands, flags, flag values
(sample names, rule ids, formats, outcomes) and files in SHELL: bash, zsh
or fish. The script asks the streamtap on your PATH what to complete, so
it knows every command and flag of that binary and never goes stale.

  bash: source <(streamtap completion bash)          (in ~/.bashrc)
  zsh:  source <(streamtap completion zsh)           (in ~/.zshrc, after compinit)
  fish: streamtap completion fish | source           (in ~/.config/fish/config.fish)
`

// completeCommand is the hidden command the scripts run: `streamtap
// __complete WORD... CURRENT` prints the candidates for CURRENT, one a
// line, then at most one directive line (":files" or ":dirs": the shell
// adds its own file names). It is not in the command table, so that help
// does not list it.
const completeCommand = "__complete"

// completionShells are the shells completion writes a script for.
var completionShells = []string{"bash", "zsh", "fish"}

// completionCommand prints a shell's completion script.
func completionCommand() command {
	return command{name: "completion", args: strings.Join(completionShells, "|"),
		summary: "print a completion script for bash, zsh or fish", about: completionAbout,
		flags: noFlags("completion"), run: runCompletion,
		noSample: "completion takes no --sample: it prints a shell script"}
}

func runCompletion(_ context.Context, args []string, _ *os.File, stdout, _ io.Writer) error {
	positional, err := parseInterspersed(noFlags("completion")(), args)
	if err != nil {
		return usageError("completion", err)
	}
	if len(positional) != 1 {
		return usageError("completion", errors.New("completion takes one SHELL: bash, zsh or fish"))
	}
	script, ok := map[string]string{"bash": bashCompletion, "zsh": zshCompletion, "fish": fishCompletion}[positional[0]]
	if !ok {
		msg := fmt.Sprintf("no completion for %q: want bash, zsh or fish", positional[0])
		if near := nearest(positional[0], completionShells); len(near) > 0 {
			msg += " (did you mean " + orList(near) + "?)"
		}
		return usageError("completion", errors.New(msg))
	}
	_, err = io.WriteString(stdout, script)
	return err
}

// runComplete prints the candidates for the last of words, and the
// directive, as completeCommand says.
func runComplete(words []string, stdout io.Writer) int {
	cands, directive := complete(words)
	var b strings.Builder
	for _, c := range cands {
		b.WriteString(c + "\n")
	}
	if directive != "" {
		b.WriteString(":" + directive + "\n")
	}
	if _, err := io.WriteString(stdout, b.String()); err != nil {
		return statusError
	}
	return 0
}

// complete returns what may follow words[:len-1] in the place of the
// last word (the partial word under the cursor, "" for a new one): the
// candidates that start with it, and "files" or "dirs" when the shell
// should add file names. The commands, their flags and the kind of each
// flag's value come from the command table and the flag sets.
func complete(words []string) ([]string, string) {
	if len(words) == 0 {
		words = []string{""}
	}
	cur, before := words[len(words)-1], words[:len(words)-1]
	name, rest := splitCommand(slices.Clone(before))
	c, _ := lookupCommand(name)
	fs := c.flags()

	// --flag=VALUE, or a flag's value in the next word.
	if strings.HasPrefix(cur, "-") && strings.Contains(cur, "=") {
		flagName, value, _ := strings.Cut(cur, "=")
		if f := fs.Lookup(strings.TrimLeft(flagName, "-")); f != nil && !isBoolFlag(f) {
			cands, directive := flagValues(f, value)
			for i := range cands {
				cands[i] = flagName + "=" + cands[i]
			}
			return cands, directive
		}
		return nil, ""
	}
	if n := len(before); n > 0 && strings.HasPrefix(before[n-1], "-") && !strings.Contains(before[n-1], "=") && before[n-1] != "-" {
		if f := fs.Lookup(strings.TrimLeft(before[n-1], "-")); f != nil && !isBoolFlag(f) {
			return flagValues(f, cur)
		}
	}

	if strings.HasPrefix(cur, "-") {
		var cands []string
		fs.VisitAll(func(f *flag.Flag) { cands = append(cands, dashed(f.Name)) })
		if name == "" {
			cands = append(cands, "--help", "--version")
		} else {
			cands = append(cands, "--help")
		}
		return withPrefix(cands, cur), ""
	}

	// An operand.
	if name == "" && !hasOperand(rest) {
		// The command, or the inspector's FILE.
		return append(withPrefix(commandNames(), cur), sampleOperands(cur)...), "files"
	}
	switch {
	case c.args == "[COMMAND]":
		return withPrefix(commandNames(), cur), ""
	case c.name == "completion":
		return withPrefix(completionShells, cur), ""
	case strings.Contains(c.args, "FILE") || strings.HasPrefix(c.args, "A B"):
		return sampleOperands(cur), "files"
	}
	return nil, ""
}

// hasOperand reports whether args (without the command) hold an operand:
// a word that is neither a flag nor a flag's value.
func hasOperand(args []string) bool {
	takesValue := valueFlags()
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-" || !strings.HasPrefix(a, "-") {
			return true
		}
		if name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "="); !hasValue && takesValue[name] {
			i++
		}
	}
	return false
}

// sampleOperands offers sample:NAME, which every command reads where it
// reads a file, once the word starts like it: a bare TAB offers files only.
func sampleOperands(cur string) []string {
	if cur == "" || !strings.HasPrefix(samplePrefix, cur) && !strings.HasPrefix(cur, samplePrefix) {
		return nil
	}
	var out []string
	for _, s := range samples.List() {
		out = append(out, samplePrefix+s.Name)
	}
	return withPrefix(out, cur)
}

// flagValues completes the value of flag f: by the flag's name where its
// values are a list the program knows, else by the kind its help names
// (`FILE`, `DIR`, …). valueKinds lists every kind, so a new flag must say
// how its value completes (a test holds every flag to it).
func flagValues(f *flag.Flag, cur string) ([]string, string) {
	kind, _ := flag.UnquoteUsage(f)
	if list, ok := namedValues[f.Name]; ok {
		return withPrefix(list(), cur), ""
	}
	complete, ok := valueKinds[kind]
	if !ok {
		return nil, ""
	}
	return complete(cur)
}

// namedValues are the flags whose values are a list, by flag name.
var namedValues = map[string]func() []string{
	"sample":        sampleNames,
	"format":        formatNames,
	"output-format": func() []string { return slices.Clone(suite.Formats) },
	"fail-on":       severityNames,
	"profile":       func() []string { return []string{checks.Strict.String(), checks.Tolerant.String()} },
	"allow-outcome": model.Outcomes,
	"ignore":        ignoreNames,
}

// valueKinds completes a flag's value by the kind its help names: files,
// directories, a rule list, or nothing the program can know (a duration,
// an address, a URL).
var valueKinds = map[string]func(cur string) ([]string, string){
	"FILE":  func(string) ([]string, string) { return nil, "files" },
	"DIR":   func(string) ([]string, string) { return nil, "dirs" },
	"B":     func(cur string) ([]string, string) { return sampleOperands(cur), "files" },
	"RULES": ruleValues,
	"RULE=LEVEL": func(cur string) ([]string, string) {
		if rule, level, ok := strings.Cut(cur, "="); ok {
			var out []string
			for _, l := range append(severityNames(), "off") {
				out = append(out, rule+"="+l)
			}
			return withPrefix(out, rule+"="+level), ""
		}
		rules, _ := ruleValues(cur)
		for i := range rules {
			rules[i] += "="
		}
		return rules, ""
	},
	"METHOD": func(cur string) ([]string, string) {
		return withPrefix([]string{"GET", "POST", "PUT", "PATCH", "DELETE"}, cur), ""
	},
	"BODY":          func(cur string) ([]string, string) { return nil, "" },
	"'Name: value'": func(cur string) ([]string, string) { return nil, "" },
	"DURATION":      func(cur string) ([]string, string) { return nil, "" },
	"N":             func(cur string) ([]string, string) { return nil, "" },
	"ADDR":          func(cur string) ([]string, string) { return nil, "" },
	"URL":           func(cur string) ([]string, string) { return nil, "" },
	"DEFECT,…":      defectValues,
	"FAULT,…":       faultValues,
}

// ruleValues completes one rule of a comma-separated list: the rule ids
// and each dialect's PREFIX/*, after the rules already typed.
func ruleValues(cur string) ([]string, string) {
	done := ""
	if i := strings.LastIndexByte(cur, ','); i >= 0 {
		done, cur = cur[:i+1], cur[i+1:]
	}
	var ids []string
	seen := map[string]bool{}
	for _, r := range checks.Rules() {
		prefix, _, _ := strings.Cut(r.ID, "/")
		if !seen[prefix] {
			seen[prefix] = true
			ids = append(ids, prefix+"/*")
		}
		ids = append(ids, r.ID)
	}
	out := withPrefix(ids, cur)
	for i := range out {
		out[i] = done + out[i]
	}
	return out, ""
}

func sampleNames() []string {
	var out []string
	for _, s := range samples.List() {
		out = append(out, s.Name)
	}
	return out
}

// formatNames are the input formats --format takes, as capture names them.
func formatNames() []string {
	var out []string
	for f := capture.Format(0); f.String() != "unknown"; f++ {
		out = append(out, f.String())
	}
	return out
}

// severityNames are the levels a finding can have.
func severityNames() []string {
	var out []string
	for _, s := range []checks.Severity{checks.Error, checks.Warning, checks.Info} {
		out = append(out, s.String())
	}
	return out
}

// ignoreNames are what diff --ignore takes that the program knows: the
// names ignored by default and the kinds of difference.
func ignoreNames() []string {
	out := streamdiff.DefaultIgnore()
	for k := streamdiff.Kind(0); k.String() != "unknown"; k++ {
		if !slices.Contains(out, k.String()) {
			out = append(out, k.String())
		}
	}
	return out
}

// withPrefix is the words that start with prefix, sorted.
func withPrefix(words []string, prefix string) []string {
	var out []string
	for _, w := range words {
		if strings.HasPrefix(w, prefix) {
			out = append(out, w)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
