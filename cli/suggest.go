package cli

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/streamtap/streamtap/samples"
)

// nearest returns the names a mistyped word most likely meant, best
// first, at most three: those at the smallest edit distance within what a
// typo makes (one edit in a word of up to four letters, two up to eight,
// three beyond; a swap of two neighbours is one), or else those the word
// begins or is part of (`time` for timeline, `single-call` for three
// samples). None when nothing is near.
func nearest(word string, names []string) []string {
	word = strings.ToLower(word)
	limit := 1
	switch n := len([]rune(word)); {
	case n > 8:
		limit = 3
	case n > 4:
		limit = 2
	}
	best, out := limit+1, []string(nil)
	for _, name := range names {
		switch d := editDistance(word, strings.ToLower(name)); {
		case d < best:
			best, out = d, []string{name}
		case d == best:
			out = append(out, name)
		}
	}
	if len(out) == 0 && len(word) >= 3 {
		for _, name := range names {
			if strings.Contains(strings.ToLower(name), word) {
				out = append(out, name)
			}
		}
	}
	return out[:min(len(out), 3)]
}

// editDistance is the optimal-string-alignment distance between a and b,
// in runes: insertions, deletions, substitutions and swaps of two
// neighbours each cost one (`chekc` is one edit from `check`).
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Three rows of the table: two back (for swaps), the last, this one.
	prev2, prev, cur := make([]int, len(rb)+1), make([]int, len(rb)+1), make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// orList joins quoted suggestions: "'a'", "'a' or 'b'", "'a', 'b' or 'c'".
func orList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = "'" + s + "'"
	}
	if len(q) <= 1 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// commandNames lists the commands by name (not the bare inspector).
func commandNames() []string {
	var out []string
	for _, c := range commands() {
		if c.name != "" {
			out = append(out, c.name)
		}
	}
	return out
}

// mistypedCommand returns the error for a command line whose first
// operand looks like a mistyped command (`streamtap chek`): no file of
// that name exists and a command is near it. It returns nil for anything
// else, which the inspector then reads as its FILE (and says so when it
// cannot open it).
func mistypedCommand(args []string) error {
	word := firstOperand(args)
	if word == "" || word == "-" || strings.ContainsAny(word, `/\.:`) {
		return nil
	}
	if _, err := os.Lstat(word); !errors.Is(err, fs.ErrNotExist) {
		return nil // a file (or one we cannot look at): the inspector's input
	}
	near := nearest(word, commandNames())
	if len(near) == 0 {
		return nil
	}
	for i, n := range near {
		near[i] = "streamtap " + n
	}
	return &exitError{status: statusError, err: fmt.Errorf("%s is neither a command nor a file: did you mean %s? ('streamtap help' lists the commands)", word, orList(near))}
}

// firstOperand is the first argument that is not a flag or a flag's
// value, where splitCommand looks for the command; "" when none.
func firstOperand(args []string) string {
	takesValue := valueFlags()
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if i+1 < len(args) {
				return args[i+1]
			}
			return ""
		case a == "-" || !strings.HasPrefix(a, "-"):
			return a
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !hasValue && takesValue[name] {
			i++
		}
	}
	return ""
}

// flagSuggestion says what an unknown flag --name of command c most
// likely meant: a command of that name (`--proxy` for `streamtap
// proxy`), or the nearest of c's flags; "" when nothing is near.
func flagSuggestion(c command, name string) string {
	if other, ok := lookupCommand(name); ok && other.name != "" {
		return fmt.Sprintf("did you mean the command 'streamtap %s'?", name)
	}
	var names []string
	c.flags().VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	near := nearest(name, names)
	if len(near) == 0 {
		return ""
	}
	for i, n := range near {
		near[i] = dashed(n)
	}
	return "did you mean " + strings.Join(near, " or ") + "?"
}

// unknownSample is the error for a sample name that is no sample: it
// names the nearest samples and the command that lists them all. It
// wraps fs.ErrNotExist, as samples.Open's error does.
type unknownSample struct {
	name string
	near []string
}

func (e *unknownSample) Error() string {
	msg := fmt.Sprintf("no sample %q", e.name)
	if len(e.near) > 0 {
		msg += ": did you mean " + orList(e.near) + "?"
	}
	return msg + " ('streamtap samples' lists them)"
}

func (e *unknownSample) Unwrap() error { return fs.ErrNotExist }

// openSample returns the bytes of the named sample, or an error that
// names the samples nearest a name that is none.
func openSample(name string) ([]byte, error) {
	data, err := samples.Open(name)
	if !errors.Is(err, fs.ErrNotExist) {
		return data, err
	}
	var names []string
	for _, s := range samples.List() {
		names = append(names, s.Name)
	}
	base := strings.TrimSuffix(strings.TrimSuffix(name, ".sse"), ".eventstream")
	return nil, &unknownSample{name: name, near: nearest(base, names)}
}
