package samples_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/samples"
)

// call is a call a sample was written to contain. An empty id means the
// dialect gives none (the report's id is null).
type call struct {
	id, name, args string
}

const (
	parisArgs  = `{"location": "Paris, France", "unit": "celsius"}`
	gapText    = "Sure Paris — one moment."
	gapDone    = "Sure, checking the forecast for Paris — one moment."
	flightsSum = "**Finding flights from SFO to Tokyo**\n\nThe user wants a one-way economy flight on October 14. " +
		"Narita (NRT) is the usual choice, so I'll search SFO to NRT for that date."
	thinking = "The user wants 250 euros in Japanese yen. I shouldn't guess the rate; the convert_currency tool " +
		"gives a live one. Amount 250, from EUR, to JPY."
)

// cases holds what each sample was designed to carry. Samples whose name
// does not start with "broken-" must also be clean: every call completed,
// with complete JSON arguments on which all sources agree. Broken samples
// check the defect they show in check.
var cases = []struct {
	name    string
	dialect string
	calls   []call
	text    string
	outcome string
	seqGaps [][2]int64 // Responses: sequence_number jumps (from, to)
	check   func(t *testing.T, s *model.Session, data []byte)
}{
	{
		name:    "aisdk-data-two-steps",
		dialect: "aisdk-data",
		calls:   []call{{"call_Qm3vX8kTz1LpW4rNa7YcB2dE", "get_weather", `{"city": "Lisbon"}`}},
		text:    "Checking the weather.It is 19 °C in Lisbon.",
		outcome: "completed",
		check: func(t *testing.T, s *model.Session, _ []byte) {
			it := s.Calls()[0]
			if it.Args.Count() != 3 || it.Args.Frags[0].End != 0 {
				t.Errorf("argument fragments %v; want 3, the first empty", it.Args.Frags)
			}
			if run := it.Run(); run == nil || string(run.Output) != `{"celsius":19}` || it.StatusLast() != model.ToolOutputAvailable {
				t.Errorf("run %+v, status %s; want the a: result", run, it.StatusLast())
			}
			if steps := s.Steps(s.Responses[0]); len(steps) != 2 || s.StepOf(it) != 1 {
				t.Errorf("steps %v, the call's %d; want 2 steps, the call in the first", steps, s.StepOf(it))
			}
		},
	},
	{
		name:    "aisdk-ui-call-output",
		dialect: "aisdk-ui",
		calls:   []call{{"call_Qm3vX8kTz1LpW4rNa7YcB2dE", "get_weather", `{"city": "Lisbon", "unit": "c"}`}},
		text:    "I'll look up the weather in Lisbon.",
		outcome: "completed",
		check: func(t *testing.T, s *model.Session, _ []byte) {
			it := s.Calls()[0]
			if run := it.Run(); run == nil || string(run.Output) != `{"city":"Lisbon","celsius":19,"sky":"clear"}` || it.StatusLast() != model.ToolOutputAvailable {
				t.Errorf("run %+v, status %s; want the output", run, it.StatusLast())
			}
			if st, ok := it.Statement(model.SourceAdded); !ok || st.Value != `{"city":"Lisbon","unit":"c"}` {
				t.Errorf("input %+v; want the parsed input, compact", st)
			}
		},
	},
	{
		name:    "aisdk-ui-two-steps",
		dialect: "aisdk-ui",
		calls:   []call{{"toolu_01Hf3KqZ8yXw2VbN5mRt7LcD", "get_stock_price", `{"ticker": "NVDA"}`}},
		text:    "NVIDIA (NVDA) trades at $181.20.",
		outcome: "completed",
		check: func(t *testing.T, s *model.Session, _ []byte) {
			it := s.Calls()[0]
			if run := it.Run(); run == nil || run.Preliminary != 1 || string(run.Output) != `{"ticker":"NVDA","usd":181.2}` {
				t.Errorf("run %+v; want one preliminary output, then the final one", run)
			}
			if len(s.Responses) != 1 || len(s.Steps(s.Responses[0])) != 2 {
				t.Errorf("%d responses; want one message of two steps", len(s.Responses))
			}
			if r := reasoning(t, s); r.Text.String() != "The user wants NVIDIA's price. I'll call get_stock_price." || !strings.HasPrefix(r.Sign.String(), "ErUBCkYIBxgC") {
				t.Errorf("reasoning %q, signature %q; want the thinking and its signature from providerMetadata", r.Text.String(), r.Sign.String())
			}
		},
	},
	{
		name:    "anthropic-text-then-tool",
		dialect: "anthropic",
		calls:   []call{{"toolu_01pbtswjNQZ9Z6ud3RhsJw2A", "get_weather", parisArgs}},
		text:    "I'll look up the current weather in Paris for you.",
		outcome: "completed",
		check: func(t *testing.T, s *model.Session, _ []byte) {
			it := s.Calls()[0]
			if f := it.Args.Frags; len(f) == 0 || f[0].End != 0 {
				t.Errorf("first partial_json fragment = %v; want an empty one", f)
			}
			first, last := int(it.Args.Frags[0].Ordinal), int(it.Args.Frags[len(it.Args.Frags)-1].Ordinal)
			pings := 0
			for i := range last - first {
				ev := s.Events.At(first + i)
				if ev.Kind == model.KindKeepalive && s.TypeName(ev.Name) == "ping" {
					pings++
				} else if ev.Kind == model.KindKeepalive {
					t.Errorf("event %d: keepalive %q; want ping", first+i, s.TypeName(ev.Type))
				}
			}
			if pings == 0 {
				t.Error("no ping between the tool_use block's deltas")
			}
			if got := s.Outcome().Detail; got != "tool_use" {
				t.Errorf("stop_reason = %q; want tool_use", got)
			}
		},
	},
	{
		name:    "anthropic-thinking-then-tool",
		dialect: "anthropic",
		calls:   []call{{"toolu_01IliHchXT5Yzc2MLm6OxZYn", "convert_currency", `{"amount": 250, "from": "EUR", "to": "JPY"}`}},
		outcome: "completed",
		check: func(t *testing.T, s *model.Session, _ []byte) {
			it := reasoning(t, s)
			if it.Type != "thinking" || it.Text.String() != thinking {
				t.Errorf("thinking block %s = %q; want thinking %q", it.Type, it.Text.String(), thinking)
			}
			if len(it.Sign.Frags) != 1 || !strings.HasPrefix(it.Sign.String(), "Eq") {
				t.Errorf("signature = %d fragments %q; want one signature_delta", len(it.Sign.Frags), it.Sign.String())
			}
		},
	},
	{
		name:    "bedrock-converse-text-then-tool",
		dialect: "bedrock-converse",
		calls:   []call{{"tooluse_kZ3qT8vWmRa2Xc9LpN4bEw", "get_weather", `{"location": "Lisbon, Portugal", "unit": "celsius"}`}},
		text:    "I'll check the weather in Lisbon for you.",
		outcome: "completed",
		check: func(t *testing.T, s *model.Session, _ []byte) {
			for i, ev := range s.Events.All() {
				if ev.Frame&capture.EventStream == 0 {
					t.Errorf("event %d is not an event stream message", i)
				}
				if s.TypeName(ev.Type) == "contentBlockStart" && s.Items[ev.Item].Role != model.RoleCall {
					t.Errorf("event %d starts a block that is no tool call", i)
				}
			}
			if it := s.Calls()[0]; it.Args.Frags[0].End != 0 {
				t.Errorf("first input fragment ends at %d; want an empty one", it.Args.Frags[0].End)
			}
		},
	},
	{
		name:    "bedrock-invoke-claude-tool",
		dialect: "bedrock-invoke",
		calls:   []call{{"toolu_bdrk_01FkR4nW8qLs2VxJt6Yc9PdA", "get_local_time", `{"timezone": "Asia/Tokyo"}`}},
		text:    "Let me look up the time in Osaka.",
		outcome: "completed",
		check: func(t *testing.T, s *model.Session, _ []byte) {
			for i, ev := range s.Events.All() {
				if s.TypeName(ev.Name) != "chunk" || !strings.HasPrefix(s.TypeName(ev.Type), "message_") && !strings.HasPrefix(s.TypeName(ev.Type), "content_block_") {
					t.Errorf("event %d: %s/%s; want a chunk typed by the Anthropic event it wraps", i, s.TypeName(ev.Name), s.TypeName(ev.Type))
				}
			}
			if it := s.Calls()[0]; it.Dialect.String() != "anthropic" {
				t.Errorf("the call was assembled as %s; want by the Anthropic assembly", it.Dialect)
			}
		},
	},
	{
		name:    "broken-aisdk-data-error-then-finish",
		dialect: "aisdk-data",
		calls:   []call{{"call_4XzlGBLtUe9dy3GVNV4jhq7h", "get_weather", `{"city":"New York City"}`}},
		outcome: "error",
		check: func(t *testing.T, s *model.Session, _ []byte) {
			if r := s.Responses[0]; r.Terminal < 0 || s.Outcome().Detail != "Error executing tool get_weather: weather service unavailable" {
				t.Errorf("terminal %d, outcome %+v; want the finish, and the error deciding", r.Terminal, s.Outcome())
			}
		},
	},
	{
		name:    "broken-aisdk-ui-delta-before-start",
		dialect: "aisdk-ui",
		calls:   []call{{"call_Qm3vX8kTz1LpW4rNa7YcB2dE", "get_weather", `{"city": "Lisbon"}`}},
		outcome: "completed",
	},
	{
		name:    "broken-aisdk-ui-no-finish",
		dialect: "aisdk-ui",
		calls: []call{
			{"call_Qm3vX8kTz1LpW4rNa7YcB2dE", "get_weather", `{"city": "Lisbon"}`},
			{"call_Hn5rT2wQk8vYz3LmX6pDa9Cs", "get_local_time", `{"timezone": "Eur`},
		},
		outcome: "truncated",
	},
	{
		name:    "broken-chat-all-index-0",
		dialect: "openai-chat",
		calls: []call{
			{"call_3ao0buzf", "get_weather", `{"city":"Paris"}`},
			{"call_mjeg6uz4", "get_local_time", `{"timezone":"Europe/Paris"}`},
		},
		outcome: "completed",
		check: func(t *testing.T, s *model.Session, _ []byte) {
			calls := s.Report().Calls
			if len(calls) != 2 {
				return // reported by the common checks
			}
			if calls[0].ID == nil || calls[1].ID == nil || *calls[0].ID == *calls[1].ID {
				t.Errorf("call ids %v, %v; want two different ids", calls[0].ID, calls[1].ID)
			}
			for i, c := range calls {
				if c.Index != 0 {
					t.Errorf("call %d index = %d; want 0 (the collision)", i, c.Index)
				}
				if !json.Valid([]byte(c.Arguments)) {
					t.Errorf("call %d arguments %q are not valid JSON", i, c.Arguments)
				}
			}
			// finish_reason closes both calls, including the one the second
			// displaced at index 0.
			for i, c := range calls {
				if c.Status != "completed" {
					t.Errorf("call %d status = %q; want completed", i, c.Status)
				}
			}
		},
	},
	{
		name:    "broken-cut-before-terminal",
		dialect: "openai-responses",
		calls: []call{{"call_W0KVcP4LYPBEuPSqT3DIVBCH", "run_sql",
			`{"query": "SELECT name, total FROM orders WHERE total > `}},
		outcome: "truncated",
		check: func(t *testing.T, s *model.Session, _ []byte) {
			c := s.Report().Calls[0]
			if c.Status != "incomplete" || c.ArgumentsJSON == "complete" {
				t.Errorf("call status %s, arguments %s; want incomplete, not complete", c.Status, c.ArgumentsJSON)
			}
			last := *s.Events.At(s.Events.Len() - 1)
			if last.Frame&capture.Truncated == 0 || last.Flags&model.DecodeError == 0 {
				t.Errorf("last event frame flags %b, model flags %b; want Truncated and DecodeError", last.Frame, last.Flags)
			}
		},
	},
	{
		name:    "broken-done-args-differ",
		dialect: "openai-responses",
		calls: []call{{"call_TO52CU5QgRXWlUzqIjthpGZg", "write_file",
			`{"path": "notes/todo.md", "text": "- buy milk\n", "mode": "overwrite"}`}},
		outcome: "completed",
		check: func(t *testing.T, s *model.Session, _ []byte) {
			src := s.Report().Calls[0].Sources
			if src == nil {
				t.Fatal("Sources = nil; want the disagreeing sources")
			}
			done := src["item_done"]
			if src["deltas"] == done || !strings.Contains(src["deltas"], `"append"`) {
				t.Errorf("deltas %q, item_done %q; want deltas saying append", src["deltas"], done)
			}
			if src["arguments_done"] != done || src["terminal"] != done {
				t.Errorf("arguments_done %q, terminal %q; want both = item_done %q", src["arguments_done"], src["terminal"], done)
			}
		},
	},
	{
		name:    "broken-item-id-changes",
		dialect: "openai-responses",
		calls: []call{{"call_RASi0uKPSLlkH6j3PEPxyYX5", "get_weather",
			`{"location": "Lisbon, Portugal", "unit": "celsius"}`}},
		outcome: "completed",
		check: func(t *testing.T, s *model.Session, _ []byte) {
			it := s.Calls()[0]
			if !strings.HasPrefix(it.ItemID, "fc_tmp_") {
				t.Errorf("item id = %s; want the fc_tmp_ id it was added with", it.ItemID)
			}
			if !slices.ContainsFunc(it.IDs, func(id model.IDSeen) bool {
				return id.Field == "item_id" && strings.HasPrefix(id.Value, "fc_") && id.Value != it.ItemID
			}) {
				t.Errorf("IDs = %v; want an item_id entry with the final fc_ id", it.IDs)
			}
		},
	},
	{
		name:    "broken-mcp-id-type-changed",
		dialect: "mcp",
		calls:   []call{{"12", "create_invoice", `{"customer":"cus_8Hq2LmZx","amount_cents":12900,"currency":"EUR"}`}},
		outcome: "truncated",
		check: func(t *testing.T, s *model.Session, _ []byte) {
			if got := s.CallStatus(s.Calls()[0]); got != "incomplete" {
				t.Errorf("call status = %s; want incomplete (the string id answers nothing)", got)
			}
			if ev := s.Events.At(1); ev.Flags&model.NonStandard == 0 {
				t.Errorf("the response with id \"12\" is not flagged as answering nothing: %v", ev.Flags)
			}
		},
	},
	{
		name:    "broken-sequence-gap",
		dialect: "openai-responses",
		calls:   []call{{"call_XwLITcshtqBILXicB80gDWbD", "get_weather", parisArgs}},
		text:    gapText,
		outcome: "completed",
		seqGaps: [][2]int64{{4, 10}},
		check: func(t *testing.T, _ *model.Session, data []byte) {
			if !bytes.Contains(data, []byte(`"text":"`+gapDone+`"`)) {
				t.Errorf("output_text.done does not carry the full text %q", gapDone)
			}
		},
	},
	{
		name:    "chat-openrouter-keepalive",
		dialect: "openai-chat",
		calls: []call{{"toolu_vrtx_01bULjZzf4u1jqFUjIO26Zdx", "web_search",
			`{"query": "James Webb telescope news", "max_results": 5}`}},
		text:    "I'll search for the latest James Webb news.",
		outcome: "completed",
		check: func(t *testing.T, s *model.Session, _ []byte) {
			it := s.Calls()[0]
			var comments []int
			for i, ev := range s.Events.All() {
				if ev.Source == capture.FrameComment {
					comments = append(comments, i)
					if ev.Kind != model.KindKeepalive {
						t.Errorf("comment event %d kind = %s; want keepalive", i, ev.Kind)
					}
				}
			}
			if len(comments) != 3 || comments[2] < it.First || comments[2] > it.Last {
				t.Errorf("comments at %v; want 3, the last among the call's fragments (%d..%d)", comments, it.First, it.Last)
			}
			if s.Done() != s.Events.Len()-1 {
				t.Errorf("[DONE] at %d; want last (%d)", s.Done(), s.Events.Len()-1)
			}
		},
	},
	{
		name:    "chat-parallel-calls",
		dialect: "openai-chat",
		calls: []call{
			{"call_8fd2pnGFUM9WIe8lPDseJFvO", "get_weather", `{"city":"Berlin","unit":"celsius"}`},
			{"call_BXijCtGt6X0K5sCZlcz07uQq", "get_weather", `{"city":"Madrid","unit":"celsius"}`},
		},
		outcome: "completed",
		check: func(t *testing.T, s *model.Session, data []byte) {
			n := s.Events.Len()
			if s.Done() != n-1 {
				t.Fatalf("[DONE] at %d; want last (%d)", s.Done(), n-1)
			}
			usage := *s.Events.At(n - 2)
			if raw := data[usage.Offset : usage.Offset+int64(usage.Len)]; !bytes.Contains(raw, []byte(`"choices":[],"usage":{`)) {
				t.Errorf("event before [DONE] = %s; want the usage chunk with choices []", raw)
			}
			for i, it := range s.Calls() {
				if len(it.IDs) > 0 {
					t.Errorf("call %d IDs = %v; want id and name on the first fragment only", i, it.IDs)
				}
			}
		},
	},
	{
		name:    "chat-single-call",
		dialect: "openai-chat",
		calls:   []call{{"call_8cJVmKGXZndSuIjp7KxWkQCU", "get_stock_quote", `{"symbol":"NVDA","exchange":"NASDAQ"}`}},
		outcome: "completed",
		check: func(t *testing.T, s *model.Session, _ []byte) {
			if s.Done() != s.Events.Len()-1 {
				t.Errorf("[DONE] at %d; want last (%d)", s.Done(), s.Events.Len()-1)
			}
		},
	},
	{
		name:    "gateway-responses-single-call",
		dialect: "openai-responses",
		calls:   []call{{"call_GuEb29uVR4NNs9GyZiycMHSC", "get_weather", parisArgs}},
		outcome: "completed",
		check: func(t *testing.T, s *model.Session, data []byte) {
			// What the gateway changed: its own ids, no obfuscation, the
			// deltas two by two, no function_call_arguments.done.
			if bytes.Contains(data, []byte("obfuscation")) || bytes.Contains(data, []byte("function_call_arguments.done")) ||
				bytes.Count(data, []byte("function_call_arguments.delta")) != 2*4 || s.Responses[0].ID != "resp_gw_7Kq2mXv9Lb4RtY8nWc3P" {
				t.Errorf("the sample is not responses-single-call as the gateway re-streams it")
			}
		},
	},
	{
		name:    "gemini-call",
		dialect: "gemini",
		calls:   []call{{"", "get_weather", `{"location":"Kyoto, Japan","unit":"celsius"}`}},
		text:    "I'll check the weather in Kyoto for you.",
		outcome: "completed",
		check: func(t *testing.T, s *model.Session, _ []byte) {
			for i, ev := range s.Events.All() {
				if ev.Frame&capture.EndsCRLF == 0 {
					t.Errorf("event %d frame flags %b; want CRLF line endings", i, ev.Frame)
				}
			}
		},
	},
	{
		name:    "mcp-tools-call-progress",
		dialect: "mcp",
		calls:   []call{{"7", "index_repository", `{"repo":"acme/billing-service","paths":["src/","docs/"]}`}},
		text:    "Indexed acme/billing-service: 250 files, 4,812 symbols (1 file skipped).",
		outcome: "completed",
		check: func(t *testing.T, s *model.Session, _ []byte) {
			it := s.Calls()[0]
			var progress []int
			for i, ev := range s.Events.All() {
				if s.TypeName(ev.Type) == "notifications/progress" {
					progress = append(progress, i)
					if int(ev.Item) != it.Index {
						t.Errorf("progress event %d is not tied to the call", i)
					}
				}
			}
			if len(progress) != 3 {
				t.Errorf("progress events %v; want 3", progress)
			}
			if ev := s.Events.At(1); s.TypeName(ev.Type) != "(priming)" || ev.Kind != model.KindKeepalive {
				t.Errorf("event 1 is %s %s; want the priming event, a keepalive", s.TypeName(ev.Type), ev.Kind)
			}
			if got := it.Status.AsOf(progress[0]); got != "in_progress" {
				t.Errorf("the call is %q at the first progress; want in_progress", got)
			}
		},
	},
	{
		name:    "ollama-chat-tool-calls",
		dialect: "ollama",
		calls: []call{
			{"call_k2x7q9ma", "get_weather", `{"city":"Paris","unit":"celsius"}`},
			{"call_8fj3v0wd", "get_local_time", `{"timezone":"Asia/Tokyo"}`},
		},
		outcome: "completed",
		check: func(t *testing.T, s *model.Session, data []byte) {
			if it := reasoning(t, s); it.Text.String() != "The user wants the weather in Paris and the time in Tokyo. Two tools: get_weather & get_local_time. I'll call both." {
				t.Errorf("thinking = %q", it.Text.String())
			}
			// Each call is whole in its line: its arguments are that
			// line's bytes, one fragment.
			for i, it := range s.Calls() {
				if it.Args.Count() != 1 || it.Opened != it.Closed || !bytes.Contains(data, it.Args.Bytes()) {
					t.Errorf("call %d: %d fragments, opened %d, closed %d; want one fragment in one line", i, it.Args.Count(), it.Opened, it.Closed)
				}
			}
			if got := s.Outcome().Detail; got != "stop" {
				t.Errorf("done_reason = %q; want stop, as Ollama ends a tool-call turn", got)
			}
			if s.Done() >= 0 || !bytes.Contains(data, []byte(`\u0026`)) {
				t.Errorf("[DONE] at %d, or no Go-escaped &: not Ollama's wire", s.Done())
			}
		},
	},
	{
		name:    "responses-parallel-calls",
		dialect: "openai-responses",
		calls: []call{
			{"call_Ewk0L7NKOA2oo9Pm6eV8vjXu", "get_weather", parisArgs},
			{"call_8E6LCTeZiLmFxMTmuMdInLuI", "get_local_time", `{"timezone": "Asia/Tokyo"}`},
		},
		text:    "I'll check the weather in Paris and the local time in Tokyo.",
		outcome: "completed",
		check: func(t *testing.T, s *model.Session, _ []byte) {
			switches, prev := 0, int32(-1)
			for _, ev := range s.Events.All() {
				if ev.Kind == model.KindArgsDelta {
					if prev >= 0 && ev.Item != prev {
						switches++
					}
					prev = ev.Item
				}
			}
			if switches < 2 {
				t.Errorf("argument deltas switch calls %d times; want them interleaved", switches)
			}
		},
	},
	{
		name:    "responses-reasoning-then-call",
		dialect: "openai-responses",
		calls: []call{{"call_uY7gw7KvlokZCxWn7Od0Y0A6", "search_flights",
			`{"origin": "SFO", "destination": "NRT", "date": "2025-10-14", "cabin": "economy"}`}},
		outcome: "completed",
		check: func(t *testing.T, s *model.Session, _ []byte) {
			if it := reasoning(t, s); it.Text.String() != flightsSum {
				t.Errorf("reasoning summary = %q; want %q", it.Text.String(), flightsSum)
			}
		},
	},
	{
		name:    "responses-single-call",
		dialect: "openai-responses",
		calls:   []call{{"call_GuEb29uVR4NNs9GyZiycMHSC", "get_weather", parisArgs}},
		outcome: "completed",
	},
	{
		name:    "responses-websocket-turns",
		dialect: "openai-responses",
		calls:   []call{{"call_Vb7kQm2XcT9pLr4sWn8dJy3F", "get_weather", parisArgs}},
		text:    "It is 18 °C and sunny in Paris.",
		outcome: "completed",
		check: func(t *testing.T, s *model.Session, data []byte) {
			if !s.Upgraded() || len(s.Heads) != 1 || s.Heads[0].Status != 101 {
				t.Errorf("heads %v, upgraded %v; want one 101 head", s.Heads, s.Upgraded())
			}
			if len(s.Responses) != 2 || s.Responses[1].Created < s.Responses[0].Terminal {
				t.Fatalf("%d responses; want two, the second created after the first's terminal event", len(s.Responses))
			}
			for _, want := range []string{": ws client text utf8 {\"type\":\"response.create\"", ": ws server ping", ": ws client close code=1000"} {
				if !bytes.Contains(data, []byte(want)) {
					t.Errorf("the session lacks %q", want)
				}
			}
			if !bytes.Contains(data, []byte(`"previous_response_id":"`+s.Responses[0].ID+`"`)) {
				t.Errorf("the second turn does not continue %s", s.Responses[0].ID)
			}
		},
	},
}

