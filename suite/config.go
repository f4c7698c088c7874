package suite

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/streamtap/streamtap/model/checks"
)

// ConfigNames are the names of the config file, looked for in this order
// in each directory. YAML, as VCR cassettes are: the project reads it
// already.
var ConfigNames = []string{".streamtap.yaml", ".streamtap.yml"}

// maxConfigSize bounds a config file: a list of rules is a few kilobytes.
const maxConfigSize = 1 << 20

// fileConfig is the config file's shape:
//
//	disable: [chat/created-changed, gemini/*]
//	severity:
//	  chat/identity-changed: info
//	  responses/*: warning
//
// Unknown keys are errors, so that a typo does not silently change
// nothing.
type fileConfig struct {
	Disable  []string          `yaml:"disable"`
	Severity map[string]string `yaml:"severity"`
}

// ParseConfig reads a config file's bytes. Within a file the changes that
// name a prefix ("chat/*") come before those that name one rule, whatever
// their order, so the one rule's wins; a rule both disabled and given a
// severity there is an error.
func ParseConfig(data []byte) (checks.Config, error) {
	var cfg checks.Config
	var fc fileConfig
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&fc); err != nil && !errors.Is(err, io.EOF) {
		return cfg, err
	}
	type change struct {
		pattern string
		level   string // "off" for disable
	}
	var changes []change
	for _, p := range fc.Disable {
		changes = append(changes, change{p, "off"})
	}
	for p, level := range fc.Severity {
		if slices.Contains(fc.Disable, p) {
			return cfg, fmt.Errorf("%s is both disabled and given a severity", p)
		}
		changes = append(changes, change{p, level})
	}
	prefix := func(p string) int {
		if strings.HasSuffix(p, "/*") {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(changes, func(a, b change) int {
		return cmp.Or(cmp.Compare(prefix(a.pattern), prefix(b.pattern)), strings.Compare(a.pattern, b.pattern))
	})
	for _, c := range changes {
		if err := SetLevel(&cfg, c.pattern, c.level); err != nil {
			return checks.Config{}, err
		}
	}
	return cfg, nil
}

// SetLevel changes the rules pattern names to level: error, warning,
// info, or off to disable them.
func SetLevel(cfg *checks.Config, pattern, level string) error {
	if level == "off" {
		return cfg.Disable(pattern)
	}
	sev, err := checks.ParseSeverity(level)
	if err != nil {
		return fmt.Errorf("%s: unknown level %q (want error, warning, info or off)", pattern, level)
	}
	return cfg.SetSeverity(pattern, sev)
}

// AddSeverities applies --severity's value, "RULE=LEVEL" or several
// separated by commas, to cfg in order.
func AddSeverities(cfg *checks.Config, spec string) error {
	for item := range strings.SplitSeq(spec, ",") {
		pattern, level, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok {
			return fmt.Errorf("%q is not RULE=LEVEL", item)
		}
		if err := SetLevel(cfg, strings.TrimSpace(pattern), strings.TrimSpace(level)); err != nil {
			return err
		}
	}
	return nil
}

// AddDisabled applies --disable's value, rules separated by commas, to
// cfg.
func AddDisabled(cfg *checks.Config, spec string) error {
	for p := range strings.SplitSeq(spec, ",") {
		if err := cfg.Disable(strings.TrimSpace(p)); err != nil {
			return err
		}
	}
	return nil
}

// LoadConfig reads the config file at path, which must be a regular file
// of at most maxConfigSize bytes. Anything else is refused before it is
// opened: opening a named pipe waits for a writer, and a check that found
// a FIFO called .streamtap.yaml in a parent directory slept in open(2),
// where no signal's cancellation reaches, until it was killed.
func LoadConfig(path string) (checks.Config, error) {
	st, err := os.Stat(path)
	if err != nil {
		return checks.Config{}, err
	}
	if !st.Mode().IsRegular() {
		return checks.Config{}, fmt.Errorf("%s: not a regular file (%s): not a config file", path, fileKind(st.Mode()))
	}
	f, err := os.Open(path)
	if err != nil {
		return checks.Config{}, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxConfigSize+1))
	if err != nil {
		return checks.Config{}, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > maxConfigSize {
		return checks.Config{}, fmt.Errorf("%s: over %d bytes: not a config file", path, maxConfigSize)
	}
	cfg, err := ParseConfig(data)
	if err != nil {
		return cfg, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// fileKind names what a path that is not a regular file is.
func fileKind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	}
	return "mode " + m.Type().String()
}

// Configs finds and loads the config file that governs each input, as
// linters find theirs: the first of ConfigNames in the input's
// directory, else in its parent, and so on up to the root. Each
// directory is looked at and each file read once, so that a thousand
// recordings in one directory cost one search. The zero value is ready;
// it is not safe for concurrent use.
type Configs struct {
	byDir map[string]found
	files map[string]loaded
}

type found struct {
	path string
	err  error
}

type loaded struct {
	cfg checks.Config
	err error
}

// For returns the config that governs a file in dir ("" for the working
// directory), and the file's path; a zero Config and "" when there is
// none.
func (c *Configs) For(dir string) (checks.Config, string, error) {
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return checks.Config{}, "", err
	}
	f := c.find(abs)
	if f.err != nil || f.path == "" {
		return checks.Config{}, "", f.err
	}
	if c.files == nil {
		c.files = map[string]loaded{}
	}
	l, ok := c.files[f.path]
	if !ok {
		l.cfg, l.err = LoadConfig(f.path)
		c.files[f.path] = l
	}
	return l.cfg, f.path, l.err
}

// find looks for the config file in dir (absolute and clean), then in its
// parents, remembering what each directory on the way answers.
func (c *Configs) find(dir string) found {
	if c.byDir == nil {
		c.byDir = map[string]found{}
	}
	if f, ok := c.byDir[dir]; ok {
		return f
	}
	var f found
	for _, name := range ConfigNames {
		p := filepath.Join(dir, name)
		st, err := os.Stat(p)
		if err == nil && !st.IsDir() {
			f.path = p
			break
		}
		if err != nil && !errors.Is(err, os.ErrNotExist) && !errors.Is(err, os.ErrPermission) {
			f.err = fmt.Errorf("config: %w", err)
			break
		}
	}
	if f.path == "" && f.err == nil {
		if parent := filepath.Dir(dir); parent != dir {
			f = c.find(parent)
		}
	}
	c.byDir[dir] = f
	return f
}
