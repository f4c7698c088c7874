package gemini_test

import (
	"os"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/internal/fixtures"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/internal/dialecttest"
	"github.com/streamtap/streamtap/model/internal/modeltest"
)

// twoStreamedCalls is two calls streamed with partialArgs, the first ended
// by an end marker in a chunk of its own (event 3), the second by the
// marker in the last chunk, beside finishReason (event 7): the layout of
// vercel-ai's recording of Vertex (../shared/captures/
// gemini__partial-args-two-calls__vercel-ai.sse).
func twoStreamedCalls() string {
	c := func(parts, extra string) string { return modeltest.GemChunk(parts, extra) }
	return modeltest.DataSSE([]string{
		c(`{"functionCall":{"name":"getWeather","willContinue":true}}`, ""),
		c(`{"functionCall":{"partialArgs":[{"jsonPath":"$.location","stringValue":"Boston","willContinue":true}],"willContinue":true}}`, ""),
		c(`{"functionCall":{"partialArgs":[{"jsonPath":"$.location","stringValue":""}],"willContinue":true}}`, ""),
		c(`{"functionCall":{}}`, ""),
		c(`{"functionCall":{"name":"getWeather","willContinue":true}}`, ""),
		c(`{"functionCall":{"partialArgs":[{"jsonPath":"$.location","stringValue":"San Francisco","willContinue":true}],"willContinue":true}}`, ""),
		c(`{"functionCall":{"partialArgs":[{"jsonPath":"$.location","stringValue":""}],"willContinue":true}}`, ""),
		c(`{"functionCall":{}}`, `"finishReason":"STOP"`),
	})
}

// TestPartialArgsEndMarker: an end marker in a chunk of its own is the
// args-done of the call it ends, shaped and explained as the marker
// (functionCall.end), not a chunk with nothing to read; each partialArgs
// chunk added its values (OpsAt), and a call's fragments are the events
// that brought them. Before, the marker's chunk kept the lifecycle kind
// it started as (args-done ranked with lifecycle), so it was shaped
// usageMetadata, and the call counted 0 fragments.
func TestPartialArgsEndMarker(t *testing.T) {
	for _, name := range []string{"made", "recorded"} {
		t.Run(name, func(t *testing.T) {
			data := []byte(twoStreamedCalls())
			if name == "recorded" {
				var err error
				if data, err = os.ReadFile(fixtures.Shared(t, "captures/gemini__partial-args-two-calls__vercel-ai.sse")); err != nil {
					t.Fatal(err)
				}
			}
			s, evs := dialecttest.ShapeStream(data, capture.FormatAuto)
			kinds := []model.Kind{model.KindItemOpen, model.KindArgsDelta, model.KindArgsDelta, model.KindArgsDone,
				model.KindItemOpen, model.KindArgsDelta, model.KindArgsDelta, model.KindTerminal}
			subs := []string{"functionCall.start", "partialArgs", "partialArgs", "functionCall.end",
				"functionCall.start", "partialArgs", "partialArgs", "functionCall.end"}
			if len(evs) != len(kinds) {
				t.Fatalf("%d events; want %d", len(evs), len(kinds))
			}
			for i, e := range evs {
				if e.Ev.Kind != kinds[i] || e.WithData.Sub != subs[i] || e.Bare != e.WithData {
					t.Errorf("event %d: kind %s, shape %v (bare %v); want %s, %s", i, e.Ev.Kind, e.WithData, e.Bare, kinds[i], subs[i])
				}
			}
			calls := s.Calls()
			if len(calls) != 2 {
				t.Fatalf("%d calls; want 2", len(calls))
			}
			first := calls[0]
			if first.Closed != 3 || int(evs[3].Ev.Item) != first.Index {
				t.Errorf("first call closed at %d, event 3's item %d; want closed by event 3, its item", first.Closed, evs[3].Ev.Item)
			}
			if got := first.PathArgs().OpsAt(1); len(got) != 1 || got[0].Path != "$.location" || string(got[0].Str) != "Boston" {
				t.Errorf("OpsAt(1) = %+v; want $.location Boston", got)
			}
			if got := first.PathArgs().OpsAt(3); len(got) != 0 {
				t.Errorf("OpsAt(3) = %+v; want none", got)
			}
			for ord, want := range map[int]int{0: 0, 1: 1, 2: 2, 3: 2, 7: 2} {
				if got := first.ArgsFragmentsAsOf(ord); got != want {
					t.Errorf("first call: ArgsFragmentsAsOf(%d) = %d; want %d", ord, got, want)
				}
			}
			if got := calls[1].ArgsFragmentsAsOf(7); got != 2 {
				t.Errorf("second call: ArgsFragmentsAsOf(7) = %d; want 2", got)
			}
		})
	}
}
