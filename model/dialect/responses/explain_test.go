package responses

import (
	"testing"

	"github.com/streamtap/streamtap/model"
)

// TestExplainToolCallFamilies: each hosted-tool status prefix the
// Responses handler knows has one explanation for all its statuses.
func TestExplainToolCallFamilies(t *testing.T) {
	for _, p := range toolCallPrefixes {
		fam := ToolCallFamily(p + "searching")
		if fam != p+"*" {
			t.Errorf("ToolCallFamily(%q) = %q; want %q", p+"searching", fam, p+"*")
		}
		if _, ok := model.Explain(model.Shape{Dialect: Protocol.ID(), Type: fam}); !ok {
			t.Errorf("no explanation for %s", fam)
		}
	}
}

// TestTablesClaimed: the types the handler's tables list are the
// dialect's by type, so the core's probe of every string of the source
// (TestExplainEveryKnownType) offers them to the dialect and asks for
// their explanations.
func TestTablesClaimed(t *testing.T) {
	var tables []string
	for typ, v := range argStreams {
		tables = append(tables, typ, v.done)
	}
	for typ := range responsesKinds {
		tables = append(tables, typ)
	}
	for _, p := range toolCallPrefixes {
		tables = append(tables, p+"in_progress")
	}
	for _, typ := range tables {
		if !Protocol.ClaimType(typ) {
			t.Errorf("ClaimType(%q) = false; want true", typ)
		}
	}
}
