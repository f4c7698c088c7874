package cli

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/samples"
)

// asMain makes this test binary streamtap itself when a test runs it
// with STREAMTAP_TEST_AS_MAIN=1 (the completion scripts run `streamtap`
// from PATH): it runs Main before any test starts, and exits.
func init() {
	if os.Getenv("STREAMTAP_TEST_AS_MAIN") == "1" {
		os.Exit(Main(os.Args[1:]))
	}
}

// completionCase is a command line up to the cursor and the words its
// completion must give: exactly want, and the directive.
type completionCase struct {
	line      string
	want      []string
	directive string
}

// completionCases are what TestComplete and the shells' tests ask.
func completionCases() []completionCase {
	var sampleWords, sampleOps []string
	for _, s := range samples.List() {
		sampleWords = append(sampleWords, s.Name)
		if strings.HasPrefix(s.Name, "responses-") {
			sampleOps = append(sampleOps, "sample:"+s.Name)
		}
	}
	return []completionCase{
		{"streamtap ch", []string{"check"}, "files"},
		{"streamtap check --out", []string{"--output-format"}, ""},
		{"streamtap --sample ", sampleWords, ""},
		{"streamtap --sample gem", []string{"gemini-call"}, ""},
		{"streamtap diff sample:responses-", sampleOps, "files"},
		{"streamtap check --output-format ", []string{"github", "json", "junit", "sarif", "text"}, ""},
		{"streamtap check --fail-on=w", []string{"--fail-on=warning"}, ""},
		{"streamtap check --disable gemini/", []string{"gemini/*", "gemini/args-not-object", "gemini/finish-reason-nonstandard",
			"gemini/partial-args-no-end-marker", "gemini/partial-args-unterminated"}, ""},
		{"streamtap check --severity chat/identity-changed=", []string{"chat/identity-changed=error", "chat/identity-changed=info",
			"chat/identity-changed=off", "chat/identity-changed=warning"}, ""},
		{"streamtap help ti", []string{"timeline"}, ""},
		{"streamtap completion ", []string{"bash", "fish", "zsh"}, ""},
		{"streamtap proxy --record ", nil, "dirs"},
		{"streamtap check --request ", nil, "files"},
		{"streamtap proxy --listen ", nil, ""},
		{"streamtap --json calls --se", []string{"--session"}, ""},
		{"streamtap rules responses/item-id", []string{"responses/item-id-changed", "responses/item-id-missing"}, ""},
		{"streamtap rules --json chat/identity-changed gemini/", []string{"gemini/*", "gemini/args-not-object", "gemini/finish-reason-nonstandard",
			"gemini/partial-args-no-end-marker", "gemini/partial-args-unterminated"}, ""},
		{"streamtap inject cr", []string{"cr", "crc", "created-switch", "crlf"}, ""},
		{"streamtap inject crlf sample:responses-", sampleOps, "files"},
	}
}

// lineWords splits a command line as complete takes it: the words after
// the program's name, the last one the word under the cursor ("" after a
// blank).
func lineWords(line string) []string {
	words := strings.Fields(line)[1:]
	if strings.HasSuffix(line, " ") {
		words = append(words, "")
	}
	return words
}

// TestComplete asks complete what follows each command line: the
// commands, a command's flags, a flag's values (samples, rule ids, output
// formats, levels), sample:NAME where a file goes, and the shell's files.
func TestComplete(t *testing.T) {
	t.Parallel()
	for _, c := range completionCases() {
		got, directive := complete(lineWords(c.line))
		if !slices.Equal(got, c.want) || directive != c.directive {
			t.Errorf("complete(%q) = %q, %q; want %q, %q", c.line, got, directive, c.want, c.directive)
		}
	}
}

