package model

import (
	"fmt"
	"testing"
	"time"
)

func TestLegs(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	ex := func(id, leg, from, to int, calls []string, texts ...string) LegSummary {
		x := LegSummary{ID: id, Leg: leg, Start: at(from), End: at(to), CallIDs: calls}
		for _, s := range texts {
			x.Anchors = append(x.Anchors, []byte(s))
		}
		return x
	}
	groups := func(gs []LegGroup) string { return fmt.Sprint(gs) }
	tests := []struct {
		name string
		add  []LegSummary
		want []string // what each Add returns
	}{
		{
			name: "two steps by call ids and text, providers ending first",
			add: []LegSummary{
				ex(2, 1, 10, 200, []string{"call_1"}),
				ex(3, 1, 300, 500, nil, "It is sunny."),
				ex(1, 0, 0, 600, []string{"call_1"}, "It is sunny."),
			},
			want: []string{"[]", "[]", "[{1 [2 3] [call ids text] []}]"},
		},
		{
			name: "a provider that ends after its application",
			add: []LegSummary{
				ex(1, 0, 0, 100, nil, "I'll che"),
				ex(2, 1, 10, 300, nil, "I'll check the weather"),
			},
			want: []string{"[]", "[{1 [2] [text] []}]"},
		},
		{
			name: "nothing shared: the only application around, by time",
			add: []LegSummary{
				ex(2, 1, 10, 200, nil, `{"city"`, `{"town"`),
				ex(1, 0, 0, 300, nil, `{"{"cityto`),
			},
			want: []string{"[]", "[{1 [2] [time] []}]"},
		},
		{
			name: "nothing shared and two applications around: no link",
			add: []LegSummary{
				ex(3, 1, 50, 200, nil, "x"),
				ex(1, 0, 0, 300, nil, "y"),
				ex(2, 0, 40, 400, nil, "z"),
			},
			want: []string{"[]", "[{1 [3] [time] []}]", "[{1 [] [] [3]}]"},
		},
		{
			name: "content wins over time, whichever ends first",
			add: []LegSummary{
				ex(3, 1, 50, 200, []string{"call_9"}),
				ex(1, 0, 0, 300, nil, "y"),
				ex(2, 0, 40, 400, []string{"call_9"}),
			},
			want: []string{"[]", "[{1 [3] [time] []}]", "[{1 [] [] [3]} {2 [3] [call ids] []}]"},
		},
		{
			name: "one listener: no legs",
			add: []LegSummary{
				ex(1, 0, 0, 300, []string{"c"}),
				ex(2, 0, 10, 200, []string{"c"}),
			},
			want: []string{"[]", "[]"},
		},
		{
			name: "a request that names no model is no model call",
			add: []LegSummary{
				ex(1, 0, 0, 300, []string{"c"}),
				{ID: 2, Leg: 1, Start: at(10), End: at(200), NotModel: true},
			},
			want: []string{"[]", "[]"},
		},
		{
			name: "a stream of steps is never a provider",
			add: []LegSummary{
				ex(1, 0, 0, 300, []string{"c"}),
				{ID: 2, Leg: 1, Start: at(10), End: at(200), Steps: true, CallIDs: []string{"c"}},
			},
			want: []string{"[]", "[]"},
		},
		{
			name: "whichever listener: the exchange that started first holds the other",
			add: []LegSummary{
				ex(2, 1, 0, 200, []string{"c"}),
				ex(1, 0, 10, 300, []string{"c"}),
			},
			want: []string{"[]", "[{2 [1] [call ids] []}]"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l Legs
			for i, x := range tt.add {
				if got := groups(l.Add(x)); got != tt.want[i] {
					t.Errorf("Add #%d = %s; want %s", x.ID, got, tt.want[i])
				}
			}
		})
	}
}

// TestLegsBounded: Legs forgets the oldest exchanges past its bound.
func TestLegsBounded(t *testing.T) {
	l := Legs{keep: 4}
	t0 := time.Now()
	for i := 1; i <= 100; i++ {
		l.Add(LegSummary{ID: i, Leg: i % 2, Start: t0.Add(time.Duration(i) * time.Second), End: t0.Add(time.Duration(i)*time.Second + 500*time.Millisecond)})
	}
	if len(l.recent) != 4 || len(l.of) > 4 {
		t.Errorf("remembers %d exchanges and %d links; want at most 4", len(l.recent), len(l.of))
	}
}
