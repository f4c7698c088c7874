package streamdiff_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model/streamdiff"
)

// Provider streams for the tests, written as the APIs send them.

func chatChunk(choices string) string {
	return `data: {"object":"chat.completion.chunk","choices":[` + choices + `]}` + "\n\n"
}

func chatText(ch int, s string) string {
	b, _ := json.Marshal(s)
	return chatChunk(fmt.Sprintf(`{"index":%d,"delta":{"content":%s},"finish_reason":null}`, ch, b))
}

func chatCall(index int, id, name, args string) string {
	b, _ := json.Marshal(args)
	head := ""
	if id != "" {
		head = fmt.Sprintf(`"id":%q,"type":"function",`, id)
	}
	fn := fmt.Sprintf(`"arguments":%s`, b)
	if name != "" {
		fn = fmt.Sprintf(`"name":%q,`, name) + fn
	}
	return chatChunk(fmt.Sprintf(`{"index":0,"delta":{"tool_calls":[{"index":%d,%s"function":{%s}}]},"finish_reason":null}`, index, head, fn))
}

func chatFinish(ch int, reason string) string {
	return chatChunk(fmt.Sprintf(`{"index":%d,"delta":{},"finish_reason":%q}`, ch, reason))
}

const chatDone = "data: [DONE]\n\n"