// TestCompletionKnowsEveryFlag: every flag that takes a value, in every
// command, says how its value completes (by its name, or by the kind its
// help names), so that a new flag cannot leave completion behind, and
// every command offers its flags.
func TestCompletionKnowsEveryFlag(t *testing.T) {
	t.Parallel()
	for _, c := range commands() {
		var flags []string
		c.flags().VisitAll(func(f *flag.Flag) {
			flags = append(flags, dashed(f.Name))
			if isBoolFlag(f) {
				return
			}
			kind, _ := flag.UnquoteUsage(f)
			if _, ok := namedValues[f.Name]; !ok {
				if _, ok := valueKinds[kind]; !ok {
					t.Errorf("streamtap %s %s `%s`: completion does not know how to complete it (namedValues or valueKinds)", c.name, dashed(f.Name), kind)
				}
			}
		})
		words := []string{"-"}
		if c.name != "" {
			words = []string{c.name, "-"}
		}
		got, _ := complete(words)
		for _, f := range flags {
			if !slices.Contains(got, f) {
				t.Errorf("streamtap %s -<TAB> lacks %s: %q", c.name, f, got)
			}
		}
	}
}

// TestCompletionKnowsEveryOperand: every command's operands complete
// (rule ids, defects, a file or sample:NAME, a command, a shell), but a
// URL, which the program cannot know; `streamtap rules <TAB>` used to
// offer nothing.
func TestCompletionKnowsEveryOperand(t *testing.T) {
	t.Parallel()
	for _, c := range commands() {
		if c.args == "" || c.name == "" {
			continue
		}
		got, directive := complete([]string{c.name, ""})
		if len(got) == 0 && directive == "" && c.args != "URL" {
			t.Errorf("streamtap %s <TAB> (%s) completes nothing", c.name, c.args)
		}
	}
}

// TestCompletionCommand: the command prints each shell's script and
// refuses another shell, naming the nearest.
func TestCompletionCommand(t *testing.T) {
	t.Parallel()
	for shell, want := range map[string]string{"bash": "complete -F _streamtap streamtap", "zsh": "#compdef streamtap", "fish": "complete -c streamtap"} {
		code, out, errs := runCLI(t, nil, "completion", shell)
		if code != 0 || !strings.Contains(out, want) || !strings.Contains(out, "streamtap __complete") || errs != "" {
			t.Errorf("completion %s = %d, stderr %q; want the script with %q", shell, code, errs, want)
		}
	}
	if code, _, errs := runCLI(t, nil, "completion", "zhs"); code != 2 || !strings.Contains(errs, "did you mean 'zsh'") {
		t.Errorf("completion zhs = %d, %q; want exit 2 naming zsh", code, errs)
	}
	if code, out, _ := runCLI(t, nil, "__complete", "ch"); code != 0 || out != "check\n:files\n" {
		t.Errorf("__complete ch = %d, %q", code, out)
	}
}

// shellPath returns a PATH whose streamtap is this test binary run as
// Main (init above), in front of the usual one, and an empty working
// directory, so that the shell's own file names add nothing.
func shellPath(t *testing.T) (path, dir string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Skipf("no path to the test binary: %v", err)
	}
	bin := t.TempDir()
	shim := "#!/bin/sh\nSTREAMTAP_TEST_AS_MAIN=1 exec " + shellQuote(self) + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "streamtap"), []byte(shim), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin + string(os.PathListSeparator) + os.Getenv("PATH"), t.TempDir()
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// shellComplete runs shell with args, a program that loads the
// completion and prints the candidates for one command line, one a line
// (env adds to its environment), and returns them sorted.
func shellComplete(t *testing.T, shell string, env []string, args ...string) []string {
	t.Helper()
	if _, err := exec.LookPath(shell); err != nil {
		t.Skipf("%s is not installed", shell)
	}
	path, dir := shellPath(t)
	cmd := exec.Command(shell, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "PATH="+path, "HOME="+dir, "XDG_CONFIG_HOME="+dir, "XDG_DATA_HOME="+dir), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %q: %v\n%s", shell, args, err, out)
	}
	var words []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if l != "" {
			words = append(words, l)
		}
	}
	slices.Sort(words)
	return words
}

