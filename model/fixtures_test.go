package model_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

// The fixtures in testdata/ are recordings from public test suites (see
// testdata/README.md for their origin and licence), each showing a stream
// shape the assembly once got wrong.

func assembleFixture(t *testing.T, name string) *model.Session {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return model.Assemble(data, capture.FormatAuto, model.Options{KeepEvents: true})
}

// TestGeminiNestedPartialArgs: Vertex streams one call as partialArgs at
// nested JSON paths, with bare {"willContinue":true} parts between
// objects. Those parts continue the call; only functionCall {} ends it.
func TestGeminiNestedPartialArgs(t *testing.T) {
	s := assembleFixture(t, "gemini-partial-args-nested__vercel-ai.chunks.txt")
	c := onlyCall(t, s)
	want := `{"recipe":{"ingredients":[` +
		`{"amount":"16 oz","name":"Lasagna noodles"},{"amount":"1 lb","name":"Ground beef"},` +
		`{"amount":"15 oz","name":"Ricotta cheese"},{"amount":"3 cups","name":"Mozzarella cheese"},` +
		`{"amount":"1/2 cup","name":"Parmesan cheese"},{"amount":"24 oz","name":"Tomato sauce"},` +
		`{"amount":"1","name":"Egg"},{"amount":"2 cloves","name":"Garlic"},` +
		`{"amount":"1 tsp","name":"Salt"},{"amount":"1/2 tsp","name":"Pepper"}],` +
		`"name":"Lasagna","steps":[` +
		`"Preheat oven to 375°F (190°C).",` +
		`"Cook lasagna noodles according to package directions, drain and set aside.",` +
		`"Brown ground beef with minced garlic in a skillet. Drain fat and stir in tomato sauce. Simmer for 10 minutes.",` +
		`"In a bowl, mix ricotta cheese, egg, salt, pepper, and Parmesan cheese.",` +
		`"In a 9x13 baking dish, spread a thin layer of meat sauce.",` +
		`"Layer noodles, ricotta mixture, mozzarella, and meat sauce. Repeat.",` +
		`"Top with remaining mozzarella cheese.",` +
		`"Cover with foil and bake for 25 minutes.",` +
		`"Remove foil and bake for another 25 minutes until golden.",` +
		`"Let stand for 15 minutes before serving."]}}`
	if c.Name != "cookRecipe" || c.FinalArgs() != want {
		t.Fatalf("call %q args = %s; want cookRecipe %s", c.Name, c.FinalArgs(), want)
	}
	if pa := c.PathArgs(); pa == nil || !pa.Ended {
		streamed, ended := pa != nil, pa != nil && pa.Ended
		t.Errorf("GeminiEnded() = %v, %v; want true, true", streamed, ended)
	}
	if got := s.CallStatus(c); got != "completed" {
		t.Errorf("status = %s; want completed", got)
	}
	// Event 5 is the first bare willContinue part: the call stays open
	// past it, with the first ingredient only.
	if got := string(c.ArgsAsOf(5)); got != `{"recipe":{"ingredients":[{"amount":"16 oz","name":"Lasagna noodles"}]}}` {
		t.Errorf("ArgsAsOf(5) = %s", got)
	}
	if c.Closed != s.Len()-1 {
		t.Errorf("closed at event %d; want the end marker, event %d", c.Closed, s.Len()-1)
	}
}

// TestAnthropicToolUseInMessageStart: with programmatic tool calling the
// message_start snapshot may already hold a finished tool_use block (and
// stop_reason), and no content_block event repeats it. The official SDK
// and vercel/ai read it from there; so must the assembly.
func TestAnthropicToolUseInMessageStart(t *testing.T) {
	s := assembleFixture(t, "anthropic-message-start-prepopulated-content__vercel-ai.chunks.txt")
	rep := s.Report()
	if len(rep.Calls) != 1 {
		t.Fatalf("calls = %s; want the tool_use of message_start", mustJSON(rep.Calls))
	}
	c := rep.Calls[0]
	if deref(c.ID) != "toolu_followup" || c.Name != "lookup_customer" || c.Arguments != `{"id":"customer_123"}` ||
		c.Kind != "tool_use" || c.Status != "completed" || c.ArgumentsJSON != "complete" {
		t.Errorf("call = %s", mustJSON(c))
	}
	if rep.Outcome.State != "completed" || rep.Outcome.Detail != "tool_use" {
		t.Errorf("outcome = %+v; want completed with message_start's stop_reason tool_use", rep.Outcome)
	}
	if got := s.Responses[0].FinishOf(0).Last(); got != "tool_use" {
		t.Errorf("stop reason = %q; want tool_use", got)
	}
}

