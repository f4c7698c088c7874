package checks

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/samples"
)

// Schemas of get_weather's arguments for the request cases: the base
// streams call it with {"city":"Paris"}.
const (
	// cityOnly and needUnits are shared (builders_test.go).
	cityInt = `{"type":"object","properties":{"city":{"type":"integer"}}}`
	// open says nothing of other properties or what is required: strict
	// mode closes it.
	open = `{"type":"object","properties":{"country":{"type":"string"}}}`
)

// Request bodies, one builder per dialect.
func respReq(tools, extra string) string {
	return `{"model":"gpt-5","input":"weather?","stream":true,"tools":[` + tools + `]` + extra + `}`
}

func respFn(name, schema string, strict bool) string {
	s := `{"type":"function","name":"` + name + `","parameters":` + schema
	if strict {
		s += `,"strict":true`
	}
	return s + `}`
}

func chatReq(tools, extra string) string {
	return `{"model":"gpt-4o","messages":[{"role":"user","content":"weather?"}],"stream":true,"tools":[` + tools + `]` + extra + `}`
}

func chatFn(name, schema string) string {
	return `{"type":"function","function":{"name":"` + name + `","parameters":` + schema + `}}`
}

func anthReq(tools, extra string) string {
	return `{"model":"claude","max_tokens":100,"messages":[{"role":"user","content":"weather?"}],"stream":true,"tools":[` + tools + `]` + extra + `}`
}

func gemReq(decls, extra string) string {
	return `{"contents":[{"role":"user","parts":[{"text":"weather?"}]}],"tools":[{"functionDeclarations":[` + decls + `]}]` + extra + `}`
}

func gemDecl(name, schema string) string {
	return `{"name":"` + name + `","parameters":` + schema + `}`
}

// withRequest gives a case the request its stream answers.
func withRequest(tc ruleCase, req string) ruleCase {
	tc.request = req
	return tc
}

