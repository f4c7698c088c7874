package dialecttest

import (
	"cmp"
	"slices"
	"testing"

	"github.com/streamtap/streamtap/model"
)

// wantOutputs is the reference for Session.ResponseItems: the items of
// response r, sorted into output order from scratch.
func wantOutputs(s *model.Session, r int) []*model.Item {
	var out []*model.Item
	for _, it := range s.Items {
		if it.Response == r {
			out = append(out, it)
		}
	}
	slices.SortStableFunc(out, func(a, b *model.Item) int {
		return cmp.Or(cmp.Compare(a.Choice, b.Choice), cmp.Compare(a.Position, b.Position), cmp.Compare(a.First, b.First))
	})
	return out
}

// CheckOutputs holds ResponseItems, ItemsAsOf and Calls to the reference
// order, for every response and for the items of none.
func CheckOutputs(t *testing.T, s *model.Session) {
	t.Helper()
	for r := -1; r < len(s.Responses); r++ {
		if got, want := s.ResponseItems(r), wantOutputs(s, r); !slices.Equal(got, want) {
			t.Fatalf("ResponseItems(%d) = %v; want %v", r, ItemIndexes(got), ItemIndexes(want))
		}
	}
	var all, calls []*model.Item
	for r := -1; r < len(s.Responses); r++ {
		for _, it := range wantOutputs(s, r) {
			all = append(all, it)
			if it.IsCall() {
				calls = append(calls, it)
			}
		}
	}
	if got := s.ItemsAsOf(-1); !slices.Equal(got, all) {
		t.Fatalf("ItemsAsOf(-1) = %v; want %v", ItemIndexes(got), ItemIndexes(all))
	}
	if got := s.Calls(); !slices.Equal(got, calls) {
		t.Fatalf("Calls() = %v; want %v", ItemIndexes(got), ItemIndexes(calls))
	}
	mid := s.Len() / 2
	var asOf []*model.Item
	for _, it := range all {
		if it.First <= mid {
			asOf = append(asOf, it)
		}
	}
	if got := s.ItemsAsOf(mid); !slices.Equal(got, asOf) {
		t.Fatalf("ItemsAsOf(%d) = %v; want %v", mid, ItemIndexes(got), ItemIndexes(asOf))
	}
}

// ItemIndexes lists the items' indexes, for a message.
func ItemIndexes(items []*model.Item) []int {
	out := make([]int, len(items))
	for i, it := range items {
		out[i] = it.Index
	}
	return out
}
