package cli

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/streamtap/streamtap/inject/fault"
	"github.com/streamtap/streamtap/suite"
)

// TestDocYAMLBlocks reads every YAML block of README and docs/ as what it
// shows: a .streamtap.yaml through the config's own parser (an unknown
// key, level or outcome fails it, as check would refuse the file), a
// replay scenario through the scenario parser, and a CI workflow as YAML
// (its streamtap command lines are TestDocCommandsParse's). A renamed
// config key cannot leave a document showing a file that check refuses.
func TestDocYAMLBlocks(t *testing.T) {
	t.Parallel()
	kinds := map[string]int{}
	for _, doc := range exampleDocs(t) {
		for _, b := range docBlocks(t, doc) {
			if b.info != "yaml" && b.info != "yml" {
				continue
			}
			where := filepath.Base(doc) + ":" + strconv.Itoa(b.line)
			text := []byte(strings.Join(b.lines, "\n") + "\n")
			kind := yamlBlockKind(b.lines)
			kinds[kind]++
			var err error
			switch kind {
			case "workflow":
				var v map[string]any
				err = yaml.Unmarshal(text, &v)
				if err == nil && v["jobs"] == nil {
					t.Errorf("%s: a workflow with no jobs", where)
				}
			case "scenario":
				_, err = fault.ParseScenario(text)
			default:
				_, err = suite.ParseConfig(text)
			}
			if err != nil {
				t.Errorf("%s: the %s it shows does not read: %v", where, kind, err)
			}
		}
	}
	for _, want := range []string{"config", "scenario", "workflow"} {
		if kinds[want] == 0 {
			t.Errorf("no YAML block read as a %s (read %v): is the way blocks are told apart still right?", want, kinds)
		}
	}
}

// yamlBlockKind tells a YAML block's kind by its first comment or its
// top-level keys.
func yamlBlockKind(lines []string) string {
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "# .github/workflows/"), strings.HasPrefix(l, "jobs:"):
			return "workflow"
		case strings.HasPrefix(l, "requests:"), strings.HasPrefix(l, "then:"):
			return "scenario"
		}
	}
	return "config"
}
