package cli

import (
	"context"
	"flag"
	"io"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
)

// helpCase is a command and the flags its help must describe.
type helpCase struct {
	cmd   string // "" is the bare inspector
	flags []string
}

// helpCases lists every command with the flags its help must describe.
// The lists are written out here on purpose: TestHelpListsEveryDefinedFlag
// ties the help to the flag sets, this table ties both to what users were
// promised.
var helpCases = []helpCase{
	{"", []string{"--explain", "--format", "--sample", "--save", "--save-timed", "--keep-secrets", "--session", "--save-har", "--diff", "--strict", "--ignore"}},
	{"timeline", []string{"--explain", "--format", "--sample", "--save", "--save-timed", "--keep-secrets", "--session", "--save-har"}},
	{"calls", []string{"--json", "--format", "--sample", "--save", "--save-timed", "--keep-secrets", "--session", "--save-har"}},
	{"events", []string{"--explain", "--format", "--sample", "--save", "--save-timed", "--keep-secrets", "--session", "--save-har"}},
	{"check", []string{"--json", "--fail-on", "--profile", "--allow-outcome", "--format", "--sample", "--save", "--save-timed", "--keep-secrets", "--session", "--save-har"}},
	{"diff", []string{"--json", "--strict", "--ignore", "--format"}},
	{"rules", []string{"--json"}},
	{"samples", nil},
	{"proxy", []string{"--upstream", "--listen", "--record", "--save-har", "--no-tui", "--log", "--keep-secrets", "--timeout", "--idle-timeout"}},
	{"replay", []string{"--speed", "--listen", "--sample", "--keep-secrets", "--inject", "--fault", "--scenario", "--seed"}},
	{"inject", []string{"--list", "--json", "-o", "--report", "--seed", "--force"}},
	{"request", []string{"-X", "-H", "-d", "--json", "--timeout", "--save", "--save-timed", "--keep-secrets", "--format", "--allow-outcome"}},
	{"completion", nil},
	{"help", nil},
	{"version", nil},
}

// TestEveryCommandHelp runs each command with -h, -help and --help, after
// other arguments too, and as `streamtap help CMD`: exit 0, the usage on
// stdout naming every flag, nothing on stderr.
func TestEveryCommandHelp(t *testing.T) {
	t.Parallel()
	for _, tc := range helpCases {
		t.Run("streamtap "+tc.cmd, func(t *testing.T) {
			var base []string
			if tc.cmd != "" {
				base = []string{tc.cmd}
			}
			variants := [][]string{
				append(append([]string{}, base...), "-h"),
				append(append([]string{}, base...), "-help"),
				append(append([]string{}, base...), "--help"),
				append(append([]string{}, base...), "x.sse", "--help"),
			}
			if tc.cmd != "" {
				variants = append(variants, []string{"help", tc.cmd})
			} else {
				variants = append(variants, []string{"help"})
			}
			var first string
			for _, args := range variants {
				code, out, errs := runCLI(t, nil, args...)
				if code != 0 || errs != "" || strings.TrimSpace(out) == "" {
					t.Fatalf("streamtap %q = %d, stderr %q, stdout %q; want 0, a usage on stdout, nothing on stderr", args, code, errs, clip(out))
				}
				if first == "" {
					first = out
				} else if out != first {
					t.Errorf("streamtap %q printed a different help than streamtap %q", args, variants[0])
				}
				wantUsage := "usage: streamtap"
				if tc.cmd != "" {
					wantUsage += " " + tc.cmd
				}
				if !strings.Contains(out, wantUsage) {
					t.Errorf("streamtap %q help lacks %q:\n%s", args, wantUsage, out)
				}
				for _, f := range tc.flags {
					if !helpMentions(out, f) {
						t.Errorf("streamtap %q help does not describe %s:\n%s", args, f, out)
					}
				}
			}
		})
	}
}

// helpMentions reports whether help has a line that starts (after
// indentation) with the flag.
func helpMentions(help, flagName string) bool {
	for line := range strings.SplitSeq(help, "\n") {
		l := strings.TrimSpace(line)
		if l == flagName || strings.HasPrefix(l, flagName+" ") || strings.HasPrefix(l, flagName+"=") {
			return true
		}
	}
	return false
}

// TestBadFlagNamesItAndTheHelp: an unknown flag is one line on stderr that
// names the flag and the command's help, exit 2, nothing on stdout.
func TestBadFlagNamesItAndTheHelp(t *testing.T) {
	t.Parallel()
	for _, tc := range helpCases {
		if tc.cmd == "help" {
			continue // help takes a command name, not flags
		}
		var args []string
		if tc.cmd != "" {
			args = []string{tc.cmd}
		}
		args = append(args, "--frobnicate")
		code, out, errs := runCLI(t, nil, args...)
		wantHelp := "run 'streamtap --help'"
		if tc.cmd != "" {
			wantHelp = "run 'streamtap " + tc.cmd + " --help'"
		}
		if code != 2 || out != "" || !strings.Contains(errs, "--frobnicate") || !strings.Contains(errs, wantHelp) ||
			strings.Count(errs, "\n") != 1 {
			t.Errorf("streamtap %q = %d, stdout %q, stderr %q; want 2 and one line naming --frobnicate and %q", args, code, out, errs, wantHelp)
		}
	}
}