// app is a stream of the test dialect, one JSON object a line.
func app(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

func appCall(id, name, delta string) string {
	b, _ := json.Marshal(delta)
	return fmt.Sprintf(`{"type":"tst.call","id":%q,"name":%q,"delta":%s}`, id, name, b)
}

func appText(s string) string {
	b, _ := json.Marshal(s)
	return fmt.Sprintf(`{"type":"tst.text","delta":%s}`, b)
}

func appFinish(reason string) string { return fmt.Sprintf(`{"type":"tst.finish","reason":%q}`, reason) }

const (
	stepStart = `{"type":"tst.step-start"}`
	stepEnd   = `{"type":"tst.step-end"}`
)

// The two steps of one turn: two parallel calls, then the answer.
var (
	provider1 = chatCall(0, "call_1", "get_weather", `{"city": `) + chatCall(0, "", "", `"Paris"}`) +
		chatCall(1, "call_2", "get_time", `{"tz": "CET"}`) + chatFinish(0, "tool_calls") + chatDone
	provider2 = chatText(0, "It is ") + chatText(0, "sunny.") + chatFinish(0, "stop") + chatDone
	appTwo    = app(stepStart,
		appCall("call_1", "get_weather", `{"city":`), appCall("call_1", "get_weather", `"Paris"}`),
		appCall("call_2", "get_time", `{"tz":"CET"}`), stepEnd,
		stepStart, appText("It is "), appText("sunny."), stepEnd, appFinish("stop"))
)

func side(name, data string) *streamdiff.Side {
	return streamdiff.Build(name, []byte(data), capture.FormatAuto, streamdiff.DefaultOptions().Ignore)
}

func legs(providers []string, appStream string) *streamdiff.Result {
	var a []*streamdiff.Side
	for i, p := range providers {
		a = append(a, side(fmt.Sprintf("provider-step%d", i+1), p))
	}
	return streamdiff.CompareLegs(a, []*streamdiff.Side{side("app", appStream)}, streamdiff.DefaultOptions())
}

func dumpJSON(r *streamdiff.Result) string {
	b, _ := json.MarshalIndent(r, "", "  ")
	return string(b)
}

// kinds lists the differences as "kind path", for comparisons.
func kinds(r *streamdiff.Result) []string {
	var out []string
	for _, d := range r.Differences {
		out = append(out, strings.TrimSpace(d.Kind.String()+" "+d.Path))
	}
	return out
}

// TestLegsStepByStep: two provider recordings, one per step, against the
// app's stream of two steps, whose arguments are the same values written
// compactly: equivalent, each step paired with its recording, and the
// report says that events were not aligned.
func TestLegsStepByStep(t *testing.T) {
	r := legs([]string{provider1, provider2}, appTwo)
	if !r.Equal() {
		t.Fatalf("not equal: %v\n%s", kinds(r), dumpJSON(r))
	}
	if r.Mode != "semantic" || !strings.Contains(r.Note, "step by step") || !strings.Contains(r.Note, "not event by event") {
		t.Errorf("mode %q note %q: want semantic, saying it compares what a client ends up with step by step", r.Mode, r.Note)
	}
	if len(r.Steps) != 2 {
		t.Fatalf("steps = %d; want 2:\n%s", len(r.Steps), dumpJSON(r))
	}
	for i, sp := range r.Steps {
		if sp.A == nil || sp.B == nil || sp.A.Session != i {
			t.Errorf("step %d = %+v; want recording %d paired with the app's step", i+1, sp, i)
		}
	}
	if r.Steps[0].B.Calls != 2 || r.Steps[1].B.Calls != 0 || r.Steps[1].B.First <= r.Steps[0].B.Last {
		t.Errorf("app steps %+v, %+v: want the calls in the first, the text in the second, in order", *r.Steps[0].B, *r.Steps[1].B)
	}
	if len(r.ASessions) != 2 || r.ASessions[1].Name != "provider-step2" {
		t.Errorf("a_sessions = %+v; want both recordings", r.ASessions)
	}
}

// TestLegsMissingRecording: the first step's recording is missing; the
// second still pairs with the app's second step (by its text), and the
// first is one step difference, not a cascade of calls and text.
func TestLegsMissingRecording(t *testing.T) {
	r := legs([]string{provider2}, appTwo)
	if got := kinds(r); len(got) != 1 || got[0] != "step" {
		t.Fatalf("differences %v; want one step difference\n%s", got, dumpJSON(r))
	}
	if d := r.Differences[0]; d.Step != 1 || !strings.Contains(d.Message, "step 1 only in B") {
		t.Errorf("difference %q (step %d); want step 1 only in B", d.Message, d.Step)
	}
	if len(r.Steps) != 2 || r.Steps[0].A != nil || r.Steps[1].A == nil {
		t.Errorf("steps %s; want the recording as step 2", dumpJSON(r))
	}
}

// TestLegsCalls: what breaks a call between the legs is said once each —
// a renamed tool with a member injected into its arguments, a changed
// value, a dropped call, an extra one — and re-serialising is nothing.
func TestLegsCalls(t *testing.T) {
	provider := chatCall(0, "call_1", "text_editor", `{"command": "view", "path": "/tmp/a"}`) +
		chatCall(1, "call_2", "get_time", `{"tz": "CET"}`) +
		chatCall(2, "call_3", "lookup", `{"q": "x"}`) + chatFinish(0, "tool_calls") + chatDone
	appStream := app(stepStart,
		appCall("call_1", "code_execution", `{"type": "text_editor", "command":"view","path":"/tmp/a"}`),
		appCall("call_3", "lookup", `{"q":"y"}`),
		appCall("call_9", "extra", `{}`), stepEnd, appFinish("tool-calls"))
	r := legs([]string{provider}, appStream)
	want := []string{"call name", "call arguments", "call", "call arguments", "call"}
	if got := kinds(r); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("differences %v; want %v\n%s", got, want, dumpJSON(r))
	}
	d := r.Differences
	if !strings.Contains(d[0].Message, `"text_editor" ≠ "code_execution"`) {
		t.Errorf("rename said %q", d[0].Message)
	}
	if ch := d[1].ArgsChanges; len(ch) != 1 || ch[0].Path != "/type" || ch[0].A != nil || string(ch[0].B) != `"text_editor"` {
		t.Errorf("injected member: changes %+v; want /type only in B", ch)
	}
	if !strings.Contains(d[2].Message, "get_time id call_2 only in A") {
		t.Errorf("dropped call said %q", d[2].Message)
	}
	if ch := d[3].ArgsChanges; len(ch) != 1 || ch[0].Path != "/q" {
		t.Errorf("changed value: changes %+v; want /q", ch)
	}
	if !strings.Contains(d[4].Message, "extra id call_9 only in B") {
		t.Errorf("extra call said %q", d[4].Message)
	}
	for _, x := range d {
		if x.Step != 1 {
			t.Errorf("%q: step %d; want 1", x.Message, x.Step)
		}
	}
}

// TestLegsCallsByNameAndOrder: calls whose ids differ pair by name, then
// in order; empty arguments are {}.
func TestLegsCallsByNameAndOrder(t *testing.T) {
	provider := chatCall(0, "a", "ping", ``) + chatCall(1, "b", "get_time", `{"tz":"CET"}`) + chatFinish(0, "tool_calls") + chatDone
	appStream := app(stepStart, appCall("x", "get_time", `{"tz":"CET"}`), appCall("y", "ping", `{}`), stepEnd, appFinish("tool-calls"))
	if r := legs([]string{provider}, appStream); !r.Equal() {
		t.Errorf("differences %v; want none (ids ignored, calls paired by name, \"\" as {})\n%s", kinds(r), dumpJSON(r))
	}
}