// reasoning returns the session's only reasoning item.
func reasoning(t *testing.T, s *model.Session) *model.Item {
	t.Helper()
	var out []*model.Item
	for _, it := range s.Items {
		if it.Role == model.RoleReasoning {
			out = append(out, it)
		}
	}
	if len(out) != 1 {
		t.Fatalf("%d reasoning items; want 1", len(out))
	}
	return out[0]
}

func TestSamples(t *testing.T) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			data, err := samples.Open(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			s := model.Assemble(data, capture.FormatAuto, model.Options{KeepEvents: true})
			rep := s.Report()
			if rep.Dialect != tc.dialect || rep.Dialects != nil {
				t.Errorf("dialect = %s %v; want only %s", rep.Dialect, rep.Dialects, tc.dialect)
			}
			if text, _ := rep.Text.(string); text != tc.text {
				t.Errorf("text = %q; want %q", rep.Text, tc.text)
			}
			if rep.Outcome.State != tc.outcome {
				t.Errorf("outcome = %s (%s); want %s", rep.Outcome.State, rep.Outcome.Detail, tc.outcome)
			}
			if len(rep.Calls) != len(tc.calls) {
				t.Fatalf("%d calls; want %d", len(rep.Calls), len(tc.calls))
			}
			for i, w := range tc.calls {
				g := rep.Calls[i]
				id := ""
				if g.ID != nil {
					id = *g.ID
				}
				if id != w.id || (g.ID == nil) != (w.id == "") || g.Name != w.name || g.Arguments != w.args {
					t.Errorf("call %d = %s %s %s; want %s %s %s", i, id, g.Name, g.Arguments, w.id, w.name, w.args)
				}
				if !strings.HasPrefix(tc.name, "broken-") &&
					(!finished(g.Status) || g.ArgumentsJSON != "complete" || g.Sources != nil) {
					t.Errorf("call %d: status %s, arguments %s, sources %v; want a clean completed call",
						i, g.Status, g.ArgumentsJSON, g.Sources)
				}
			}
			checkEvents(t, s, data)
			if got := seqGaps(s); tc.dialect == "openai-responses" && !slices.Equal(got, tc.seqGaps) {
				t.Errorf("sequence_number gaps = %v; want %v", got, tc.seqGaps)
			}
			if tc.check != nil {
				tc.check(t, s, data)
			}
		})
	}
}

