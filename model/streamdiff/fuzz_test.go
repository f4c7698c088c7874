package streamdiff

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/samples"
)

// lcsLen is the length of a longest common subsequence, by the textbook
// quadratic table: the reference the bounded Myers alignment must match.
func lcsLen(a, b []byte) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			switch {
			case a[i] == b[j]:
				cur[j+1] = prev[j] + 1
			default:
				cur[j+1] = max(prev[j+1], cur[j])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// FuzzLCS: the alignment never panics; what it matches is equal and in
// order on both sides; when it succeeds it is a longest common
// subsequence, and it gives up only when more edits than its bound are
// needed; a sequence aligned with itself matches everywhere.
func FuzzLCS(f *testing.F) {
	f.Add([]byte("abcabba"), []byte("cbabac"), uint8(8))
	f.Add([]byte("aaaa"), []byte("aaaaaaaa"), uint8(2))
	f.Add([]byte(""), []byte("xyz"), uint8(0))
	f.Fuzz(func(t *testing.T, a, b []byte, bound uint8) {
		if len(a) > 200 || len(b) > 200 {
			return
		}
		maxD := int(bound)
		ps, ok := lcs(len(a), len(b), func(i, j int) bool { return a[i] == b[j] }, maxD)
		for k, p := range ps {
			if a[p.a] != b[p.b] {
				t.Fatalf("pair %d (%d, %d) matches %q with %q", k, p.a, p.b, a[p.a], b[p.b])
			}
			if k > 0 && (p.a <= ps[k-1].a || p.b <= ps[k-1].b) {
				t.Fatalf("pairs out of order at %d: %v", k, ps)
			}
		}
		want := lcsLen(a, b)
		edits := len(a) + len(b) - 2*want
		if ok != (edits <= maxD) {
			t.Fatalf("lcs(%q, %q, %d) ok = %t; the edit distance is %d", a, b, maxD, ok, edits)
		}
		if ok && len(ps) != want {
			t.Fatalf("lcs(%q, %q) matched %d; the longest is %d", a, b, len(ps), want)
		}
		self, ok := lcs(len(a), len(a), func(i, j int) bool { return a[i] == a[j] }, 0)
		if !ok || len(self) != len(a) {
			t.Fatalf("lcs(a, a) = %d pairs, %t; want %d, true", len(self), ok, len(a))
		}
	})
}

// compareFuzzMax bounds FuzzCompare's inputs: a few events. The fuzzer
// minimises each new input it finds, a run per candidate and O(n²)
// candidates for n bytes, so a run must be short and an input small for
// it to get on: with whole samples (up to 20 KB), inputs up to 64 KiB and
// six sides built per run, it spent its 30 s minimising one input (25
// inputs ran). A side's recorder takes a block of 16,384 events however
// short the stream (record.go): that block is most of a run's cost.
const compareFuzzMax = 1 << 10

// compareFuzzSeed is a run of a sample's whole events (or lines, for
// JSON lines) that fits in compareFuzzMax bytes: the first run of two or
// more from its start, or from the first event after which one fits;
// nil when none does (a binary event stream). A stream that starts
// mid-way is still a stream to compare.
func compareFuzzSeed(data []byte) []byte {
	sep := []byte("\n\n")
	switch {
	case bytes.Contains(data, []byte("\r\n\r\n")):
		sep = []byte("\r\n\r\n")
	case !bytes.Contains(data, sep):
		sep = []byte("\n")
	}
	var events [][]byte
	for rest := data; len(rest) > 0; {
		i := bytes.Index(rest, sep)
		if i < 0 {
			events = append(events, rest)
			break
		}
		events = append(events, rest[:i+len(sep)])
		rest = rest[i+len(sep):]
	}
	var best []byte
	for start := range events {
		var run []byte
		n := 0
		for _, ev := range events[start:] {
			if len(run)+len(ev) > compareFuzzMax {
				break
			}
			run, n = append(run, ev...), n+1
		}
		switch {
		case n >= 2:
			return run
		case n == 1 && best == nil:
			best = run
		}
	}
	return best
}

// FuzzCompare: comparing any input with itself finds no difference even
// when nothing is ignored; comparing it with an edited copy (by the
// default ignores, or nothing ignored) never panics, and the links it
// builds are consistent both ways. Each run does one of the two (edit
// says which), two sides each, so that a run stays short.
func FuzzCompare(f *testing.F) {
	for i, s := range samples.List() {
		data, _ := samples.Open(s.Name)
		if seed := compareFuzzSeed(data); seed != nil {
			f.Add(seed, uint16(len(seed)/2), byte('x'), i%3)
		}
	}
	f.Add([]byte("data: {\"type\":\"response.created\",\"sequence_number\":0}\n\n"), uint16(10), byte('"'), 1)
	f.Fuzz(func(t *testing.T, data []byte, at uint16, b byte, edit int) {
		if len(data) > compareFuzzMax {
			return
		}
		timer := time.AfterFunc(10*time.Second, func() { panic(fmt.Sprintf("slow input %q", data)) })
		defer timer.Stop()
		if edit%3 == 0 {
			self := Compare(Build("A", data, capture.FormatAuto, Ignore{}), Build("B", data, capture.FormatAuto, Ignore{}), Options{})
			if !self.Equal() || len(self.Differences) > 0 {
				t.Fatalf("Compare(x, x) has differences: %+v", self.Differences)
			}
			return
		}
		edited := bytes.Clone(data)
		if len(edited) > 0 {
			edited[int(at)%len(edited)] = b
		}
		o := Options{}
		if edit%3 == 1 {
			o = DefaultOptions()
		}
		r := Compare(Build("A", data, capture.FormatAuto, o.Ignore), Build("B", edited, capture.FormatAuto, o.Ignore), o)
		l := r.Links()
		for ord := range r.A.Events {
			if other, exact := l.Counterpart(SideA, ord); exact {
				if back, exact := l.Counterpart(SideB, other); !exact || back != ord {
					t.Fatalf("A#%d links to B#%d, which links to A#%d (%t)", ord, other, back, exact)
				}
			}
		}
		if _, err := r.MarshalJSON(); err != nil {
			t.Fatal(err)
		}
	})
}

// Most samples give FuzzCompare a seed of whole events: the cut keeps
// every dialect's shapes in its corpus.
func TestCompareFuzzSeeds(t *testing.T) {
	t.Parallel()
	n := 0
	for _, s := range samples.List() {
		data, _ := samples.Open(s.Name)
		seed := compareFuzzSeed(data)
		if seed == nil {
			continue
		}
		n++
		if len(seed) > compareFuzzMax || !bytes.Contains(data, seed) {
			t.Errorf("%s: a seed of %d bytes that is not a run of the sample within %d", s.Name, len(seed), compareFuzzMax)
		}
		if sd := Build("A", seed, capture.FormatAuto, Ignore{}); sd.S.Len() == 0 {
			t.Errorf("%s: its seed of %d bytes has no event", s.Name, len(seed))
		}
	}
	if all := len(samples.List()); n < all*3/4 {
		t.Errorf("%d of %d samples give a seed; want most", n, all)
	}
}

// FuzzCompareLegs: comparing the assembled results of any stream with
// itself, step by step, finds no difference; comparing two streams (as
// two steps of a provider) with a third never panics and writes its JSON.
func FuzzCompareLegs(f *testing.F) {
	var seeds [][]byte
	for _, s := range samples.List() {
		data, _ := samples.Open(s.Name)
		if seed := compareFuzzSeed(data); seed != nil {
			seeds = append(seeds, seed)
		}
	}
	for i, s := range seeds {
		f.Add(s, seeds[(i+1)%len(seeds)], seeds[(i+2)%len(seeds)])
	}
	f.Fuzz(func(t *testing.T, a, b, app []byte) {
		if len(a)+len(b)+len(app) > compareFuzzMax {
			return
		}
		timer := time.AfterFunc(10*time.Second, func() { panic(fmt.Sprintf("slow inputs %q, %q, %q", a, b, app)) })
		defer timer.Stop()
		o := DefaultOptions()
		side := func(name string, data []byte) *Side { return Build(name, data, capture.FormatAuto, o.Ignore) }
		if self := CompareLegs([]*Side{side("A", a)}, []*Side{side("B", a)}, o); !self.Equal() {
			t.Fatalf("CompareLegs(x, x) has differences: %+v", self.Differences)
		}
		r := CompareLegs([]*Side{side("A1", a), side("A2", b)}, []*Side{side("B", app)}, o)
		if _, err := r.MarshalJSON(); err != nil {
			t.Fatal(err)
		}
		for _, d := range r.Differences {
			if d.Step < 1 || d.Step > len(r.Steps) {
				t.Fatalf("difference %q names step %d of %d", d.Message, d.Step, len(r.Steps))
			}
		}
	})
}
