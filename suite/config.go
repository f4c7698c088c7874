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
	"syscall"

	yaml "go.yaml.in/yaml/v3"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
)

// ConfigNames are the names of the config file, looked for in this order
// in each directory. YAML, as VCR cassettes are: the project reads it
// already.
var ConfigNames = []string{".streamtap.yaml", ".streamtap.yml"}

// maxConfigSize bounds a config file: a list of rules is a few kilobytes.
const maxConfigSize = 1 << 20

// ConfigKeys are the keys a config file takes: the rule changes (disable,
// severity) and every flag of check that shapes a CI policy, named as the
// flags are. The other flags of check say how one run reads or writes
// (--output-format, --request, --format, --session, --save…) and stay on
// the command line.
//
//	disable: [chat/created-changed, gemini/*]
//	severity:
//	  chat/identity-changed: info
//	  responses/*: warning
//	fail-on: warning                  # error, warning or info
//	profile: tolerant                 # strict or tolerant
//	allow-outcome: [truncated, empty] # or one name, or "a, b"
var ConfigKeys = []string{"disable", "severity", "fail-on", "profile", "allow-outcome"}

// Config is what a config file says. The zero value says nothing: no
// rule changed, no policy set.
type Config struct {
	// Path is the file it was read from.
	Path string
	// Rules are the rule changes of disable and severity.
	Rules checks.Config
	// FailOn, Profile and AllowOutcome are the policy keys; nil when the
	// file does not set them.
	FailOn       *checks.Severity
	Profile      *checks.Profile
	AllowOutcome []string
}

// ParseConfig reads a config file's bytes: one YAML document, a mapping
// of ConfigKeys. Within a file the changes that name a prefix ("chat/*")
// come before those that name one rule, whatever their order, so the one
// rule's wins; a rule both disabled and given a severity there is an
// error. An unknown key, a second document, or a value of the wrong kind
// is an error that says which and where: a typo must not silently change
// nothing.
func ParseConfig(data []byte) (Config, error) {
	var cfg Config
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return cfg, nil // empty: says nothing
		}
		return cfg, yamlError(err)
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return cfg, yamlError(err)
	default:
		return cfg, fmt.Errorf("line %d: a second YAML document: a config file is one document, and the second would be ignored", next.Line)
	}
	if len(doc.Content) == 0 {
		return cfg, nil
	}
	top := doc.Content[0]
	if top.Kind == yaml.ScalarNode && top.Tag == "!!null" {
		return cfg, nil // comments only, or "~"
	}
	if top.Kind != yaml.MappingNode {
		return cfg, fmt.Errorf("line %d: want a mapping of %s", top.Line, strings.Join(ConfigKeys, ", "))
	}
	seen := map[string]bool{}
	var disable []string
	var severity []yamlPair
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		key := k.Value
		if !slices.Contains(ConfigKeys, key) {
			return cfg, fmt.Errorf("line %d: unknown key %q (the keys are %s)", k.Line, key, strings.Join(ConfigKeys, ", "))
		}
		if seen[key] {
			return cfg, fmt.Errorf("line %d: %s given twice", k.Line, key)
		}
		seen[key] = true
		var err error
		switch key {
		case "disable":
			disable, err = yamlList(v)
		case "severity":
			severity, err = yamlMap(v)
		case "fail-on":
			var name string
			if name, err = yamlScalar(v); err == nil {
				var sev checks.Severity
				if sev, err = checks.ParseSeverity(name); err == nil {
					cfg.FailOn = &sev
				}
			}
		case "profile":
			var name string
			if name, err = yamlScalar(v); err == nil {
				var p checks.Profile
				if p, err = checks.ParseProfile(name); err == nil {
					cfg.Profile = &p
				}
			}
		case "allow-outcome":
			var names []string
			if names, err = yamlList(v); err == nil {
				for _, n := range names {
					if !slices.Contains(model.Outcomes(), n) {
						err = fmt.Errorf("%q is not an outcome (want %s)", n, strings.Join(model.Outcomes(), ", "))
						break
					}
				}
				cfg.AllowOutcome = append([]string{}, names...)
			}
		}
		if err != nil {
			return Config{}, fmt.Errorf("line %d: %s: %w", v.Line, key, err)
		}
	}
	rules, err := ruleChanges(disable, severity)
	if err != nil {
		return Config{}, err
	}
	cfg.Rules = rules
	return cfg, nil
}