// finished reports whether a call's status says it was made whole:
// completed, or, for an application's stream, whole and then run (or
// waiting for the client to run it).
func finished(status string) bool {
	return status == "completed" || status == model.ToolInputAvailable || status == model.ToolOutputAvailable
}

// checkEvents asserts that the events tile the input, every byte in exactly
// one event, and that every event's JSON decodes unless the input ended
// inside it.
func checkEvents(t *testing.T, s *model.Session, data []byte) {
	t.Helper()
	var off int64
	for i, ev := range s.Events.All() {
		if ev.Offset != off {
			t.Fatalf("event %d starts at %d; want %d", i, ev.Offset, off)
		}
		off += int64(ev.Len)
		if ev.Flags&model.DecodeError != 0 && ev.Frame&capture.Truncated == 0 {
			t.Errorf("event %d: invalid JSON in a complete event", i)
		}
	}
	if off != int64(len(data)) {
		t.Errorf("events cover %d bytes; want %d", off, len(data))
	}
}

// seqGaps returns each jump in sequence_number: from 0, then by +1 is none.
// Each response.created numbers its response from 0 again.
func seqGaps(s *model.Session) [][2]int64 {
	var out [][2]int64
	prev := int64(-1)
	for _, ev := range s.Events.All() {
		if ev.Seq < 0 {
			continue
		}
		if s.TypeName(ev.Type) == "response.created" {
			prev = -1
		}
		if ev.Seq != prev+1 {
			out = append(out, [2]int64{prev, ev.Seq})
		}
		prev = ev.Seq
	}
	return out
}

