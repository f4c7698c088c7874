package cli

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/internal/fixtures"
)

// docCommand matches a command line quoted in a document: a code span
// that starts with the program's name.
var docCommand = regexp.MustCompile("`(streamtap(?: [^`]*)?)`")

// TestDocCommandsParse runs every command line quoted in the documents
// that teach with them (samples/README.md, docs/rules.md) through the
// command line's parser: the command, its flags and their values, and
// the samples it names must exist, so that a renamed flag or command
// cannot leave a document telling people to run what fails (samples
// said `streamtap --proxy`, a flag no command has). Nothing is run.
func TestDocCommandsParse(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{"samples/README.md", "docs/rules.md", "docs/inject.md"} {
		data, err := os.ReadFile(fixtures.Path(doc))
		if err != nil {
			t.Fatal(err)
		}
		lines := docCommand.FindAllStringSubmatch(string(data), -1)
		if len(lines) == 0 {
			t.Errorf("%s quotes no command line: is the pattern still right?", doc)
		}
		for _, m := range lines {
			if err := parseCommandLine(strings.Fields(m[1])[1:]); err != nil {
				t.Errorf("%s quotes `%s`, which does not parse: %v", doc, m[1], err)
			}
		}
	}
}

// parseCommandLine parses args (without the program's name) as run
// would, up to running the command: the command found, a mistyped one
// refused, its flags parsed, each sample it names opened.
func parseCommandLine(args []string) error {
	name, rest := splitCommand(args)
	if name == "" {
		if err := mistypedCommand(rest); err != nil {
			return err
		}
	}
	c, _ := lookupCommand(name)
	fs := c.flags()
	positional, err := parseInterspersed(fs, rest)
	if err != nil {
		return err
	}
	if f := fs.Lookup("sample"); f != nil && f.Value.String() != "" {
		positional = append(positional, samplePrefix+f.Value.String())
	}
	for _, p := range positional {
		if sample, ok := strings.CutPrefix(p, samplePrefix); ok {
			if _, err := openSample(sample); err != nil {
				return err
			}
		}
	}
	return nil
}
