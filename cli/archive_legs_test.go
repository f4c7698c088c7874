package cli

import (
	"testing"
	"time"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/samples"
)

// TestArchiveLegs: a HAR written by a proxy with two listeners holds an
// app's session and the provider session it made (forwarded to another
// host); its sessions list links them as the live proxy did. With one
// host, nothing is linked.
func TestArchiveLegs(t *testing.T) {
	t.Parallel()
	data, err := samples.Open("chat-parallel-calls")
	if err != nil {
		t.Fatal(err)
	}
	s := model.Assemble(data, capture.FormatAuto, model.Options{})
	t0 := time.Date(2026, 12, 6, 5, 0, 0, 0, time.UTC)
	entry := func(u string, from, dur time.Duration) legEntry {
		return legEntry{url: u, started: t0.Add(from), dur: dur}
	}
	for _, tt := range []struct {
		name     string
		entries  []legEntry
		wantLegs []int
		wantOf   int
	}{
		{"two hosts", []legEntry{entry("http://127.0.0.1:3000/api/chat", 0, time.Second),
			entry("https://api.openai.com/v1/chat/completions", 100*time.Millisecond, 300*time.Millisecond)}, []int{2}, 1},
		{"one host", []legEntry{entry("https://api.openai.com/v1/chat/completions", 0, time.Second),
			entry("https://api.openai.com/v1/chat/completions", 100*time.Millisecond, 300*time.Millisecond)}, nil, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			xs := []model.Exchange{{ID: 1}, {ID: 2}}
			linkLegs(tt.entries, func(int) *model.Session { return s }, xs)
			if len(xs[0].Legs) != len(tt.wantLegs) || xs[1].LegOf != tt.wantOf || (tt.wantOf > 0 && (xs[1].Step != 1 || xs[0].LegsBy[0] != "call ids")) {
				t.Errorf("links %+v, %+v; want #1's legs %v, #2 a step of #%d", xs[0], xs[1], tt.wantLegs, tt.wantOf)
			}
		})
	}
}