// readmeNames lists the samples README.md describes, in order.
func readmeNames(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "- `"); ok {
			name, _, _ := strings.Cut(rest, "`")
			names = append(names, name)
		}
	}
	return names
}

func TestReadmeMatchesFiles(t *testing.T) {
	var listed, tested []string
	for _, sm := range samples.List() {
		listed = append(listed, sm.Name)
		if sm.Summary == "" {
			t.Errorf("sample %s has no summary in README.md", sm.Name)
		}
	}
	for _, tc := range cases {
		tested = append(tested, tc.name)
	}
	if !slices.IsSorted(listed) {
		t.Errorf("List() = %v; want sorted by name", listed)
	}
	if readme := readmeNames(t); !slices.Equal(readme, listed) {
		t.Errorf("README.md lists %v; files are %v", readme, listed)
	}
	if !slices.Equal(tested, listed) {
		t.Errorf("test cases %v; files are %v", tested, listed)
	}
	if len(listed) < 12 {
		t.Errorf("%d samples; want at least 12", len(listed))
	}
}

func TestOpen(t *testing.T) {
	want, err := samples.Open(samples.Default)
	if err != nil {
		t.Fatalf("Open(Default %q): %v", samples.Default, err)
	}
	if got, err := samples.Open(samples.Default + ".sse"); err != nil || !bytes.Equal(got, want) {
		t.Errorf("Open(%q) = %d bytes, %v; want the same %d bytes as without .sse", samples.Default+".sse", len(got), err, len(want))
	}
	for _, name := range []string{"", "nope", "README.md", "README", ".sse", "../samples/chat-single-call", "*.sse"} {
		if _, err := samples.Open(name); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Open(%q) error = %v; want fs.ErrNotExist", name, err)
		}
	}
}

