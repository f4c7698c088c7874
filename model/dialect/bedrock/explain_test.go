package bedrock_test

import (
	"strconv"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/internal/dialecttest"
	"github.com/streamtap/streamtap/model/internal/modeltest"
)

// TestExplainEveryBedrockType: every event type, start union and delta
// member the Bedrock handlers know has its explanation, found as
// TestExplainEveryKnownType finds the SSE dialects' (an SSE probe never
// reaches them: they claim only event stream messages): every string of
// the source is offered as an :event-type, as the type of an Anthropic or
// the member of a Nova event inside an InvokeModel chunk, and as the
// member of a Converse start or delta.
func TestExplainEveryBedrockType(t *testing.T) {
	t.Parallel() // reads only its own inputs
	claimed := map[string]bool{}
	for _, lit := range modeltest.SourceLiterals(t) {
		q := strconv.Quote(lit)
		streams := [][]byte{
			append(modeltest.ESMessage("messageStart", `{}`), modeltest.ESMessage(lit, `{"contentBlockIndex":0}`)...),
			append(modeltest.ESMessage("messageStart", `{}`), modeltest.ESMessage("contentBlockStart", `{"contentBlockIndex":0,"start":{`+q+`:{}}}`)...),
			append(modeltest.ESMessage("messageStart", `{}`), modeltest.ESMessage("contentBlockDelta", `{"contentBlockIndex":0,"delta":{`+q+`:"x"}}`)...),
			modeltest.ESChunk(`{"type":` + q + `}`),
			modeltest.ESChunk(`{` + q + `:{}}`),
			modeltest.ESChunk(`{` + q + `:"x"}`),
		}
		for _, data := range streams {
			s, evs := dialecttest.ShapeStream(data, capture.FormatAuto)
			ev := evs[len(evs)-1]
			if ev.Ev.Dialect == model.DialectUnknown || ev.Ev.Kind == model.KindUnknown || ev.Ev.Flags&(model.NonStandard|model.DecodeError) != 0 {
				continue
			}
			claimed[s.TypeName(ev.Ev.Type)] = true
			for _, sh := range []model.Shape{ev.WithData, ev.Bare} {
				if _, ok := model.Explain(sh); !ok {
					t.Errorf("%q (%s %s %s): no explanation for shape %v", lit, ev.Ev.Dialect, ev.Ev.Kind, s.TypeName(ev.Ev.Type), sh)
				}
			}
		}
	}
	for _, typ := range []string{"messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop", "messageStop",
		"metadata", "message_start", "content_block_delta", "chunk"} {
		if !claimed[typ] {
			t.Errorf("the probe did not find %q among the Bedrock handlers' types", typ)
		}
	}
}

// TestShapeBedrock names the shapes of the text families' chunks, a
// guardrail's and an exception, from their data and from the session
// alone (the core's TestShape names the Bedrock samples' events).
func TestShapeBedrock(t *testing.T) {
	titan := func(body string) []byte { return modeltest.ESChunk(body) }
	stream := append(append(titan(`{"outputText":"Hel","index":0}`), titan(`{"outputText":"lo","index":0,"completionReason":"FINISH","amazon-bedrock-invocationMetrics":{}}`)...),
		titan(`{"outputText":"Input blocked","amazon-bedrock-guardrailAction":"INTERVENED"}`)...)
	stream = append(stream, capture.AppendEventStream(nil, []capture.Field{
		{Name: []byte(":exception-type"), Value: []byte("throttlingException")},
		{Name: []byte(":message-type"), Value: []byte("exception")},
	}, []byte(`{"message":"slow down"}`))...)
	_, evs := dialecttest.ShapeStream(stream, capture.FormatAuto)
	for i, want := range []string{"chunk/text", "chunk/end", "chunk/guardrail", "exception"} {
		if e := evs[i]; e.WithData.String() != want || e.Bare.String() != want {
			t.Errorf("chunk %d: Shape = %v (from data), %v (bare); want %s", i, e.WithData, e.Bare, want)
		}
	}
}