// shellWant is what a shell shows for a case: the candidates, and
// ":files" or ":dirs" where the test's stand-in for the shell's own file
// completion was called.
func shellWant(c completionCase) []string {
	want := slices.Clone(c.want)
	if c.directive != "" {
		want = append(want, ":"+c.directive)
	}
	slices.Sort(want)
	return want
}

// TestBashCompletion loads the bash script in bash and completes each
// case as bash does on TAB: the word under the cursor is what bash makes
// of it (after the last colon or equals sign, which COMP_WORDBREAKS splits
// at), and each reply takes that word's place on the line. compgen, bash's
// file completion, is a stand-in that says it was called.
func TestBashCompletion(t *testing.T) {
	t.Parallel()
	for _, c := range completionCases() {
		t.Run(c.line, func(t *testing.T) {
			t.Parallel()
			script := `source <(streamtap completion bash) || exit 1
compopt() { :; }
compgen() { case $1 in -d) echo :dirs ;; -f) echo :files ;; esac; }
line=` + shellQuote(c.line) + `
COMP_LINE=$line
COMP_POINT=${#line}
tok=${line##*[[:blank:]]}
if [[ $tok == *[:=] ]]; then word=${tok: -1}; elif [[ $tok == *[:=]* ]]; then word=${tok##*[:=]}; else word=$tok; fi
COMP_WORDS=(streamtap "$word")
COMP_CWORD=1
_streamtap
for r in "${COMPREPLY[@]}"; do
    case $r in
        :files|:dirs) echo "$r" ;;
        *) eval "v=$r"; echo "${tok:0:${#tok}-${#word}}$v" ;;
    esac
done
`
			if got, want := shellComplete(t, "bash", nil, "--norc", "--noprofile", "-c", script), shellWant(c); !slices.Equal(got, want) {
				t.Errorf("bash: %s<TAB> = %q; want %q", c.line, got, want)
			}
		})
	}
}

// TestZshCompletion loads the zsh script in zsh and runs its function as
// compsys would on TAB, words and CURRENT set from the line; compadd and
// _files are stand-ins that print what they are given.
func TestZshCompletion(t *testing.T) {
	t.Parallel()
	for _, c := range completionCases() {
		t.Run(c.line, func(t *testing.T) {
			t.Parallel()
			script := `compdef() { : }
compadd() { while [[ $1 != -- ]]; do shift; done; shift; print -l -- "$@" }
_files() { if [[ $1 == -/ ]]; then print :dirs; else print :files; fi }
eval "$(streamtap completion zsh)" || exit 1
words=(${(z)LINE})
[[ $LINE == *' ' ]] && words+=('')
CURRENT=${#words}
_streamtap
`
			if got, want := shellComplete(t, "zsh", []string{"LINE=" + c.line}, "-f", "-c", script), shellWant(c); !slices.Equal(got, want) {
				t.Errorf("zsh: %s<TAB> = %q; want %q", c.line, got, want)
			}
		})
	}
}

// TestFishCompletion loads the fish script in fish and asks fish what it
// completes on each line (complete -C), in an empty directory.
func TestFishCompletion(t *testing.T) {
	t.Parallel()
	for _, c := range completionCases() {
		t.Run(c.line, func(t *testing.T) {
			t.Parallel()
			// The stand-ins answer with the word they were given, as the
			// files they would list start with it (fish keeps only those).
			script := `function __fish_complete_path; echo "$argv[1]:files"; end
function __fish_complete_directories; echo "$argv[1]:dirs"; end
streamtap completion fish | source
complete -C ` + shellQuote(c.line)
			got := shellComplete(t, "fish", nil, "--no-config", "-c", script)
			for i, w := range got {
				if strings.HasSuffix(w, ":files") || strings.HasSuffix(w, ":dirs") {
					got[i] = w[strings.LastIndexByte(w, ':'):]
				}
			}
			slices.Sort(got)
			if want := shellWant(c); !slices.Equal(got, want) {
				t.Errorf("fish: %s<TAB> = %q; want %q", c.line, got, want)
			}
		})
	}
}