// TestLessons: every sample has a one-line lesson in README.md, short
// enough for the inspector's status line at 80 columns beside its label,
// and Lesson finds it by name.
func TestLessons(t *testing.T) {
	for _, sm := range samples.List() {
		switch n := utf8.RuneCountInString(sm.Lesson); {
		case n == 0:
			t.Errorf("sample %s has no lesson in README.md", sm.Name)
		case n > samples.MaxLesson:
			t.Errorf("lesson of %s is %d runes; want at most %d: %q", sm.Name, n, samples.MaxLesson, sm.Lesson)
		case strings.ContainsAny(sm.Lesson, "\n`"):
			t.Errorf("lesson of %s is not one plain line: %q", sm.Name, sm.Lesson)
		}
		if got := samples.Lesson(sm.Name); got != sm.Lesson {
			t.Errorf("Lesson(%q) = %q; want %q", sm.Name, got, sm.Lesson)
		}
		if got := samples.Lesson(sm.Name + ".sse"); got != sm.Lesson {
			t.Errorf("Lesson(%q) = %q; want %q", sm.Name+".sse", got, sm.Lesson)
		}
	}
	if got := samples.Lesson("no-such-sample"); got != "" {
		t.Errorf("Lesson of an unknown sample = %q; want none", got)
	}
}
