package checks

import (
	"testing"

	"github.com/streamtap/streamtap/model"
)

// TestExplanationsCiteRules: every rule an explanation cites exists, and
// no explanation cites one twice.
func TestExplanationsCiteRules(t *testing.T) {
	exps := model.Explanations()
	if len(exps) == 0 {
		t.Fatal("no explanations")
	}
	cited := 0
	for _, e := range exps {
		seen := map[string]bool{}
		for _, id := range e.Rules {
			if ruleByID[id] == nil {
				t.Errorf("explanation of %v cites %q, which is no rule", e.Shape, id)
			}
			if seen[id] {
				t.Errorf("explanation of %v cites %q twice", e.Shape, id)
			}
			seen[id] = true
			cited++
		}
	}
	if cited == 0 {
		t.Error("no explanation cites a rule")
	}
}