// yamlPair is one "pattern: level" of severity, with its line.
type yamlPair struct {
	key, value string
	line       int
}

// yamlError is a YAML syntax error without the package's "yaml: " prefix,
// on one line.
func yamlError(err error) error {
	return errors.New(strings.Join(strings.Fields(strings.TrimPrefix(err.Error(), "yaml: ")), " "))
}

// yamlScalar is a plain value: a string, a word.
func yamlScalar(v *yaml.Node) (string, error) {
	if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		return "", fmt.Errorf("want one word, got %s", yamlKind(v))
	}
	return v.Value, nil
}

// yamlList is a list of words, or one word, or words separated by commas
// (as the flags take them).
func yamlList(v *yaml.Node) ([]string, error) {
	var items []*yaml.Node
	switch v.Kind {
	case yaml.ScalarNode:
		if v.Tag == "!!null" {
			return nil, nil
		}
		items = []*yaml.Node{v}
	case yaml.SequenceNode:
		items = v.Content
	default:
		return nil, fmt.Errorf("want a list, got %s", yamlKind(v))
	}
	var out []string
	for _, it := range items {
		if it.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("want a word in the list, got %s", yamlKind(it))
		}
		for w := range strings.SplitSeq(it.Value, ",") {
			if w = strings.TrimSpace(w); w == "" {
				return nil, errors.New("an empty item")
			}
			out = append(out, w)
		}
	}
	return out, nil
}

// yamlMap is a mapping of words to words.
func yamlMap(v *yaml.Node) ([]yamlPair, error) {
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return nil, nil
	}
	if v.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("want a mapping of RULE: LEVEL, got %s", yamlKind(v))
	}
	var out []yamlPair
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		if k.Kind != yaml.ScalarNode || val.Kind != yaml.ScalarNode {
			return nil, errors.New("want RULE: LEVEL")
		}
		out = append(out, yamlPair{k.Value, val.Value, k.Line})
	}
	return out, nil
}

// yamlKind names a node's kind for an error.
func yamlKind(v *yaml.Node) string {
	switch v.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.AliasNode:
		return "an alias"
	}
	if v.Tag == "!!null" {
		return "nothing"
	}
	return "a word"
}

