package suite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/model/checks"
)

// grades returns what cfg makes of a few rules graded sev by default:
// "rule=severity" or "rule=off".
func grades(cfg checks.Config, sev checks.Severity, rules ...string) string {
	var out []string
	for _, r := range rules {
		s, on := cfg.Grade(r, sev)
		if !on {
			out = append(out, r+"=off")
		} else {
			out = append(out, r+"="+s.String())
		}
	}
	return strings.Join(out, " ")
}

// TestParseConfig: the file's two keys, the one rule's change winning
// over its prefix's whatever their order, and every mistake refused with
// a message that names it.
func TestParseConfig(t *testing.T) {
	t.Parallel()
	rules := []string{"chat/identity-changed", "chat/created-changed", "gemini/finish-reason-nonstandard", "framing/no-data"}
	ok := []struct {
		name, file, want string
	}{
		{"empty", "", "chat/identity-changed=error chat/created-changed=error gemini/finish-reason-nonstandard=error framing/no-data=error"},
		{"comments only", "# nothing\n", "chat/identity-changed=error chat/created-changed=error gemini/finish-reason-nonstandard=error framing/no-data=error"},
		{"both keys", "disable: [chat/created-changed, gemini/*]\nseverity:\n  chat/identity-changed: info\n  framing/no-data: warning\n",
			"chat/identity-changed=info chat/created-changed=off gemini/finish-reason-nonstandard=off framing/no-data=warning"},
		{"one rule beats its prefix", "severity:\n  chat/identity-changed: warning\n  chat/*: info\n",
			"chat/identity-changed=warning chat/created-changed=info gemini/finish-reason-nonstandard=error framing/no-data=error"},
		{"a severity re-enables a disabled prefix", "disable: [chat/*]\nseverity: {chat/created-changed: info}\n",
			"chat/identity-changed=off chat/created-changed=info gemini/finish-reason-nonstandard=error framing/no-data=error"},
		{"off", "severity: {framing/no-data: off}", "chat/identity-changed=error chat/created-changed=error gemini/finish-reason-nonstandard=error framing/no-data=off"},
	}
	for _, tt := range ok {
		cfg, err := ParseConfig([]byte(tt.file))
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if got := grades(cfg.Rules, checks.Error, rules...); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
	bad := []struct {
		name, file, says string
	}{
		{"unknown key", "disabled: [chat/created-changed]\n", `line 1: unknown key "disabled" (the keys are disable, severity, fail-on, profile, allow-outcome)`},
		{"unknown rule", "disable: [chat/no-such]\n", "chat/no-such"},
		{"unknown prefix", "disable: [nope/*]\n", "nope/*"},
		{"bad level", "severity: {chat/created-changed: fatal}\n", "line 1: chat/created-changed: unknown level \"fatal\""},
		{"both", "disable: [chat/created-changed]\nseverity: {chat/created-changed: info}\n", "both"},
		{"not a list", "disable: {chat/created-changed: x}\n", "line 1: disable: want a list, got a mapping"},
		{"not yaml", "disable: [\n", "line 1: did not find expected node content"},
		{"a second document", "disable: [chat/created-changed]\n---\nfail-on: info\n", "line 2: a second YAML document"},
		{"an empty second document", "disable: [chat/created-changed]\n---\n", "a second YAML document"},
		{"not a mapping", "- disable\n", "want a mapping"},
		{"twice", "fail-on: info\nfail-on: error\n", "fail-on"},
		{"bad fail-on", "fail-on: loud\n", `line 1: fail-on: unknown severity "loud"`},
		{"fail-on list", "fail-on: [info]\n", "fail-on: want one word, got a list"},
		{"bad profile", "profile: lax\n", `profile: unknown profile "lax"`},
		{"bad outcome", "allow-outcome: [truncated, fine]\n", `allow-outcome: "fine" is not an outcome`},
		{"empty outcome", "allow-outcome: \"truncated,,empty\"\n", "an empty item"},
	}
	for _, tt := range bad {
		_, err := ParseConfig([]byte(tt.file))
		if err == nil || !strings.Contains(err.Error(), tt.says) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: err = %v; want one line that says %q", tt.name, err, tt.says)
		}
	}
}