func TestHelpOfUnknownCommand(t *testing.T) {
	t.Parallel()
	code, out, errs := runCLI(t, nil, "help", "frobnicate")
	if code != 2 || out != "" || !strings.Contains(errs, "frobnicate") {
		t.Errorf("streamtap help frobnicate = %d, %q, %q; want 2 and a message naming it", code, out, errs)
	}
}

// TestFlagsBeforeTheCommand: flags given before the command work as if
// given after it.
func TestFlagsBeforeTheCommand(t *testing.T) {
	t.Parallel()
	path := writeTemp(t, "chat.sse", chatStream)
	tests := []struct {
		before, after []string
	}{
		{[]string{"--json", "calls", path}, []string{"calls", "--json", path}},
		{[]string{"--sample", "chat-single-call", "calls"}, []string{"calls", "--sample", "chat-single-call"}},
		{[]string{"--sample=chat-single-call", "--json", "calls"}, []string{"calls", "--json", "--sample", "chat-single-call"}},
		{[]string{"--format", "sse", "check", path}, []string{"check", "--format", "sse", path}},
		{[]string{"--json", "check", "--fail-on", "warning", path}, []string{"check", "--json", "--fail-on", "warning", path}},
		{[]string{"--sample", "chat-single-call", "events"}, []string{"events", "--sample", "chat-single-call"}},
		{[]string{"--json", "rules"}, []string{"rules", "--json"}},
	}
	for _, tt := range tests {
		code, out, errs := runCLI(t, nil, tt.before...)
		wantCode, wantOut, wantErrs := runCLI(t, nil, tt.after...)
		if wantCode != 0 || wantOut == "" {
			t.Fatalf("streamtap %q = %d, %q; the reference run should succeed", tt.after, wantCode, wantErrs)
		}
		if code != wantCode || out != wantOut || errs != wantErrs {
			t.Errorf("streamtap %q = %d, %q, stderr %q; want what streamtap %q gives: %d, %q, %q",
				tt.before, code, clip(out), errs, tt.after, wantCode, clip(wantOut), wantErrs)
		}
	}

	// From stdin: streamtap --format sse check -.
	code, out, errs := runCLI(t, []byte(chatStream), "--format", "sse", "check", "-")
	if code != 0 || !strings.Contains(out, "outcome: completed") {
		t.Errorf("streamtap --format sse check - = %d, %q, %q", code, out, errs)
	}

	// A flag the command does not take is the clear error of that command.
	code, out, errs = runCLI(t, nil, "--json", "events", path)
	if code != 2 || out != "" || !strings.Contains(errs, "--json") || !strings.Contains(errs, "run 'streamtap events --help'") {
		t.Errorf("streamtap --json events = %d, %q, %q; want 2 and the events command's error about --json", code, out, errs)
	}
}

// TestSampleWithEveryCommand: --sample opens a sample with every command
// that reads a stream, and the others say why they take none.
func TestSampleWithEveryCommand(t *testing.T) {
	t.Parallel()
	const name = "chat-single-call"
	for _, cmd := range []string{"", "timeline", "calls", "events", "check", "replay"} {
		for _, args := range [][]string{
			append(cmdArgs(cmd), "--sample", name),
			append([]string{"--sample", name}, cmdArgs(cmd)...),
		} {
			code, out, errs := runCLI(t, nil, args...)
			if code != 0 || !strings.Contains(out, "get_stock_quote") && !strings.Contains(out, "outcome: completed") {
				t.Errorf("streamtap %q = %d, stderr %q, stdout %q; want the sample", args, code, errs, clip(out))
			}
		}
	}
	for _, cmd := range []string{"request", "proxy"} {
		args := []string{cmd, "--sample", name}
		code, out, errs := runCLI(t, nil, args...)
		if code != 2 || out != "" || !strings.Contains(errs, cmd+" takes no --sample") || strings.Count(errs, "\n") != 1 {
			t.Errorf("streamtap %q = %d, %q, %q; want 2 and one line saying %s takes no --sample", args, code, out, errs, cmd)
		}
	}
}

func cmdArgs(cmd string) []string {
	if cmd == "" {
		return nil
	}
	return []string{cmd}
}

