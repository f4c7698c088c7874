package model_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/internal/dialecttest"
	"github.com/streamtap/streamtap/model/internal/modeltest"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// TestWriteJSONMatchesEncoder holds the streaming writer to encoding/json's
// bytes with the extra escapes of jsonscan.AppendSafe (DEL, C1, bidi), with
// big strings full of escapes, multi-byte runes across the cut points,
// invalid UTF-8, NUL bytes and 8-bit CSIs.
func TestWriteJSONMatchesEncoder(t *testing.T) {
	big := strings.Repeat("é\"\\\n\t<>&\u2028ok\x01\u009b\x7f\u202e", 9000) + "\xff" + strings.Repeat("€", 30000)
	id := "call_1"
	rep := model.CallsReport{
		Dialect: "openai-chat",
		Calls: []model.CallReport{
			{ID: &id, Name: "f", Arguments: big, Sources: map[string]string{"deltas": big + "x", "item_done": "small"}},
			{Name: "g", Arguments: `\u0000streamtap\u00000\u0000streamtap\u0000`},
			{Name: "h", Arguments: "{}", Step: 2, ProviderExecuted: true, Dynamic: true, Output: &big, Preliminary: 3, Error: big[:999], ApprovalID: "aitxt-\u2028"},
		},
		Steps: 4,
		Text:  []string{big, "\x00streamtap\x000\x00streamtap\x00"},
		TextSources: []model.TextSourcesReport{
			{ItemID: "msg_1", Index: 2, Sources: map[string]string{"deltas": big, "text_done": "é\u2028<&>", "item_done": ""}},
			{Choice: 3, Sources: nil},
		},
		Outcome: model.OutcomeReport{State: "completed"},
	}
	others := []model.CallsReport{
		{Dialect: "anthropic", Dialects: []string{"anthropic", "openai-chat"}, Calls: []model.CallReport{}, Text: big, Outcome: model.OutcomeReport{State: "cut", Detail: "no \u009b[2J message_stop\x9b\u2066"}},
		{Dialect: "unknown", Calls: nil, Text: nil},
		{Dialect: "gemini", Calls: []model.CallReport{{Name: "h", Arguments: "{}", Sources: map[string]string{}}}, Text: []string{}},
	}
	for _, r := range append([]model.CallsReport{rep}, others...) {
		matchesEncoder(t, r)
	}
	if rep.Calls[0].Arguments != big {
		t.Fatal("WriteJSON changed the report it was given")
	}
}

// FuzzWriteJSON holds the hand-written call encoder to encoding/json on
// any strings in every field.
func FuzzWriteJSON(f *testing.F) {
	f.Add("call_1", "get_weather", `{"city":"Paris"}`, "function_call", "fc_1", "deltas", "{\"city\":\"Pa", -3, "text")
	f.Add("", "\u2028\x00", "\xff\xfe", "", "", "", "", 7, "\t\"")
	f.Add("\u0085", "\x7f", "\u009b31m", "\u202e", "\u2069", "\ufeff", "\x9b", 1, "\u200f")
	f.Fuzz(func(t *testing.T, id, name, args, kind, itemID, srcKey, srcVal string, n int, text string) {
		c := model.CallReport{Name: name, Arguments: args, Kind: kind, Status: kind + name, ItemID: itemID,
			Choice: n, Index: -n, ArgumentsJSON: model.ArgsState([]byte(args), true).String(),
			Step: n, Dynamic: n%2 == 0, ProviderExecuted: n%3 == 0, Preliminary: -n, Error: srcVal, ApprovalID: srcKey}
		if n%5 == 0 {
			c.Output = &text
		}
		if id != "" {
			c.ID = &id
		}
		if srcKey != "" {
			c.Sources = map[string]string{srcKey: srcVal, "deltas": args, "~": srcKey}
		}
		matchesEncoder(t, model.CallsReport{Dialect: kind, Calls: []model.CallReport{c, {}}, Text: text, Steps: n})
		matchesEncoder(t, model.CallsReport{Dialect: name, Calls: []model.CallReport{c}, Text: []string{text, args}})
	})
}

func matchesEncoder(t *testing.T, rep model.CallsReport) {
	t.Helper()
	var encoded bytes.Buffer
	enc := json.NewEncoder(&encoded)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rep); err != nil {
		t.Fatal(err)
	}
	want := bytes.NewBuffer(jsonscan.AppendSafe(nil, encoded.Bytes()))
	var got bytes.Buffer
	if err := rep.WriteJSON(&got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		i := 0
		for i < min(got.Len(), want.Len()) && got.Bytes()[i] == want.Bytes()[i] {
			i++
		}
		t.Fatalf("outputs differ at byte %d of %d/%d: got %q want %q", i, got.Len(), want.Len(),
			got.Bytes()[i:min(i+40, got.Len())], want.Bytes()[i:min(i+40, want.Len())])
	}
}

func TestWriteReportJSONGenerated(t *testing.T) {
	for _, dialect := range []string{"responses", "chat", "anthropic"} {
		data, want := modeltest.GenStream(dialect, 64<<10)
		s := model.Assemble(data, capture.FormatAuto, model.Options{})
		rep := s.Report()
		if len(rep.Calls) != len(want) {
			t.Fatalf("%s: %d calls; want %d", dialect, len(rep.Calls), len(want))
		}
		dialecttest.SameReportJSON(t, s, rep)
	}
	// A call far over bigString, with escapes and multi-byte runes, is
	// streamed from the assembled bytes; a second call's sources disagree.
	big := strings.Repeat(`{"k":"é\"\\\n€"}`, 20000)
	args, _ := json.Marshal(big)
	other, _ := json.Marshal(big + " ")
	stream := `data: {"type":"response.output_item.added","output_index":0,"item":{"id":"fc_1","type":"function_call","call_id":"c1","name":"f","arguments":""}}` + "\n\n" +
		`data: {"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":0,"delta":` + string(args) + "}\n\n" +
		`data: {"type":"response.output_item.added","output_index":1,"item":{"id":"fc_2","type":"function_call","call_id":"c2","name":"g","arguments":""}}` + "\n\n" +
		`data: {"type":"response.function_call_arguments.delta","item_id":"fc_2","output_index":1,"delta":` + string(args) + "}\n\n" +
		`data: {"type":"response.function_call_arguments.done","item_id":"fc_2","output_index":1,"arguments":` + string(other) + "}\n\n"
	s := model.Assemble([]byte(stream), capture.FormatAuto, model.Options{})
	rep := s.Report()
	if len(rep.Calls) != 2 || rep.Calls[0].Arguments != big || rep.Calls[1].Sources == nil {
		t.Fatalf("big calls not assembled: %d calls, sources %v", len(rep.Calls), rep.Calls[1].Sources != nil)
	}
	dialecttest.SameReportJSON(t, s, rep)
	// A session with nothing in it still writes a whole document.
	s = model.Assemble(nil, capture.FormatAuto, model.Options{})
	dialecttest.SameReportJSON(t, s, s.Report())
}