// TestParseConfigPolicy: the keys of check's policy flags, each as the
// flag takes it; a list of outcomes also as one word or words separated
// by commas; a file that sets none leaves each nil.
func TestParseConfigPolicy(t *testing.T) {
	t.Parallel()
	cfg, err := ParseConfig([]byte("---\nfail-on: warning\nprofile: tolerant\nallow-outcome: [truncated, empty]\ndisable: chat/created-changed, framing/no-data\n"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.FailOn == nil || *cfg.FailOn != checks.Warning || cfg.Profile == nil || *cfg.Profile != checks.Tolerant ||
		strings.Join(cfg.AllowOutcome, ",") != "truncated,empty" {
		t.Errorf("policy: %+v", cfg)
	}
	if got := grades(cfg.Rules, checks.Error, "chat/created-changed", "framing/no-data"); got != "chat/created-changed=off framing/no-data=off" {
		t.Errorf("disable as a comma list: %s", got)
	}
	for _, text := range []string{"allow-outcome: truncated\n", "allow-outcome: truncated, empty\n"} {
		cfg, err := ParseConfig([]byte(text))
		if err != nil || len(cfg.AllowOutcome) == 0 || cfg.AllowOutcome[0] != "truncated" {
			t.Errorf("%q: %+v, %v", text, cfg, err)
		}
	}
	cfg, err = ParseConfig([]byte("disable: [gemini/*]\n"))
	if err != nil || cfg.FailOn != nil || cfg.Profile != nil || cfg.AllowOutcome != nil {
		t.Errorf("a file without policy keys: %+v, %v", cfg, err)
	}
}

// TestFlagValues: --disable and --severity take comma-separated lists
// and apply them in order.
func TestFlagValues(t *testing.T) {
	t.Parallel()
	var cfg checks.Config
	if err := AddDisabled(&cfg, "chat/*, framing/no-data"); err != nil {
		t.Fatal(err)
	}
	if err := AddSeverities(&cfg, "chat/created-changed=warning, framing/no-data=info"); err != nil {
		t.Fatal(err)
	}
	want := "chat/identity-changed=off chat/created-changed=warning framing/no-data=info"
	if got := grades(cfg, checks.Error, "chat/identity-changed", "chat/created-changed", "framing/no-data"); got != want {
		t.Errorf("got %s; want %s", got, want)
	}
	for _, bad := range []string{"chat/created-changed", "chat/created-changed=loud", "=info", "chat/nope=info"} {
		if err := AddSeverities(&cfg, bad); err == nil {
			t.Errorf("--severity %s accepted", bad)
		}
	}
	if err := AddDisabled(&cfg, "chat/created-changed,,"); err == nil {
		t.Error("--disable with an empty item accepted")
	}
}

// TestConfigsSearch: a file's config is the nearest one from its
// directory up; directories without one up to the root get none; each
// file is read once (a change after the first read is not seen), and a
// broken file is an error naming it.
func TestConfigsSearch(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write := func(rel, text string) string {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	top := write("repo/.streamtap.yaml", "disable: [chat/created-changed]\n")
	nested := write("repo/suite/special/.streamtap.yml", "severity: {chat/created-changed: info}\n")
	write("repo/suite/special/deeper/x.sse", "")
	write("repo/suite/plain/y.sse", "")
	write("elsewhere/z.sse", "")
	broken := write("broken/.streamtap.yaml", "nonsense: 1\n")

	var c Configs
	for _, tt := range []struct {
		dir, file, want string
	}{
		{"repo/suite/plain", top, "chat/created-changed=off"},
		{"repo/suite/special/deeper", nested, "chat/created-changed=info"},
		{"repo", top, "chat/created-changed=off"},
		{"elsewhere", "", "chat/created-changed=error"},
	} {
		cfg, err := c.For(filepath.Join(root, filepath.FromSlash(tt.dir)))
		if err != nil || cfg.Path != tt.file {
			t.Errorf("For(%s) = %q, %v; want %q", tt.dir, cfg.Path, err, tt.file)
			continue
		}
		if got := grades(cfg.Rules, checks.Error, "chat/created-changed"); got != tt.want {
			t.Errorf("For(%s): %s; want %s", tt.dir, got, tt.want)
		}
	}
	if err := os.WriteFile(top, []byte("disable: [framing/no-data]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, _ := c.For(filepath.Join(root, "repo/suite/plain"))
	if got := grades(cfg.Rules, checks.Error, "chat/created-changed"); got != "chat/created-changed=off" {
		t.Errorf("the config was read again: %s", got)
	}
	if _, err := c.For(filepath.Join(root, "broken")); err == nil || !strings.Contains(err.Error(), broken) {
		t.Errorf("a broken config: %v; want an error naming %s", err, broken)
	}
}

// FuzzParseConfig: any bytes parse or give one error line, never a panic;
// what parses says at most what the keys can.
func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{
		"", "# x\n", "disable: [chat/*]\nseverity: {chat/identity-changed: info}\n", "fail-on: warning\nprofile: tolerant\nallow-outcome: truncated, empty\n",
		"a: 1\n---\nb: 2\n", "disable: &x [chat/*]\nseverity: *x\n", "- x\n", "disable: [\n", "fail-on: [info]\n", "~\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := ParseConfig(data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("ParseConfig(%q): an error of several lines: %q", data, err)
			}
			return
		}
		for _, o := range cfg.AllowOutcome {
			if o == "" {
				t.Fatalf("ParseConfig(%q) allows an empty outcome", data)
			}
		}
	})
}
