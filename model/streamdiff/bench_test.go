package streamdiff

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

// benchPair is a stream of many responses (the parallel-calls sample
// repeated) and a copy with one delta edited in the middle.
func benchPair(b *testing.B, copies int) (a, edited []byte) {
	one := sampleBytes(b, "responses-parallel-calls")
	a = bytes.Repeat(one, copies)
	mid := len(a) / 2
	i := bytes.Index(a[mid:], []byte(`"delta":"`)) + mid + len(`"delta":"`)
	edited = bytes.Clone(a)
	edited[i] = 'Z'
	return a, edited
}

// BenchmarkAssemble is the baseline: the model of one stream as `calls`
// builds it, without events kept or fingerprints.
func BenchmarkAssemble(b *testing.B) {
	a, _ := benchPair(b, 500)
	b.SetBytes(int64(len(a)))
	b.ReportAllocs()
	for b.Loop() {
		model.Assemble(a, capture.FormatSSE, model.Options{})
	}
}

// BenchmarkBuild is one side of a diff: the model with its events kept
// and every event fingerprinted.
func BenchmarkBuild(b *testing.B) {
	a, _ := benchPair(b, 500)
	ig := DefaultOptions().Ignore
	b.SetBytes(int64(len(a)))
	b.ReportAllocs()
	for b.Loop() {
		Build("A", a, capture.FormatSSE, ig)
	}
}

// BenchmarkCompare is the alignment and report alone, on two sides of
// 20,000 events each that differ in one delta.
func BenchmarkCompare(b *testing.B) {
	a, edited := benchPair(b, 500)
	o := DefaultOptions()
	sa, sb := Build("A", a, capture.FormatSSE, o.Ignore), Build("B", edited, capture.FormatSSE, o.Ignore)
	b.SetBytes(int64(len(a) + len(edited)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		r := Compare(sa, sb, o)
		if r.Counts["field"] != 1 {
			b.Fatalf("counts = %v", r.Counts)
		}
	}
	b.ReportMetric(float64(sa.S.Len()+sb.S.Len()), "events/op")
}

// BenchmarkCompareRechunked aligns two sides whose every call is cut into
// a different number of deltas: the exact alignment gives up on each item
// and the runs are aligned instead, which must stay linear.
func BenchmarkCompareRechunked(b *testing.B) {
	n := 20000
	fa, fb := make([]string, n), make([]string, n/3)
	for i := range fa {
		fa[i] = "ab,"
	}
	for i := range fb {
		fb[i] = "abababab,"
	}
	o := DefaultOptions()
	sa, sb := Build("A", chatOf("f", fa...), capture.FormatSSE, o.Ignore), Build("B", chatOf("f", fb...), capture.FormatSSE, o.Ignore)
	b.ReportAllocs()
	for b.Loop() {
		Compare(sa, sb, o)
	}
}

// shuffledPair is a stream of many responses and a copy with its events
// in a seeded random order: nearly every event differs in place, the
// worst case for the alignment and the report.
func shuffledPair(b testing.TB, copies int) (a, shuffled []byte) {
	a = bytes.Repeat(sampleBytes(b, "anthropic-thinking-then-tool"), copies)
	events := bytes.SplitAfter(a, []byte("\n\n"))
	r := rand.New(rand.NewPCG(1, 2))
	r.Shuffle(len(events), func(i, j int) { events[i], events[j] = events[j], events[i] })
	return a, bytes.Join(events, nil)
}

// BenchmarkCompareShuffled is the alignment and report of two sides of
// about 20,000 events each, one the other shuffled: its cost per event
// must stay near an identical pair's, not grow with what it finds.
func BenchmarkCompareShuffled(b *testing.B) {
	a, shuffled := shuffledPair(b, 500)
	o := DefaultOptions()
	sa, sb := Build("A", a, capture.FormatSSE, o.Ignore), Build("B", shuffled, capture.FormatSSE, o.Ignore)
	b.SetBytes(int64(len(a) + len(shuffled)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		Compare(sa, sb, o)
	}
	b.ReportMetric(float64(sa.S.Len()+sb.S.Len()), "events/op")
}