// Streams for the request cases besides the dialects' bases.
var (
	// respCustom is a Responses custom tool call with input in (events
	// 0–5; the item closes at 4).
	respCustom = func(in string) string {
		item := func(status, input string) string {
			return `{"id":"ctc_1","type":"custom_tool_call","status":"` + status + `","call_id":"call_1","name":"lookup_phone","input":"` + input + `"}`
		}
		return respSSE([]revt{
			{Typ: "response.created", Body: `"response":` + respObj("in_progress", `[]`)},
			{Typ: "response.output_item.added", Body: `"output_index":0,"item":` + item("in_progress", "")},
			{Typ: "response.custom_tool_call_input.delta", Body: `"item_id":"ctc_1","output_index":0,"delta":"` + in + `"`},
			{Typ: "response.custom_tool_call_input.done", Body: `"item_id":"ctc_1","output_index":0,"input":"` + in + `"`},
			{Typ: "response.output_item.done", Body: `"output_index":0,"item":` + item("completed", in)},
			{Typ: "response.completed", Body: `"response":` + respObj("completed", "["+item("completed", in)+"]")},
		})
	}
	// chatStop is chatBase finished with "stop" after its call.
	chatStop = chat(func(p []string) []string {
		p[3] = chunk(choice(`{}`, `"stop"`))
		return p
	})
	// chatText is a text-only Chat stream ending with reason (events 0–3).
	chatText = func(reason string) string {
		return dataSSE([]string{
			chunk(choice(`{"role":"assistant","content":"It is sunny."}`, "null")),
			chunk(choice(`{}`, reason)),
			usageChunk, "[DONE]",
		})
	}
	// chatTwo is two calls in one choice (events 0–4; the calls open at
	// 0 and 1).
	chatTwo = dataSSE([]string{
		chunk(choice(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]}`, "null")),
		tcs(`{"index":1,"id":"call_2","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Rome\"}"}}`),
		chunk(choice(`{}`, `"tool_calls"`)),
		usageChunk, "[DONE]",
	})
	// anthText is an Anthropic message with text only (events 0–5).
	anthText = anthSSE([][2]string{
		aMsgStart,
		aStart(0, `{"type":"text","text":""}`),
		aDelta(0, `{"type":"text_delta","text":"It is sunny."}`),
		aStop(0),
		aMsgDelta(`"end_turn"`),
		aMsgStop,
	})
	// anthTwo adds a second tool_use block (events 9–11) to anthBase.
	anthTwo = anth(func(e [][2]string) [][2]string {
		return slices.Insert(e, 9,
			aStart(2, `{"type":"tool_use","id":"toolu_2","name":"get_weather","input":{}}`),
			aJSON(2, `"{\"city\":\"Rome\"}"`),
			aStop(2))
	})
	// anthServer is a server tool (code execution) run by the provider,
	// its name not the declared one, then text (events 0–7).
	anthServer = anthSSE([][2]string{
		aMsgStart,
		aStart(0, `{"type":"server_tool_use","id":"srvtoolu_1","name":"text_editor_code_execution","input":{}}`),
		aJSON(0, `"{\"command\":\"view\",\"path\":\"/tmp/x\"}"`),
		aStop(0),
		aStart(1, `{"type":"text_editor_code_execution_tool_result","tool_use_id":"srvtoolu_1","content":{"type":"text_editor_code_execution_view_result","content":"x"}}`),
		aStop(1),
		aMsgDelta(`"end_turn"`),
		aMsgStop,
	})
)

func requestCases() []ruleCase {
	respStream := resp(func(e []revt) []revt { return e })
	chatStream := chat(func(p []string) []string { return p })
	anthStream := anth(func(e [][2]string) [][2]string { return e })
	gemStream := dataSSE(gemBase())
	warn, errSev := sevp(Warning), sevp(Error)
	sev := func(tc ruleCase, s *Severity) ruleCase { tc.sev = s; return tc }
	return []ruleCase{
		// request/args-schema: every dialect, strict and not.
		sev(withRequest(hit(qArgsSchema, "responses strict: units missing", respStream, 6),
			respReq(respFn("get_weather", needUnits, true), "")), errSev),
		sev(withRequest(hit(qArgsSchema, "responses non-strict: units missing", respStream, 6),
			respReq(respFn("get_weather", needUnits, false), "")), warn),
		withRequest(miss(qArgsSchema, "responses arguments match", respStream),
			respReq(respFn("get_weather", cityOnly, true), "")),
		sev(withRequest(hit(qArgsSchema, "responses strict closes an open schema", respStream, 6),
			respReq(respFn("get_weather", open, true), "")), errSev),
		withRequest(miss(qArgsSchema, "responses non-strict open schema allows more", respStream),
			respReq(respFn("get_weather", open, false), "")),
		sev(withRequest(hit(qArgsSchema, "responses custom input fails the regex grammar", respCustom("555-123"), 4),
			respReq(`{"type":"custom","name":"lookup_phone","format":{"type":"grammar","syntax":"regex","definition":"\\d{3}-\\d{3}-\\d{4}"}}`, "")), errSev),
		withRequest(miss(qArgsSchema, "responses custom input matches the regex grammar", respCustom("555-123-4567")),
			respReq(`{"type":"custom","name":"lookup_phone","format":{"type":"grammar","syntax":"regex","definition":"\\d{3}-\\d{3}-\\d{4}"}}`, "")),
		withRequest(miss(qArgsSchema, "responses custom lark grammar is not checked", respCustom("555-123")),
			respReq(`{"type":"custom","name":"lookup_phone","format":{"type":"grammar","syntax":"lark","definition":"start: /x/"}}`, "")),
		sev(withRequest(hit(qArgsSchema, "chat city is not an integer", chatStream, 3),
			chatReq(chatFn("get_weather", cityInt), "")), warn),
		withRequest(miss(qArgsSchema, "chat arguments match", chatStream),
			chatReq(chatFn("get_weather", cityOnly), "")),
		withRequest(hit(qArgsSchema, "anthropic units missing", anthStream, 8),
			anthReq(anthTool("get_weather", needUnits), "")),
		withRequest(hit(qArgsSchema, "anthropic empty input is {}", anth(func(e [][2]string) [][2]string {
			return slices.Delete(e, 6, 8) // only the "" fragment is left
		}), 6),
			anthReq(anthTool("get_weather", needUnits), "")),
		withRequest(miss(qArgsSchema, "anthropic arguments match", anthStream),
			anthReq(anthTool("get_weather", cityOnly), "")),
		withRequest(hit(qArgsSchema, "gemini OpenAPI INTEGER", gemStream, 1),
			gemReq(gemDecl("get_weather", `{"type":"OBJECT","properties":{"city":{"type":"INTEGER"}}}`), "")),
		withRequest(miss(qArgsSchema, "gemini OpenAPI STRING, nullable", gemStream),
			gemReq(gemDecl("get_weather", `{"type":"OBJECT","properties":{"city":{"type":"STRING","nullable":true},"units":{"type":"STRING","enum":["c","f"],"nullable":true}},"required":["city"],"propertyOrdering":["city"],"minProperties":"1"}`), "")),
		withRequest(hit(qArgsSchema, "gemini parametersJsonSchema", gemStream, 1),
			`{"tools":[{"functionDeclarations":[{"name":"get_weather","parametersJsonSchema":`+needUnits+`}]}]}`),

		// request/schema-invalid
		withRequest(hit(qSchemaInvalid, "responses unknown type", respStream, 6),
			respReq(respFn("get_weather", `{"type":"objekt"}`, false), "")),
		withRequest(hit(qSchemaInvalid, "a $ref to a file is refused, not read", respStream, 6),
			respReq(respFn("get_weather", `{"$ref":"file:///etc/passwd"}`, false), "")),
		withRequest(hit(qSchemaInvalid, "a $ref cycle, found while validating", respStream, 6),
			respReq(respFn("get_weather", `{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/a"}}}`, false), "")),
		withRequest(hit(qSchemaInvalid, "chat schema not JSON Schema", chatStream, 3),
			chatReq(chatFn("get_weather", `{"type":"object","required":"city"}`), "")),
		withRequest(miss(qSchemaInvalid, "gemini upper-case types are translated", gemStream),
			gemReq(gemDecl("get_weather", `{"type":"OBJECT","properties":{"city":{"type":"STRING"}},"minItems":"2"}`), "")),
		withRequest(miss(qSchemaInvalid, "a pattern Go cannot compile is not invalid", respStream),
			respReq(respFn("get_weather", `{"type":"object","properties":{"city":{"type":"string","pattern":"^(?!x)"}}}`, false), "")),

		// request/tool-undeclared
		withRequest(hit(qUndeclared, "responses", respStream, 2),
			respReq(respFn("get_time", cityOnly, false), "")),
		withRequest(hit(qUndeclared, "chat, no tools at all", chatStream, 0), `{"model":"gpt-4o","messages":[]}`),
		withRequest(hit(qUndeclared, "anthropic", anthStream, 4), anthReq(anthTool("get_time", cityOnly), "")),
		withRequest(hit(qUndeclared, "gemini", gemStream, 1), gemReq(gemDecl("get_time", cityOnly), "")),
		withRequest(miss(qUndeclared, "responses declared", respStream), respReq(respFn("get_weather", cityOnly, false), "")),
		withRequest(miss(qUndeclared, "a stored prompt may declare it", respStream), `{"prompt":{"id":"pmpt_1"},"input":"x"}`),
		withRequest(miss(qUndeclared, "anthropic server tool under another name", anthServer),
			anthReq(`{"type":"code_execution_20250825","name":"code_execution"}`, "")),
		withRequest(miss(qUndeclared, "anthropic typed client tool", anth(func(e [][2]string) [][2]string {
			e[4] = aStart(1, `{"type":"tool_use","id":"toolu_1","name":"str_replace_based_edit_tool","input":{}}`)
			return e
		})), anthReq(`{"type":"text_editor_20250728","name":"str_replace_based_edit_tool"}`, "")),

		// request/tool-type-mismatch
		withRequest(hit(qTypeMismatch, "function_call of a custom tool", respStream, 2),
			respReq(`{"type":"custom","name":"get_weather"}`, "")),
		withRequest(hit(qTypeMismatch, "custom_tool_call of a function", respCustom("555-123-4567"), 1),
			respReq(respFn("lookup_phone", cityOnly, false), "")),
		withRequest(miss(qTypeMismatch, "function_call of a function", respStream), respReq(respFn("get_weather", cityOnly, false), "")),

		// request/tool-choice-violated
		withRequest(hit(qChoice, "responses none with a call", respStream, 2),
			respReq(respFn("get_weather", cityOnly, false), `,"tool_choice":"none"`)),
		withRequest(miss(qChoice, "responses auto with a call", respStream),
			respReq(respFn("get_weather", cityOnly, false), `,"tool_choice":"auto"`)),
		withRequest(hit(qChoice, "chat required, text only", chatText(`"stop"`), 1),
			chatReq(chatFn("get_weather", cityOnly), `,"tool_choice":"required"`)),
		withRequest(miss(qChoice, "chat required, cut by the length limit", chatText(`"length"`)),
			chatReq(chatFn("get_weather", cityOnly), `,"tool_choice":"required"`)),
		withRequest(hit(qChoice, "chat named function, another called", chatStream, 0),
			chatReq(chatFn("get_weather", cityOnly)+","+chatFn("get_time", cityOnly), `,"tool_choice":{"type":"function","function":{"name":"get_time"}}`)),
		withRequest(miss(qChoice, "chat named function called", chatStream),
			chatReq(chatFn("get_weather", cityOnly), `,"tool_choice":{"type":"function","function":{"name":"get_weather"}}`)),
		withRequest(hit(qChoice, "anthropic any, text only", anthText, 4),
			anthReq(anthTool("get_weather", cityOnly), `,"tool_choice":{"type":"any"}`)),
		withRequest(miss(qChoice, "anthropic any, a server tool used", anthServer),
			anthReq(`{"type":"code_execution_20250825","name":"code_execution"}`, `,"tool_choice":{"type":"any"}`)),
		withRequest(hit(qChoice, "gemini allowed names", gemStream, 1),
			gemReq(gemDecl("get_weather", cityOnly)+","+gemDecl("get_time", cityOnly), `,"toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["get_time"]}}`)),
		withRequest(miss(qChoice, "gemini ANY with a call", gemStream),
			gemReq(gemDecl("get_weather", cityOnly), `,"toolConfig":{"functionCallingConfig":{"mode":"ANY"}}`)),

		// chat/stop-with-tool-calls: "stop" is what OpenAI answers a
		// named tool_choice with, so it is silent then; under "required"
		// it is tolerated: info, not warning.
		withRequest(miss("chat/stop-with-tool-calls", "stop after a named forced call", chatStop),
			chatReq(chatFn("get_weather", cityOnly), `,"tool_choice":{"type":"function","function":{"name":"get_weather"}}`)),
		sev(withRequest(hit("chat/stop-with-tool-calls", "stop after a required call", chatStop, 0, 3),
			chatReq(chatFn("get_weather", cityOnly), `,"tool_choice":"required"`)), sevp(Info)),
		sev(withRequest(hit("chat/stop-with-tool-calls", "stop after a call under auto", chatStop, 0, 3),
			chatReq(chatFn("get_weather", cityOnly), `,"tool_choice":"auto"`)), warn),

		// request/parallel-disabled
		withRequest(hit(qParallel, "chat two calls", chatTwo, 0, 1),
			chatReq(chatFn("get_weather", cityOnly), `,"parallel_tool_calls":false`)),
		withRequest(miss(qParallel, "chat two calls allowed", chatTwo),
			chatReq(chatFn("get_weather", cityOnly), `,"parallel_tool_calls":true`)),
		withRequest(miss(qParallel, "chat one call", chatStream),
			chatReq(chatFn("get_weather", cityOnly), `,"parallel_tool_calls":false`)),
		withRequest(hit(qParallel, "anthropic two tool_use blocks", anthTwo, 4, 9),
			anthReq(anthTool("get_weather", cityOnly), `,"tool_choice":{"type":"auto","disable_parallel_tool_use":true}`)),
		withRequest(miss(qParallel, "responses one call", respStream),
			respReq(respFn("get_weather", cityOnly, false), `,"parallel_tool_calls":false`)),
	}
}

// TestRequestMessages: a schema failure names the tool, the call id, the
// JSON pointer, the message and the keyword; the other rules name what
// was asked and what came.
func TestRequestMessages(t *testing.T) {
	t.Parallel()
	respStream := resp(func(e []revt) []revt { return e })
	for _, tt := range []struct {
		name, stream, req, rule, want string
	}{
		{"enum", resp(func(e []revt) []revt {
			e[6].Body = `"output_index":0,"item":` + fc("arguments", `"{\"city\":\"Paris\",\"units\":\"k\"}"`)
			return e
		}), respReq(respFn("get_weather", cityOnly, true), ""), qArgsSchema,
			`the arguments of call get_weather, complete at event 6, break its schema: /units: value must be one of 'c', 'f' [enum] — id "call_1"`},
		{"required", respStream, respReq(respFn("get_weather", needUnits, true), ""), qArgsSchema,
			`the arguments of call get_weather, complete at event 6, break its schema: (root): missing property 'units' [required]`},
		{"undeclared", respStream, respReq(respFn("get_time", cityOnly, false), ""), qUndeclared,
			`call get_weather at event 2 names a tool the request does not declare; it declares get_time — id "call_1"`},
		{"none", respStream, respReq(respFn("get_weather", cityOnly, false), `,"tool_choice":"none"`), qChoice,
			`tool_choice is "none", but response resp_1 made 1 call: get_weather (call_1) at event 2`},
		{"parallel", chatTwo, chatReq(chatFn("get_weather", cityOnly), `,"parallel_tool_calls":false`), qParallel,
			`the request disables parallel tool calls, but response chatcmpl-1 made 2 calls: get_weather (call_1) at event 0, get_weather (call_2) at event 1`},
	} {
		rep := checkWithRequest(tt.stream, tt.req, Strict)
		got := findings(rep, tt.rule)
		if len(got) != 1 || !strings.Contains(got[0].Message, tt.want) {
			t.Errorf("%s: %s findings %v; want one whose message contains %q", tt.name, tt.rule, got, tt.want)
		}
	}
}

// TestRequestBasesClean: each dialect's clean stream, with a request that
// declares its call well, yields no finding at all.
func TestRequestBasesClean(t *testing.T) {
	t.Parallel()
	for name, c := range map[string][2]string{
		"responses": {respSSE(respBase()), respReq(respFn("get_weather", cityOnly, true), `,"tool_choice":"required","parallel_tool_calls":false`)},
		"chat":      {dataSSE(chatBase()), chatReq(chatFn("get_weather", cityOnly), `,"tool_choice":"auto"`)},
		"anthropic": {anthSSE(anthBase()), anthReq(anthTool("get_weather", cityOnly), `,"tool_choice":{"type":"any","disable_parallel_tool_use":true}`)},
		"gemini":    {dataSSE(gemBase()), gemReq(gemDecl("get_weather", `{"type":"OBJECT","properties":{"city":{"type":"STRING"}},"required":["city"]}`), "")},
	} {
		rep := checkWithRequest(c[0], c[1], Strict)
		if len(rep.Findings) > 0 {
			t.Errorf("%s: findings %v; want none", name, rep.Findings)
		}
	}
}

// TestRequestSilentWithout: the same streams without a request, or with a
// body that is not an LLM request, give no request finding.
func TestRequestSilentWithout(t *testing.T) {
	t.Parallel()
	for _, tc := range requestCases() {
		if !tc.hit {
			continue
		}
		for _, req := range []string{"", "not json", "[]"} {
			var rep Report
			if req == "" {
				rep = CheckBytes([]byte(tc.stream), capture.FormatAuto, Strict)
			} else {
				rep = checkWithRequest(tc.stream, req, Strict)
			}
			for _, f := range rep.Findings {
				if strings.HasPrefix(f.Rule, "request/") {
					t.Errorf("%s with request %q: %v; want no request finding", tc.name, req, f)
				}
			}
		}
	}
}

// TestRequestCompiledOnce: a tool's schema is compiled on its first call
// and reused by every Report after, and a call is validated once.
func TestRequestCompiledOnce(t *testing.T) {
	t.Parallel()
	opts, c := Attach(model.Options{})
	r := model.ParseRequest([]byte(chatReq(chatFn("get_weather", needUnits), "")), "/")
	c.SetRequest(&r)
	s := model.Assemble([]byte(chatTwo), capture.FormatAuto, opts)
	first := c.Report(s, Strict)
	tc := c.req.tools["get_weather"]
	if tc == nil || tc.schema == nil {
		t.Fatalf("tools = %v; want get_weather compiled", c.req.tools)
	}
	if len(c.req.verdicts) != 2 {
		t.Errorf("verdicts = %d; want the 2 calls judged", len(c.req.verdicts))
	}
	again := c.Report(s, Strict)
	if c.req.tools["get_weather"] != tc {
		t.Error("the schema was compiled again by the second Report")
	}
	if !slices.EqualFunc(first.Findings, again.Findings, sameFinding) || len(findings(again, qArgsSchema)) != 2 {
		t.Errorf("second Report = %v; want the first's %v, two args-schema findings", again.Findings, first.Findings)
	}
}

// TestRequestHugeArgsNotValidated: arguments over maxValidatedArgs are not
// decoded for the validator.
func TestRequestHugeArgsNotValidated(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", maxValidatedArgs)
	stream := dataSSE([]string{
		chunk(choice(`{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"`+big+`\",\"n\":1}"}}]}`, "null")),
		chunk(choice(`{}`, `"tool_calls"`)), "[DONE]",
	})
	rep := checkWithRequest(stream, chatReq(chatFn("get_weather", needUnits), ""), Strict)
	if got := findings(rep, qArgsSchema); len(got) > 0 {
		t.Errorf("findings %v; want none: the arguments are over the limit", got)
	}
	small := strings.Replace(stream, big, "Paris", 1)
	if got := findings(checkWithRequest(small, chatReq(chatFn("get_weather", needUnits), ""), Strict), qArgsSchema); len(got) != 1 {
		t.Errorf("small arguments: findings %v; want one", got)
	}
}

// TestRequestFromRecording: a timed recording's header carries the
// request body; the Checker reads it from the first frame, and a request
// given by SetRequest wins over it.
func TestRequestFromRecording(t *testing.T) {
	t.Parallel()
	rec := func(body string) string {
		return capture.RecordingMagic + "\n: request POST https://api.openai.com/v1/chat/completions\n" +
			": request-body " + body + "\n: response HTTP/1.1 200 OK\n: response-header Content-Type: text/event-stream\n\n" + chatTwo
	}
	undeclared := rec(chatReq(chatFn("get_time", cityOnly), `,"parallel_tool_calls":false`))
	rep := CheckBytes([]byte(undeclared), capture.FormatAuto, Strict)
	if got := findings(rep, qUndeclared); len(got) != 2 || !slices.Equal(got[0].Events, []int{1}) {
		t.Errorf("undeclared findings %v; want one per call, the first at event 1 (the header is event 0)", got)
	}
	if got := findings(rep, qParallel); len(got) != 1 {
		t.Errorf("parallel findings %v; want one", got)
	}
	if got := findings(CheckBytes([]byte(rec(`{"not":"json"`)), capture.FormatAuto, Strict), qUndeclared); len(got) > 0 {
		t.Errorf("a request body that is not JSON: %v; want nothing", got)
	}
	opts, c := Attach(model.Options{})
	r := model.ParseRequest([]byte(chatReq(chatFn("get_weather", cityOnly), "")), "/")
	c.SetRequest(&r)
	s := model.Assemble([]byte(undeclared), capture.FormatAuto, opts)
	for _, f := range c.Report(s, Strict).Findings {
		if strings.HasPrefix(f.Rule, "request/") {
			t.Errorf("with SetRequest: %v; want the given request to win over the recording's", f)
		}
	}
}

// TestRequestFromWebSocket: a Responses WebSocket session's request is the
// first response.create the client sent, which a recording keeps as a
// comment: the request rules judge the first response against it, as the
// proxy does live. The sample declares get_weather and calls it; declared
// under another name, the call is undeclared.
func TestRequestFromWebSocket(t *testing.T) {
	t.Parallel()
	data, err := samples.Open("responses-websocket-turns")
	if err != nil {
		t.Fatal(err)
	}
	if got := requestFindings(CheckBytes(data, capture.FormatAuto, Strict)); len(got) > 0 {
		t.Errorf("the sample as recorded: %v; want no request finding", got)
	}
	first := bytes.Index(data, []byte(`"tools":[{"type":"function","name":"get_weather"`))
	if first < 0 {
		t.Fatal("the sample's first response.create declares no get_weather")
	}
	renamed := slices.Concat(data[:first], bytes.Replace(data[first:], []byte(`"name":"get_weather"`), []byte(`"name":"get_time"`), 1))
	rep := CheckBytes(renamed, capture.FormatAuto, Strict)
	if got := findings(rep, qUndeclared); len(got) != 1 {
		t.Errorf("undeclared findings %v; want one, for the first response's call", got)
	}
}

// requestFindings are rep's findings of the request rules.
func requestFindings(rep Report) []Finding {
	var out []Finding
	for _, f := range rep.Findings {
		if strings.HasPrefix(f.Rule, "request/") {
			out = append(out, f)
		}
	}
	return out
}