// TestReplaySample: replay --sample serves and plays the sample like a file.
func TestReplaySample(t *testing.T) {
	t.Parallel()
	code, out, errs := runCLI(t, nil, "replay", "--sample", "chat-single-call")
	if code != 0 || !strings.Contains(out, "-- sample chat-single-call:") || !strings.Contains(out, "completed") {
		t.Fatalf("replay --sample = %d, %q\n%s", code, errs, out)
	}
	if code, _, errs := runCLI(t, nil, "replay", "--sample", "chat-single-call", filepath.Join(t.TempDir(), "x.sse")); code != 2 ||
		!strings.Contains(errs, "--sample") {
		t.Errorf("replay with both --sample and a FILE = %d, %q; want 2", code, errs)
	}
	if code, _, errs := runCLI(t, nil, "replay", "--sample", "no-such-sample"); code != 2 || !strings.Contains(errs, "no-such-sample") {
		t.Errorf("replay --sample no-such-sample = %d, %q; want 2 naming it", code, errs)
	}
}

// TestVersion: --version and version print the same one line.
func TestVersion(t *testing.T) {
	t.Parallel()
	code, out, errs := runCLI(t, nil, "--version")
	if code != 0 || errs != "" || !strings.HasPrefix(out, "streamtap ") || strings.Count(out, "\n") != 1 || !strings.Contains(out, "go1.") {
		t.Fatalf("streamtap --version = %d, %q, %q; want one line naming streamtap and the Go version", code, out, errs)
	}
	for _, args := range [][]string{{"version"}, {"-version"}} {
		if code2, out2, _ := runCLI(t, nil, args...); code2 != 0 || out2 != out {
			t.Errorf("streamtap %q = %d, %q; want %q", args, code2, out2, out)
		}
	}
}

// TestHelpListsEveryDefinedFlag renders each command's help and wants a
// line for every flag its flag set defines, with the flag's argument name
// and default when it has them: the help is built from the flag sets, so
// a flag added later shows up without anyone editing the help.
func TestHelpListsEveryDefinedFlag(t *testing.T) {
	t.Parallel()
	for _, c := range commands() {
		var b strings.Builder
		writeHelp(&b, c)
		help := b.String()
		n := 0
		c.flags().VisitAll(func(f *flag.Flag) {
			n++
			if !helpMentions(help, dashed(f.Name)) {
				t.Errorf("help of %q lacks %s:\n%s", c.name, dashed(f.Name), help)
			}
			if _, usage := flag.UnquoteUsage(f); usage == "" {
				t.Errorf("%q flag %s has no meaning to show", c.name, dashed(f.Name))
			}
			if arg, _ := flag.UnquoteUsage(f); !isBoolFlag(f) && !strings.Contains(help, dashed(f.Name)+" "+arg) {
				t.Errorf("help of %q does not show the argument %s of %s", c.name, arg, dashed(f.Name))
			}
			if d := f.DefValue; !isBoolFlag(f) && d != "" && d != "0" && d != "0s" && !strings.Contains(help, "(default "+d+")") {
				t.Errorf("help of %q does not show the default %s of %s", c.name, d, dashed(f.Name))
			}
		})
		if c.name != "" && !strings.Contains(commandList(t), "  "+c.name+" ") {
			t.Errorf("the inspector's help does not list the command %q", c.name)
		}
		t.Logf("%q: %d flags", c.name, n)
	}
}

// TestEveryCommandHasAHelpCase: a command added to commands() gets a row
// in helpCases, the flags its help promises users, so that
// TestEveryCommandHelp runs its help every way it can be asked for.
func TestEveryCommandHasAHelpCase(t *testing.T) {
	t.Parallel()
	for _, c := range commands() {
		if !slices.ContainsFunc(helpCases, func(h helpCase) bool { return h.cmd == c.name }) {
			t.Errorf("command %q has no row in helpCases", c.name)
		}
	}
}

func commandList(t *testing.T) string {
	t.Helper()
	c, _ := lookupCommand("")
	var b strings.Builder
	writeHelp(&b, c)
	return b.String()
}

// TestFlagKindsAgree: a flag name takes a value in every command that
// defines it, or in none; splitCommand relies on it to skip the flags
// before the command.
func TestFlagKindsAgree(t *testing.T) {
	t.Parallel()
	kind := map[string]bool{}
	owner := map[string]string{}
	for _, c := range commands() {
		c.flags().VisitAll(func(f *flag.Flag) {
			if prev, ok := kind[f.Name]; ok && prev != isBoolFlag(f) {
				t.Errorf("flag %s is boolean in %q but not in %q (or the reverse)", f.Name, owner[f.Name], c.name)
			}
			kind[f.Name], owner[f.Name] = isBoolFlag(f), c.name
		})
	}
}

func TestSplitCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args     []string
		wantName string
		wantRest []string
	}{
		{[]string{"calls", "x.sse"}, "calls", []string{"x.sse"}},
		{[]string{"--json", "calls", "x.sse"}, "calls", []string{"--json", "x.sse"}},
		{[]string{"--sample", "calls", "events"}, "events", []string{"--sample", "calls"}}, // a sample named calls
		{[]string{"--sample=x", "check"}, "check", []string{"--sample=x"}},
		{[]string{"x.sse", "calls"}, "", []string{"x.sse", "calls"}},
		{[]string{"-", "calls"}, "", []string{"-", "calls"}},
		{[]string{"--", "calls"}, "", []string{"--", "calls"}},
		{[]string{"--version"}, "version", []string{}},
		{[]string{"--keep-secrets", "-version"}, "version", []string{"--keep-secrets"}},
		{[]string{}, "", []string{}},
		{[]string{""}, "", []string{""}},
	}
	for _, tt := range tests {
		name, rest := splitCommand(tt.args)
		if name != tt.wantName || !slices.Equal(rest, tt.wantRest) {
			t.Errorf("splitCommand(%q) = %q, %q; want %q, %q", tt.args, name, rest, tt.wantName, tt.wantRest)
		}
	}
}

func TestParseInterspersedStopsAtDoubleDash(t *testing.T) {
	t.Parallel()
	fs := newFlagSet("t")
	j := fs.Bool("json", false, "")
	got, err := parseInterspersed(fs, []string{"a", "--json", "--", "-", "--not-a-flag", "-x"})
	if err != nil || !*j || !slices.Equal(got, []string{"a", "-", "--not-a-flag", "-x"}) {
		t.Errorf("parseInterspersed = %q, %v, json %v; want [a - --not-a-flag -x], nil, true", got, err, *j)
	}
}

func TestFlagError(t *testing.T) {
	t.Parallel()
	fs := newFlagSet("t")
	fs.Float64("speed", 1, "")
	fs.Bool("json", false, "")
	fs.String("X", "", "")
	var allow outcomeSet
	fs.Var(&allow, "allow-outcome", "")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--bogus"}, "unknown flag --bogus"},
		{[]string{"-b"}, "unknown flag -b"},
		{[]string{"--speed"}, "--speed needs an argument"},
		{[]string{"--speed", "fast"}, `invalid value "fast" for --speed: parse error`},
		{[]string{"--json=maybe"}, `invalid boolean value "maybe" for --json: parse error`},
		{[]string{"--allow-outcome", "gone"}, `invalid value "gone" for --allow-outcome: "gone" is not an outcome (want completed, incomplete, blocked, failed, error, truncated, empty, closed, not-a-stream)`},
	}
	for _, tt := range tests {
		err := fs.Parse(tt.args)
		if err == nil || flagError(err) != tt.want {
			t.Errorf("flagError(Parse(%q)) = %q; want %q", tt.args, flagError(err), tt.want)
		}
	}
}

// TestVersionString covers builds with and without VCS information.
func TestVersionString(t *testing.T) {
	t.Parallel()
	vcs := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i+1 < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	tests := []struct {
		name string
		bi   *debug.BuildInfo
		ok   bool
		want string
	}{
		{"release", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"},
			Settings: vcs("vcs.revision", "0123456789abcdef0123", "vcs.time", "2026-11-21T20:01:05Z", "vcs.modified", "false")},
			true, "streamtap v1.2.3 (rev 0123456789ab, 2026-11-21T20:01:05Z, go1.26.8)"},
		{"dirty checkout", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"},
			Settings: vcs("vcs.revision", "0123456789abcdef0123", "vcs.time", "2026-11-21T20:01:05Z", "vcs.modified", "true")},
			true, "streamtap (devel) (rev 0123456789ab-dirty, 2026-11-21T20:01:05Z, go1.26.8)"},
		{"no VCS", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}},
			true, "streamtap (devel) (no VCS revision, go1.26.8)"},
		{"no version at all", &debug.BuildInfo{GoVersion: "go1.26.8"}, true, "streamtap (devel) (no VCS revision, go1.26.8)"},
		{"no build info", nil, false, "streamtap (unknown version: built without module information)"},
	}
	for _, tt := range tests {
		if got := versionString(tt.bi, tt.ok); got != tt.want {
			t.Errorf("%s: versionString = %q; want %q", tt.name, got, tt.want)
		}
	}
}

// TestInterruptedReadExits130: a read that ends because of ctrl+c reports
// "interrupted" with the shell's exit status for SIGINT, not a read error.
func TestInterruptedReadExits130(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	err := &capture.ReadError{Source: "stdin", Offset: 3, Err: context.Canceled}
	if code := exit(readError(err), io.Discard, &b); code != statusInterrupted || b.String() != "streamtap: interrupted\n" {
		t.Errorf("exit(readError(canceled)) = %d, %q; want %d, interrupted", code, b.String(), statusInterrupted)
	}
}
