package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDidYouMean: a mistyped command, sample or flag is bad usage (exit
// 2) in one line that names what was most likely meant and where the
// names are listed; a word near no name keeps the plain error.
func TestDidYouMean(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"chek"}, "streamtap: chek is neither a command nor a file: did you mean 'streamtap check'? ('streamtap help' lists the commands)\n"},
		{[]string{"chekc", "--sample", "chat-single-call"}, "did you mean 'streamtap check'?"},
		{[]string{"--json", "evnets"}, "did you mean 'streamtap events'?"},
		{[]string{"timelin"}, "did you mean 'streamtap timeline'?"},
		{[]string{"help", "chek"}, "streamtap: no command \"chek\" (did you mean 'check'?); run 'streamtap --help'\n"},
		{[]string{"--sample", "nonexistent"}, "streamtap: no sample \"nonexistent\" ('streamtap samples' lists them)\n"},
		{[]string{"calls", "--sample", "chat-singel-call"}, "streamtap: no sample \"chat-singel-call\": did you mean 'chat-single-call'? ('streamtap samples' lists them)\n"},
		{[]string{"check", "--sample", "single-call"}, "did you mean 'chat-single-call', 'gateway-responses-single-call' or 'responses-single-call'?"},
		{[]string{"diff", "sample:gemni-call", "sample:gemini-call"}, "streamtap diff: A: no sample \"gemni-call\": did you mean 'gemini-call'?"},
		{[]string{"replay", "--sample", "responses-singlecall"}, "did you mean 'responses-single-call'?"},
		{[]string{"calls", "--jsn", "--sample", "chat-single-call"}, "streamtap calls: unknown flag --jsn (did you mean --json?); run 'streamtap calls --help'\n"},
		{[]string{"--proxy"}, "streamtap: unknown flag --proxy (did you mean the command 'streamtap proxy'?); run 'streamtap --help'\n"},
		{[]string{"check", "--fail-no", "error"}, "unknown flag --fail-no (did you mean --fail-on?)"},
		{[]string{"calls", "--no-such-flag"}, "streamtap calls: unknown flag --no-such-flag; run 'streamtap calls --help'\n"},
		{[]string{"nosuchthing"}, "streamtap: open nosuchthing: no such file or directory\n"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			code, out, errOut := runCLI(t, nil, tt.args...)
			if code != 2 || out != "" {
				t.Errorf("exit %d, stdout %q; want 2, nothing", code, out)
			}
			if strings.HasSuffix(tt.stderr, "\n") && errOut != tt.stderr || !strings.Contains(errOut, tt.stderr) {
				t.Errorf("stderr = %q; want %q", errOut, tt.stderr)
			}
		})
	}
}

// TestMistypedCommandIsAFileFirst: a file named like a mistyped command
// is the inspector's input, as it always was.
func TestMistypedCommandIsAFileFirst(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "chek"), []byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	code, out, errOut := runCLI(t, nil, "chek")
	if code != 0 || !strings.Contains(out, "chat.completion.chunk") && !strings.Contains(out, "hi") {
		t.Errorf("streamtap chek with a file chek: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

func TestEditDistance(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"check", "check", 0},
		{"chek", "check", 1},
		{"chekc", "check", 1}, // a swap of neighbours
		{"", "calls", 5},
		{"timeline", "timelime", 1},
		{"événement", "evenement", 2},
		{"ab", "ba", 1},
		{"ca", "abc", 3}, // optimal string alignment: no edit of a swapped pair
	} {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d; want %d", tt.a, tt.b, got, tt.want)
		}
	}
	if got := fmt.Sprint(nearest("x", commandNames())); got != "[]" {
		t.Errorf("nearest(x) = %s; want nothing: one letter is near too much", got)
	}
}