// TestAnthropicMessageStartStopReasonOverridden: a message_delta's
// stop_reason, when one comes, is the one in force.
func TestAnthropicMessageStartStopReasonOverridden(t *testing.T) {
	in := `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude","content":[` +
		`{"type":"tool_use","id":"toolu_1","name":"f","input":{}}],"stop_reason":"tool_use","usage":{}}}` + "\n" +
		`{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{}}` + "\n" +
		`{"type":"message_stop"}` + "\n"
	s := assemble(t, in)
	c := onlyCall(t, s)
	if c.FinalArgs() != `{}` || c.CallID != "toolu_1" {
		t.Errorf("call %s args %s", c.CallID, c.FinalArgs())
	}
	if got := s.Outcome().Detail; got != "end_turn" {
		t.Errorf("outcome detail = %q; want end_turn", got)
	}
}

// TestResponsesIDRotation: GitHub Copilot gives every event a new item id
// and every response snapshot a new response id. It is still one response
// whose message is told once; items are matched by output_index.
func TestResponsesIDRotation(t *testing.T) {
	s := assembleFixture(t, "responses-copilot-id-rotation__vercel-ai.chunks.txt")
	rep := s.Report()
	want := "There are **3** letter **“r”**s in **“strawberry.”**\n\nBreakdown: **s t r a w b e r r y**  \nYou can see **r** at positions **3, 8, and 9**."
	if rep.Text != want {
		t.Errorf("text = %q; want it once: %q", rep.Text, want)
	}
	if len(s.Responses) != 1 {
		t.Fatalf("%d responses; want 1", len(s.Responses))
	}
	r := s.Responses[0]
	if r.ID != "capture-id-1" || r.Terminal != s.Len()-1 || rep.Outcome.State != "completed" {
		t.Errorf("response %q terminal %d outcome %+v", r.ID, r.Terminal, rep.Outcome)
	}
	if got := len(r.IDs); got != 2 {
		t.Errorf("response ids seen = %v; want the two rotations (in_progress, completed)", r.IDs)
	}
	var msgs, reasoning int
	for _, it := range s.Items {
		switch it.Role {
		case model.RoleMessage:
			msgs++
		case model.RoleReasoning:
			reasoning++
		}
	}
	if msgs != 1 || reasoning != 1 || len(s.Items) != 2 {
		t.Errorf("%d items (%d messages, %d reasoning); want one of each", len(s.Items), msgs, reasoning)
	}
}

func TestFixturesREADME(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("testdata", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "*.chunks.txt"))
	for _, f := range files {
		if !strings.Contains(string(readme), filepath.Base(f)) {
			t.Errorf("testdata/README.md does not name %s", filepath.Base(f))
		}
	}
}

// TestResponsesResumed: a stream resumed with starting_after=3 starts
// mid-call. Its call was opened before the resume point: the deltas are
// only the tail of the arguments, not a disagreement with .done, and the
// call id and name it learns later are no change.
func TestResponsesResumed(t *testing.T) {
	in := `data: {"type":"response.function_call_arguments.delta","sequence_number":4,"item_id":"fc_1","output_index":0,"delta":"\"Paris\"}"}` + "\n\n" +
		`data: {"type":"response.function_call_arguments.done","sequence_number":5,"item_id":"fc_1","output_index":0,"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}` + "\n\n" +
		`data: {"type":"response.output_item.done","sequence_number":6,"output_index":0,"item":{"id":"fc_1","type":"function_call","status":"completed","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}` + "\n\n" +
		`data: {"type":"response.completed","sequence_number":7,"response":{"id":"resp_1","object":"response","status":"completed","output":[{"id":"fc_1","type":"function_call","status":"completed","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Paris\"}"}]}}` + "\n\n"
	s := assemble(t, in)
	c := onlyCall(t, s)
	if !s.Responses[0].Resumed || !c.Resumed {
		t.Errorf("Resumed = %v (response), %v (call); want true, true", s.Responses[0].Resumed, c.Resumed)
	}
	if src, differ := c.SourcesDisagree(); differ {
		t.Errorf("SourcesDisagree() = %v; the resumed call's deltas are only its tail", src)
	}
	if c.FinalArgs() != `{"city":"Paris"}` || c.CallID != "call_1" || c.Name != "get_weather" || len(c.IDs) != 0 {
		t.Errorf("call %q %q args %s ids %v", c.CallID, c.Name, c.FinalArgs(), c.IDs)
	}
	// The same events from sequence_number 0 are no resumed stream.
	s = assemble(t, strings.ReplaceAll(in, `"sequence_number":4`, `"sequence_number":0`))
	if s.Responses[0].Resumed || onlyCall(t, s).Resumed {
		t.Error("a stream numbered from 0 is not resumed")
	}
}