// TestLegsOutcome: the provider's end says the app's finish: its terminal
// event (a finish), a cut (interrupted, or a cut body), an error (the
// error's text passed on or not), a refusal (a block).
func TestLegsOutcome(t *testing.T) {
	cut := chatText(0, "Hel")
	anthropic := func(end string) string {
		return "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[]}}\n\n" +
			"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hel\"}}\n\n" +
			"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
			"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"}}\n\n" +
			"event: message_stop\ndata: {\"type\":\"message_stop\"}" + end
	}
	quota := `data: {"error":{"message":"You exceeded your current quota","type":"insufficient_quota"}}` + "\n\n"
	refusal := chatChunk(`{"index":0,"delta":{"refusal":"I can't"},"finish_reason":null}`) + chatFinish(0, "stop") + chatDone
	text := app(stepStart, appText("Hel"), stepEnd)
	for _, tt := range []struct {
		name, provider, app string
		want                []string
	}{
		{"finished", chatText(0, "Hel") + chatFinish(0, "stop") + chatDone, text + app(appFinish("stop")), nil},
		{"cut and interrupted", cut, text + app(appFinish("interrupted")), nil},
		{"cut and the app's body cut too", cut, app(stepStart, appText("Hel")), nil},
		{"finished but interrupted", chatText(0, "Hel") + chatFinish(0, "stop") + chatDone, text + app(appFinish("interrupted")), []string{"outcome state"}},
		{"cut but finished", cut, text + app(appFinish("stop")), []string{"outcome state"}},
		{"terminal event never dispatched, interrupted", anthropic(""), text + app(appFinish("interrupted")), nil},
		{"terminal event dispatched, interrupted", anthropic("\n\n"), text + app(appFinish("interrupted")), []string{"outcome state"}},
		{"limit", chatText(0, "Hel") + chatFinish(0, "length") + chatDone, text + app(appFinish("length")), nil},
		{"limit lost", chatText(0, "Hel") + chatFinish(0, "length") + chatDone, text + app(appFinish("stop")), []string{"outcome state"}},
		{"error passed on", quota, app(`{"type":"tst.error","error":{"message":"You exceeded your current quota"}}`), nil},
		{"error masked", quota, app(`{"type":"tst.error","error":{"message":"An error occurred."}}`), []string{"outcome error"}},
		{"error lost", quota, app(stepStart, stepEnd, appFinish("stop")), []string{"outcome state"}},
		{"refusal as text", refusal, app(stepStart, appText("I can't"), stepEnd, appFinish("content-filter")), nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := legs([]string{tt.provider}, tt.app)
			if got := kinds(r); strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("differences %v; want %v\n%s", got, tt.want, dumpJSON(r))
			}
		})
	}
}

// TestLegsMergedChoices: n>1 choices that the app's client takes for one
// text (their fragments interleaved) are one difference that says so.
func TestLegsMergedChoices(t *testing.T) {
	provider := chatText(0, "{\"a\"") + chatText(1, "{\"b\"") + chatText(0, ":1}") + chatText(1, ":2}") +
		chatFinish(0, "stop") + chatFinish(1, "stop") + chatDone
	r := legs([]string{provider}, app(stepStart, appText(`{"a"{"b":1}:2}`), stepEnd, appFinish("stop")))
	if got := kinds(r); len(got) != 1 || got[0] != "text text" {
		t.Fatalf("differences %v; want one text difference\n%s", got, dumpJSON(r))
	}
	if m := r.Differences[0].Message; !strings.Contains(m, "A's 2 choices are one text in B") || !strings.Contains(m, "merged") {
		t.Errorf("message %q; want it to say the 2 choices were merged", m)
	}
	// Merged in another order is not this: each choice is compared.
	r = legs([]string{provider}, app(stepStart, appText(`{"a":1}{"b":2}`), stepEnd, appFinish("stop")))
	if got := kinds(r); strings.Join(got, ",") != "text text[0],text text[1]" {
		t.Errorf("differences %v; want text[0] and text[1]\n%s", got, dumpJSON(r))
	}
}

// TestLegsReasoning: reasoning is compared too, as text.
func TestLegsReasoning(t *testing.T) {
	provider := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[]}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"Let me think.\"}}\n\n" +
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	same := app(stepStart, `{"type":"tst.reasoning","delta":"Let me think."}`, stepEnd, appFinish("stop"))
	if r := legs([]string{provider}, same); !r.Equal() {
		t.Errorf("differences %v; want none\n%s", kinds(r), dumpJSON(r))
	}
	r := legs([]string{provider}, app(stepStart, `{"type":"tst.reasoning","delta":"Let me"}`, stepEnd, appFinish("stop")))
	if got := kinds(r); len(got) != 1 || got[0] != "reasoning reasoning" {
		t.Errorf("differences %v; want one reasoning difference\n%s", got, dumpJSON(r))
	}
	// Reasoning the app does not pass on at all is no difference.
	if r := legs([]string{provider}, app(stepStart, stepEnd, appFinish("stop"))); !r.Equal() {
		t.Errorf("no reasoning in the app: differences %v; want none", kinds(r))
	}
}