// ruleChanges applies disable and severity: the changes that name a
// prefix first, then those that name one rule.
func ruleChanges(disable []string, severity []yamlPair) (checks.Config, error) {
	var cfg checks.Config
	type change struct {
		pattern string
		level   string // "off" for disable
		line    int
	}
	var changes []change
	for _, p := range disable {
		changes = append(changes, change{p, "off", 0})
	}
	for _, p := range severity {
		if slices.Contains(disable, p.key) {
			return cfg, fmt.Errorf("line %d: %s is both disabled and given a severity", p.line, p.key)
		}
		changes = append(changes, change{p.key, p.value, p.line})
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
			if c.line > 0 {
				err = fmt.Errorf("line %d: %w", c.line, err)
			}
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

// LoadConfig reads the config file at path, one the user named
// (--config): whoever owns it, but only when it is a regular file of at
// most 1 MiB. Anything else is refused before it is opened: opening a
// named pipe waits for a writer, and a check that found a FIFO called
// .streamtap.yaml in a parent directory slept in open(2), where no
// signal's cancellation reaches, until it was killed. os.DevNull is no
// config: none, not even the one found.
func LoadConfig(path string) (Config, error) {
	if path == os.DevNull {
		return Config{}, nil // --config /dev/null: no config at all
	}
	data, err := readConfig(path)
	if err != nil {
		return Config{}, err
	}
	cfg, err := ParseConfig(data)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	cfg.Path = path
	return cfg, nil
}

// readConfig reads a config file's bytes when it is a regular file: it
// says what else it is otherwise, before opening it, and opens it
// without blocking (a pipe put in its place after the look would block
// the open) to look again at what was opened.
func readConfig(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := regularConfig(path, st); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := regularConfig(path, st); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, maxConfigSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > maxConfigSize {
		return nil, fmt.Errorf("%s: over %d bytes: not a config file", path, maxConfigSize)
	}
	return data, nil
}

// regularConfig is an error naming what path is when it is not a regular
// file, or one too big to be a config file.
func regularConfig(path string, st os.FileInfo) error {
	if st.Mode().IsRegular() {
		if st.Size() > maxConfigSize {
			return fmt.Errorf("%s: over %d bytes: not a config file", path, maxConfigSize)
		}
		return nil
	}
	return fmt.Errorf("%s: not a regular file (%s): not a config file", path, modeName(st.Mode().Type()))
}

// Configs finds and loads the config file that governs each input, as
// linters find theirs: the first of ConfigNames in the input's
// directory, else in its parent, and so on up to the repository's root
// (a directory holding .git) or the user's home, whichever comes first,
// else to the file system's root. A file another user owns (one left in
// /tmp) is passed over, never read: root's and the user's own are read.
// Each directory is looked at and each file read once, so that a
// thousand recordings in one directory cost one search. The zero value is
// ready; it is not safe for concurrent use.
type Configs struct {
	// PassedOver, when set, hears once of each file the search passed
	// over, and why ("owned by another user (uid 1001)"); the caller says
	// what the user can do about it.
	PassedOver func(path, why string)

	byDir  map[string]found
	files  map[string]loaded
	told   map[string]bool
	home   string
	homeOK bool
}

type found struct {
	path string
	err  error
}

type loaded struct {
	cfg Config
	err error
}

// For returns the config that governs a file in dir ("" for the working
// directory); a zero Config (Path "") when there is none.
func (c *Configs) For(dir string) (Config, error) {
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Config{}, err
	}
	if !c.homeOK {
		c.home, _ = os.UserHomeDir()
		c.homeOK = true
	}
	f := c.find(abs)
	if f.err != nil || f.path == "" {
		return Config{}, f.err
	}
	if c.files == nil {
		c.files = map[string]loaded{}
	}
	l, ok := c.files[f.path]
	if !ok {
		l.cfg, l.err = LoadConfig(f.path)
		c.files[f.path] = l
	}
	return l.cfg, l.err
}

// find looks for the config file in dir (absolute and clean), then in its
// parents up to where the search stops, remembering what each directory
// on the way answers.
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
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) && !errors.Is(err, os.ErrPermission) {
				f.err = fmt.Errorf("config: %w", err)
				break
			}
			continue
		}
		if st.IsDir() {
			continue // a directory so named is not one
		}
		if uid, other := ownedByOther(st); other {
			c.passOver(p, fmt.Sprintf("owned by another user (uid %d)", uid))
			continue
		}
		if err := regularConfig(p, st); err != nil {
			f.err = err
			break
		}
		f.path = p
		break
	}
	if f.path == "" && f.err == nil && !c.stopsAt(dir) {
		if parent := filepath.Dir(dir); parent != dir {
			f = c.find(parent)
		}
	}
	c.byDir[dir] = f
	return f
}

// stopsAt says whether the search goes no higher than dir: the root of a
// repository (.git, a directory or a worktree's file) or the user's home.
func (c *Configs) stopsAt(dir string) bool {
	if c.home != "" && dir == filepath.Clean(c.home) {
		return true
	}
	_, err := os.Lstat(filepath.Join(dir, ".git"))
	return err == nil
}

func (c *Configs) passOver(path, why string) {
	if c.told[path] || c.PassedOver == nil {
		return
	}
	if c.told == nil {
		c.told = map[string]bool{}
	}
	c.told[path] = true
	c.PassedOver(path, why)
}
