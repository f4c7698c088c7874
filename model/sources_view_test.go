package model_test

import (
	"bytes"
	"testing"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/internal/dialecttest"
)

// viewSeeds are streams whose statements come in awkward orders: a .done
// before the last delta, a second output_item.done that says otherwise,
// arguments only in output_item.added.
var viewSeeds = []string{
	sse(
		`{"type":"response.output_item.added","output_index":0,"item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"a","arguments":""}}`,
		`{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":0,"delta":"{\"x\":"}`,
		`{"type":"response.function_call_arguments.done","item_id":"fc_1","output_index":0,"arguments":"{\"x\":1}"}`,
		`{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":0,"delta":"1}"}`,
		`{"type":"response.output_item.done","output_index":0,"item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"a","arguments":"{\"x\":1}"}}`,
		`{"type":"response.output_item.done","output_index":0,"item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"a","arguments":"{\"x\":2}"}}`,
	),
	sse(
		`{"type":"response.output_item.added","output_index":0,"item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"a","arguments":"{\"y\":true}"}}`,
		`{"type":"response.output_item.done","output_index":0,"item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"a","arguments":"{\"y\":true}"}}`,
	),
	respMessage("Hello World!", "Hello world", "Hello world", "Hello world"),
}

// checkSourcesView holds the copy-free as-of queries to the ones that make
// strings, for every item as of every event (and of the whole stream).
func checkSourcesView(t *testing.T, s *model.Session) {
	t.Helper()
	for _, it := range s.Items {
		for ord := -1; ord < s.Len(); ord++ {
			b, v := it.FinalArgsViewAsOf(ord)
			if b != nil {
				v = string(b)
			}
			if want := it.FinalArgsAsOf(ord); v != want {
				t.Fatalf("item %d: FinalArgsViewAsOf(%d) = %q; FinalArgsAsOf = %q", it.Index, ord, v, want)
			}
			if b != nil && it.PathArgs() == nil && !bytes.HasPrefix(it.Args.Bytes(), b) {
				t.Fatalf("item %d: FinalArgsViewAsOf(%d) = %q is no prefix of the arguments", it.Index, ord, b)
			}
			if _, want := it.SourcesAsOf(ord); it.SourcesDisagreeAsOf(ord) != want {
				t.Fatalf("item %d: SourcesDisagreeAsOf(%d) = %v; SourcesAsOf says %v", it.Index, ord, !want, want)
			}
			if _, want := it.TextSourcesAsOf(ord); it.TextSourcesDisagreeAsOf(ord) != want {
				t.Fatalf("item %d: TextSourcesDisagreeAsOf(%d) = %v; TextSourcesAsOf says %v", it.Index, ord, !want, want)
			}
		}
	}
}

// FuzzSourcesView runs the samples, the captures and awkward streams
// through checkSourcesView.
func FuzzSourcesView(f *testing.F) {
	addFileSeeds(f, func(data []byte) { f.Add(data) })
	for _, s := range append(dialectSeeds, viewSeeds...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkSourcesView(t, dialecttest.AssembleWithin(t, data, model.Options{KeepEvents: true}))
	})
}

// TestSourcesViewCopiesNothing asks the copy-free queries of a healthy
// call with arguments stated four times, as of a delta and as of the end:
// no allocation, and the arguments are the assembled bytes themselves.
func TestSourcesViewCopiesNothing(t *testing.T) {
	s := assemble(t, dialectSeeds[0])
	c := s.Items[0]
	for _, ord := range []int{2, s.Len() - 1, -1} {
		var b []byte
		allocs := testing.AllocsPerRun(10, func() {
			b, _ = c.FinalArgsViewAsOf(ord)
			if c.SourcesDisagreeAsOf(ord) || c.TextSourcesDisagreeAsOf(ord) {
				t.Fatalf("as of %d the sources should agree", ord)
			}
		})
		if allocs != 0 {
			t.Errorf("as of %d: %v allocations; want none", ord, allocs)
		}
		if frags, _ := c.Args.AsOf(ord); ord >= 0 && (len(b) == 0 || &b[0] != &frags[0]) {
			t.Errorf("as of %d: FinalArgsViewAsOf = %q is not the assembled bytes", ord, b)
		}
	}
}
