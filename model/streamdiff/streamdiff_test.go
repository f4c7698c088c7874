package streamdiff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/internal/fixtures"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/jsonscan"
	"github.com/streamtap/streamtap/samples"
)

func sampleBytes(t testing.TB, name string) []byte {
	t.Helper()
	b, err := samples.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// blocks splits an LF-framed SSE stream into its events (without the
// blank line that ends each); join puts them back.
func blocks(data []byte) []string {
	return strings.Split(strings.TrimSuffix(string(data), "\n\n"), "\n\n")
}

func join(bs []string) []byte { return []byte(strings.Join(bs, "\n\n") + "\n\n") }

func compare(t testing.TB, a, b []byte, o Options) *Result {
	t.Helper()
	return Compare(Build("A", a, capture.FormatAuto, o.Ignore), Build("B", b, capture.FormatAuto, o.Ignore), o)
}

func strict() Options { return Options{} }

// counts is a Result's counts without the zeros, for comparisons.
func counts(r *Result) map[string]int {
	out := map[string]int{}
	for k, n := range r.Counts {
		if n > 0 {
			out[k] = n
		}
	}
	return out
}

func dump(r *Result) string {
	b, _ := json.MarshalIndent(r, "", "  ")
	return string(b)
}

// find returns the differences of a kind.
func find(r *Result, k Kind) []Difference {
	var out []Difference
	for _, d := range r.Differences {
		if d.Kind == k {
			out = append(out, d)
		}
	}
	return out
}

// TestSelfIsEqual: every sample compared with itself is equal, with no
// difference even when nothing is ignored, and every event is linked to
// itself.
func TestSelfIsEqual(t *testing.T) {
	for _, s := range samples.List() {
		t.Run(s.Name, func(t *testing.T) {
			data := sampleBytes(t, s.Name)
			for _, o := range []Options{DefaultOptions(), strict()} {
				r := compare(t, data, data, o)
				if !r.Equal() || len(r.Differences) > 0 {
					t.Fatalf("Compare(%s, itself) differs:\n%s", s.Name, dump(r))
				}
				if o.Ignore.Has(IgnoreKeepalive) {
					continue // keep-alives are then not aligned, nor linked
				}
				l := r.Links()
				for ord := range r.A.Events {
					if other, exact := l.Counterpart(SideA, ord); !exact || other != ord {
						t.Errorf("Counterpart(A, %d) = %d, %t; want %d, true", ord, other, exact, ord)
					}
				}
			}
		})
	}
}

// TestCapturesSelfEqual: every real capture beside the project compared
// with itself, nothing ignored, is equal; and with its ids renamed, under
// the default ignores, still equal.
func TestCapturesSelfEqual(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(fixtures.Shared(t, "captures"), "*.sse"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if r := compare(t, data, data, strict()); !r.Equal() {
			t.Errorf("%s: Compare(itself) differs:\n%s", filepath.Base(f), dump(r))
		}
		if r := compare(t, data, renameIDs(data), DefaultOptions()); !r.Equal() {
			t.Errorf("%s: ids renamed: differs:\n%s", filepath.Base(f), dump(r))
		}
	}
}

// renameIDs gives every id of a Responses stream a new value, the same
// everywhere it occurs, as a gateway that mints its own ids does.
func renameIDs(data []byte) []byte {
	re := regexp.MustCompile(`"(resp|fc|msg|rs|call)_[A-Za-z0-9]{8,}"`)
	return re.ReplaceAllFunc(data, func(m []byte) []byte {
		return []byte(strings.Replace(string(m), "_", "_gw", 1))
	})
}

// TestEdits compares a sample with a copy edited in one known way, in both
// directions, and checks the kinds of the differences found.
func TestEdits(t *testing.T) {
	single := sampleBytes(t, "responses-single-call")
	sb := blocks(single)
	dropped := join(append(slices.Clone(sb[:4]), sb[5:]...))
	swapped := join(append(append(slices.Clone(sb[:4]), sb[5], sb[4]), sb[6:]...))
	// The same drop, with the later events renumbered as a gateway that
	// drops an event cleanly would.
	renumbered := dropped
	for seq := 5; seq <= 13; seq++ {
		renumbered = []byte(strings.Replace(string(renumbered), fmt.Sprintf(`"sequence_number":%d,`, seq), fmt.Sprintf(`"sequence_number":%d,`, seq-1), 1))
	}
	merged := strings.Replace(sb[4], `"delta":"ation\":"`, `"delta":"ation\": \"Par"`, 1)
	chunked := join(append(append(slices.Clone(sb[:4]), merged), sb[6:]...))
	edit := func(old, new string) []byte { return []byte(strings.Replace(string(single), old, new, 1)) }
	editAll := func(old, new string) []byte { return []byte(strings.ReplaceAll(string(single), old, new)) }

	tests := []struct {
		name       string
		b          []byte
		o          Options
		want       map[string]int // kinds of difference in A→B
		wantBack   map[string]int // in B→A, when not the mirror of want
		firstA     int            // EventA of the first difference, -1 to skip
		firstB     int
		firstKind  Kind
		firstPath  string
		firstValue [2]string // A and B of the first difference, when set
	}{
		{name: "ids renamed", b: renameIDs(single), o: DefaultOptions(), want: map[string]int{}, firstA: -1},
		{name: "obfuscation changed", b: edit(`"obfuscation":"iG7Zywn4tlubx"`, `"obfuscation":"zzz"`), o: DefaultOptions(), want: map[string]int{}, firstA: -1},
		{name: "ids renamed, strict", b: renameIDs(single), o: strict(),
			// each id on each event that names it (a run of deltas is one), and the call id
			want: map[string]int{"field": 9, "call": 1}, firstA: 0, firstB: 0, firstKind: Field, firstPath: "response.id"},
		{name: "one delta edited", b: edit(`"delta":" \"Par"`, `"delta":" \"Lyo"`), o: DefaultOptions(),
			want: map[string]int{"field": 1, "call": 1}, firstA: 5, firstB: 5, firstKind: Field, firstPath: "delta",
			firstValue: [2]string{`" \"Par"`, `" \"Lyo"`}},
		{name: "one delta dropped", b: dropped, o: DefaultOptions(),
			want: map[string]int{"only-in-a": 1, "sequence": 1, "call": 1}, wantBack: map[string]int{"only-in-b": 1, "sequence": 1, "call": 1},
			firstA: 4, firstB: -1, firstKind: OnlyInA},
		{name: "one delta dropped and renumbered", b: renumbered, o: DefaultOptions(),
			want: map[string]int{"only-in-a": 1, "call": 1}, wantBack: map[string]int{"only-in-b": 1, "call": 1},
			firstA: 4, firstB: -1, firstKind: OnlyInA},
		{name: "one delta dropped and renumbered, strict", b: renumbered, o: strict(),
			want: map[string]int{"only-in-a": 1, "sequence": 1, "call": 1}, wantBack: map[string]int{"only-in-b": 1, "sequence": 1, "call": 1},
			firstA: 4, firstB: -1, firstKind: OnlyInA},
		{name: "two deltas swapped", b: swapped, o: DefaultOptions(),
			want: map[string]int{"reordered": 1, "sequence": 2, "call": 1}, firstA: 4, firstB: 5, firstKind: Reordered},
		{name: "two deltas merged", b: chunked, o: DefaultOptions(),
			want: map[string]int{"chunking": 1, "sequence": 1}, wantBack: map[string]int{"chunking": 1, "sequence": 1},
			firstA: 4, firstB: 4, firstKind: Chunking},
		{name: "two deltas merged, chunking ignored", b: chunked, o: Options{Ignore: NewIgnore(append(DefaultIgnore(), "chunking", "sequence")...)},
			want: map[string]int{}, firstA: -1},
		{name: "arguments changed everywhere", b: []byte(strings.Replace(strings.ReplaceAll(string(single), `\"celsius\"`, `\"centigrade\"`),
			`"delta":"elsius\"}"`, `"delta":"entigrade\"}"`, 1)), o: DefaultOptions(),
			// the delta, .done, output_item.done and the terminal snapshot
			want: map[string]int{"field": 4, "call": 1}, firstA: 10, firstB: 10, firstKind: Field, firstPath: "delta"},
		{name: "finish cut", b: join(sb[:len(sb)-1]), o: DefaultOptions(),
			want: map[string]int{"only-in-a": 1, "outcome": 2, "call": 0}, wantBack: map[string]int{"only-in-b": 1, "outcome": 2},
			firstA: 13, firstB: -1, firstKind: OnlyInA},
		{name: "member added to every event", b: editAll(`{"type":"response.`, `{"gw":1,"type":"response.`), o: DefaultOptions(),
			// consecutive events with the same difference are one
			want: map[string]int{"field": 1}, firstA: 0, firstB: 0, firstKind: Field, firstPath: "gw"},
		{name: "keep-alive added", b: []byte(": keep-alive\n\n" + string(single)), o: DefaultOptions(), want: map[string]int{}, firstA: -1},
		{name: "keep-alive added, strict", b: []byte(": keep-alive\n\n" + string(single)), o: strict(),
			want: map[string]int{"only-in-b": 1}, wantBack: map[string]int{"only-in-a": 1}, firstA: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, n := range tt.want {
				if n == 0 {
					delete(tt.want, k)
				}
			}
			r := compare(t, single, tt.b, tt.o)
			if got := counts(r); !maps.Equal(got, tt.want) {
				t.Fatalf("counts = %v; want %v\n%s", got, tt.want, dump(r))
			}
			if r.Equal() != (len(tt.want) == 0) {
				t.Errorf("Equal() = %t with counts %v", r.Equal(), tt.want)
			}
			if tt.firstA >= 0 {
				d := r.Differences[0]
				if d.Kind != tt.firstKind || d.EventA != tt.firstA || d.EventB != tt.firstB || (tt.firstPath != "" && d.Path != tt.firstPath) {
					t.Errorf("first difference = %s A#%d B#%d %q; want %s A#%d B#%d %q\n%s", d.Kind, d.EventA, d.EventB, d.Path,
						tt.firstKind, tt.firstA, tt.firstB, tt.firstPath, dump(r))
				}
				if tt.firstValue[0] != "" && (string(d.A) != tt.firstValue[0] || string(d.B) != tt.firstValue[1]) {
					t.Errorf("first difference values = %s, %s; want %s, %s", d.A, d.B, tt.firstValue[0], tt.firstValue[1])
				}
			}
			back := compare(t, tt.b, single, tt.o)
			want := tt.wantBack
			if want == nil {
				want = tt.want
			}
			if got := counts(back); !maps.Equal(got, want) {
				t.Errorf("reversed: counts = %v; want %v\n%s", got, want, dump(back))
			}
		})
	}
}

// TestCallArguments: arguments that differ only in spacing are the same
// JSON but different bytes, and both verdicts are reported; arguments
// that differ in value are different JSON.
func TestCallArguments(t *testing.T) {
	chat := sampleBytes(t, "chat-single-call")
	spaced := []byte(strings.Replace(string(chat), `"arguments":"NVDA\","`, `"arguments":"NVDA\", "`, 1))
	valued := []byte(strings.Replace(string(chat), `"arguments":"NVDA\","`, `"arguments":"AMD\","`, 1))
	for _, tt := range []struct {
		name      string
		b         []byte
		jsonEqual bool
	}{{"spacing", spaced, true}, {"value", valued, false}} {
		t.Run(tt.name, func(t *testing.T) {
			r := compare(t, chat, tt.b, DefaultOptions())
			calls := find(r, Call)
			if len(calls) != 1 || calls[0].Path != "arguments" {
				t.Fatalf("call differences = %v; want one on arguments\n%s", calls, dump(r))
			}
			d := calls[0]
			if d.ArgsJSONEqual == nil || *d.ArgsJSONEqual != tt.jsonEqual || d.ArgsBytesEqual == nil || *d.ArgsBytesEqual {
				t.Errorf("arguments_json_equal = %v, arguments_bytes_equal = %v; want %t, false", d.ArgsJSONEqual, d.ArgsBytesEqual, tt.jsonEqual)
			}
			if d.EventA != 0 || d.EventB != 0 {
				t.Errorf("call difference cites A#%d B#%d; want the call's first events, 0 and 0", d.EventA, d.EventB)
			}
			if f := find(r, Field); len(f) != 1 || f[0].EventA != 3 || !strings.HasSuffix(f[0].Path, "function.arguments") {
				t.Errorf("field differences = %v; want one at event 3 on …function.arguments", f)
			}
		})
	}
}

// TestCallMissing: a parallel call dropped whole by B is one call
// difference and one stretch of events only in A, and the other call
// still pairs with its counterpart. A Responses call whose events are
// dropped but which the terminal snapshot still states is the same call:
// only its events are missing.
func TestCallMissing(t *testing.T) {
	chat := sampleBytes(t, "chat-parallel-calls")
	var kept []string
	for _, b := range blocks(chat) {
		if !strings.Contains(b, `"tool_calls":[{"index":1`) {
			kept = append(kept, b)
		}
	}
	r := compare(t, chat, join(kept), DefaultOptions())
	calls := find(r, Call)
	if len(calls) != 1 || calls[0].B != nil || calls[0].EventA < 0 || !strings.Contains(calls[0].Message, "only in A") {
		t.Fatalf("call differences = %+v; want one call only in A\n%s", calls, dump(r))
	}
	only := find(r, OnlyInA)
	if len(only) != 1 || only[0].CountA != 7 || !strings.Contains(only[0].Message, "the whole call") {
		t.Fatalf("only-in-a = %+v; want the whole call's 7 events\n%s", only, dump(r))
	}
	if got := counts(r); len(got) != 2 {
		t.Errorf("counts = %v; want only the call and its events", got)
	}

	par := sampleBytes(t, "responses-parallel-calls")
	const second = "fc_68e78674260865eac96f3de1be781e15eaad295b012b899c"
	kept = nil
	for _, b := range blocks(par) {
		if !strings.Contains(b, `"item_id":"`+second+`"`) && !strings.Contains(b, `output_item.added","sequence_number":23`) {
			kept = append(kept, b)
		}
	}
	r = compare(t, par, join(kept), Options{Ignore: NewIgnore(append(DefaultIgnore(), "sequence")...)})
	if got := counts(r); !maps.Equal(got, map[string]int{"only-in-a": 1}) {
		t.Fatalf("counts = %v; want the call's events only in A, the call itself the same\n%s", got, dump(r))
	}
}

// TestInterleaving: parallel calls sent one after the other instead of
// interleaved pair event for event, and the order is what differs.
func TestInterleaving(t *testing.T) {
	par := sampleBytes(t, "responses-parallel-calls")
	bs := blocks(par)
	const first = "fc_68e786743a9bc61ef0a58717d7575472a6a1dba90ca5a970"
	// Move every delta of the first call before the second call opens.
	var head, firstDeltas, rest []string
	opened := false
	for _, b := range bs {
		switch {
		case strings.Contains(b, `"output_index":2,"item"`):
			opened = true
			rest = append(rest, b)
		case opened && strings.Contains(b, `arguments.delta`) && strings.Contains(b, first):
			firstDeltas = append(firstDeltas, b)
		case opened:
			rest = append(rest, b)
		default:
			head = append(head, b)
		}
	}
	seq := join(append(append(head, firstDeltas...), rest...))
	r := compare(t, par, seq, DefaultOptions())
	got := counts(r)
	if got["reordered"] == 0 || got["field"] > 0 || got["only-in-a"] > 0 || got["only-in-b"] > 0 || got["call"] > 0 {
		t.Fatalf("counts = %v; want only reordered (and sequence) differences\n%s", got, dump(r))
	}
}

// TestIDChanges: an item id that changes mid-stream on one side is a
// difference even with ids ignored.
func TestIDChanges(t *testing.T) {
	broken := sampleBytes(t, "broken-item-id-changes")
	fixed := []byte(strings.ReplaceAll(string(broken), "fc_tmp_4p63f270fnfgok4d", "fc_68e7882772e295d8b25ec38bdcfe72ef0dae2dfae7c10865"))
	r := compare(t, fixed, broken, DefaultOptions())
	ids := find(r, IDs)
	if len(ids) != 1 || ids[0].EventB < 0 || ids[0].EventA != 2 {
		t.Fatalf("ids differences = %+v; want one, citing B's rename\n%s", ids, dump(r))
	}
	if got := counts(r); len(got) != 1 {
		t.Errorf("counts = %v; want only the ids difference", got)
	}
}

// TestText: assistant text that differs is reported with the events that
// carry its first differing byte.
func TestText(t *testing.T) {
	par := sampleBytes(t, "responses-parallel-calls")
	b := []byte(strings.Replace(string(par), `"delta":" Paris"`, `"delta":" Lyon"`, 1))
	r := compare(t, par, b, DefaultOptions())
	text := find(r, Text)
	if len(text) != 1 || text[0].EventA != 9 || text[0].EventB != 9 || text[0].Offset == nil || *text[0].Offset != 26 {
		t.Fatalf("text differences = %+v; want one at A#9 B#9, byte 26\n%s", text, dump(r))
	}
	if !strings.HasPrefix(string(text[0].B), `"I'll check the weather in Lyon and`) || !strings.Contains(text[0].Item, "message") {
		t.Errorf("text difference B = %s, item %q; want the text from its start, on the message", text[0].B, text[0].Item)
	}
}

// chatOf writes a Chat stream with one call, its arguments cut into
// fragments: the same request as responses-single-call in another dialect.
func chatOf(name string, frags ...string) []byte {
	var b strings.Builder
	chunk := func(delta string, finish string) {
		fin := "null"
		if finish != "" {
			fin = strconv.Quote(finish)
		}
		fmt.Fprintf(&b, `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":%s,"finish_reason":%s}]}`+"\n\n", delta, fin)
	}
	chunk(`{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"`+name+`","arguments":""}}]}`, "")
	for _, f := range frags {
		chunk(`{"tool_calls":[{"index":0,"function":{"arguments":`+strconv.Quote(f)+`}}]}`, "")
	}
	chunk(`{}`, "tool_calls")
	b.WriteString("data: [DONE]\n\n")
	return []byte(b.String())
}

// TestCrossDialect: Chat and Responses for the same request compare by
// calls, text and outcome, and say that events were not aligned.
func TestCrossDialect(t *testing.T) {
	resp := sampleBytes(t, "responses-single-call")
	same := chatOf("get_weather", `{"location": "Pa`, `ris, France", "unit": "celsius"}`)
	r := compare(t, resp, same, DefaultOptions())
	if r.Mode != "semantic" || !strings.Contains(r.Note, "not event by event") || !r.Equal() {
		t.Fatalf("Compare(responses, chat) = mode %q, note %q, equal %t; want semantic, equal\n%s", r.Mode, r.Note, r.Equal(), dump(r))
	}
	if _, exact := r.Links().Counterpart(SideA, 3); exact {
		t.Errorf("a semantic comparison links events")
	}
	other := chatOf("get_weather", `{"location": "Lyon, France", "unit": "celsius"}`)
	r = compare(t, resp, other, DefaultOptions())
	if got := counts(r); !maps.Equal(got, map[string]int{"call": 1}) {
		t.Fatalf("counts = %v; want one call difference\n%s", got, dump(r))
	}
	renamed := chatOf("weather", `{"location": "Paris, France", "unit": "celsius"}`)
	if got := counts(compare(t, renamed, resp, DefaultOptions())); !maps.Equal(got, map[string]int{"call": 1}) {
		t.Errorf("renamed call: counts = %v; want one call difference (the name)", got)
	}
}

// TestLinks: a UI asks for the counterpart of an event in O(1); an event
// on one side only gets the counterpart of the nearest aligned event
// before it, not exact.
func TestLinks(t *testing.T) {
	single := sampleBytes(t, "responses-single-call")
	sb := blocks(single)
	dropped := join(append(slices.Clone(sb[:4]), sb[5:]...))
	r := compare(t, single, dropped, DefaultOptions())
	l := r.Links()
	for _, tt := range []struct {
		w          Which
		ord, other int
		exact      bool
	}{
		{SideA, 3, 3, true}, {SideA, 4, 3, false}, {SideA, 5, 4, true}, {SideA, 13, 12, true},
		{SideB, 4, 5, true}, {SideB, 0, 0, true}, {SideA, 99, -1, false}, {SideB, -1, -1, false},
	} {
		if other, exact := l.Counterpart(tt.w, tt.ord); other != tt.other || exact != tt.exact {
			t.Errorf("Counterpart(%d, %d) = %d, %t; want %d, %t", tt.w, tt.ord, other, exact, tt.other, tt.exact)
		}
	}
	if got := l.DifferencesAt(SideA, 4); len(got) != 1 || r.Differences[got[0]].Kind != OnlyInA {
		t.Errorf("DifferencesAt(A, 4) = %v; want the only-in-a difference", got)
	}
	if got := l.DifferencesAt(SideA, 1); len(got) != 0 {
		t.Errorf("DifferencesAt(A, 1) = %v; want none", got)
	}
}

// timedSide models data as if it had arrived one event every step.
func timedSide(t testing.TB, name string, data []byte, step time.Duration, o Options) *Side {
	t.Helper()
	opts, rec := Attach(model.Options{Raw: bytes.NewReader(data)}, o.Ignore)
	s := model.NewSession(opts)
	fr := capture.NewFramer(capture.FormatSSE)
	at := time.Duration(0)
	add := func(f *capture.Frame) { s.Add(f) }
	for _, blk := range strings.SplitAfter(string(data), "\n\n") {
		at += step
		fr.Feed([]byte(blk), at, add)
	}
	fr.Finish(at, add)
	s.End(nil)
	return NewSide(name, s, rec)
}

// TestTiming: both streams timed, their timing is measured; differences
// beyond the thresholds count only when timing is not ignored.
func TestTiming(t *testing.T) {
	single := sampleBytes(t, "responses-single-call")
	for _, tt := range []struct {
		name  string
		o     Options
		count int
	}{{"default", DefaultOptions(), 0}, {"strict", strict(), 4}} {
		t.Run(tt.name, func(t *testing.T) {
			r := Compare(timedSide(t, "A", single, 10*time.Millisecond, tt.o), timedSide(t, "B", single, 50*time.Millisecond, tt.o), tt.o)
			want := TimingPair{
				A: Times{FirstEvent: 10 * time.Millisecond, FirstArgsDelta: 40 * time.Millisecond, Total: 140 * time.Millisecond, LargestGap: 10 * time.Millisecond, GapEvent: 1},
				B: Times{FirstEvent: 50 * time.Millisecond, FirstArgsDelta: 200 * time.Millisecond, Total: 700 * time.Millisecond, LargestGap: 50 * time.Millisecond, GapEvent: 1},
			}
			if r.Timing == nil || *r.Timing != want {
				t.Fatalf("Timing = %+v; want %+v", r.Timing, want)
			}
			// first_event and largest_gap differ by 40 ms, under the
			// 100 ms threshold; first_args_delta and total by more.
			if got := r.Counts["timing"]; got != min(tt.count, 2) {
				t.Errorf("timing differences = %d; want %d\n%s", got, min(tt.count, 2), dump(r))
			}
			if r.A.Timed != true || r.B.Timed != true {
				t.Errorf("summaries say untimed")
			}
		})
	}
	untimed := compare(t, single, single, strict())
	if untimed.Timing != nil {
		t.Errorf("untimed streams have timing %+v", untimed.Timing)
	}
}

// TestListCapped: past MaxListed differences the list stops, Counts
// counts them all and Omitted says how many are not listed.
func TestListCapped(t *testing.T) {
	n := MaxListed + 200
	fa, fb := make([]string, n), make([]string, n)
	for i := range n {
		fa[i], fb[i] = fmt.Sprintf("a%d,", i), fmt.Sprintf("b%d,", i)
	}
	r := compare(t, chatOf("f", fa...), chatOf("f", fb...), DefaultOptions())
	if len(r.Differences) != MaxListed || r.Counts["field"] != n || r.Omitted != n+1-MaxListed {
		t.Errorf("listed %d, field count %d, omitted %d; want %d, %d, %d", len(r.Differences), r.Counts["field"], r.Omitted, MaxListed, n, n+1-MaxListed)
	}
}

// TestLongStringField: a long string that differs in its middle is shown
// from a little before the change, with the offset where it starts.
func TestLongStringField(t *testing.T) {
	long := strings.Repeat("abcdefghij", 500) // 5,000 bytes
	edited := long[:2500] + "X" + long[2501:]
	r := compare(t, chatOf("f", long), chatOf("f", edited), DefaultOptions())
	f := find(r, Field)
	if len(f) != 1 || f[0].Offset == nil || *f[0].Offset != 2500 || !f[0].Truncated {
		t.Fatalf("field differences = %+v; want one at byte 2500, cut\n%s", f, dump(r))
	}
	wantA, wantB := `"`+long[2460:2460+maxValue]+`"`, `"`+edited[2460:2460+maxValue]+`"`
	if string(f[0].A) != wantA || string(f[0].B) != wantB {
		t.Errorf("values = %.60s…, %.60s…; want them from byte 2460, %d bytes", f[0].A, f[0].B, maxValue)
	}
	if !strings.Contains(f[0].Message, "from byte 2500") {
		t.Errorf("message %q does not say where", f[0].Message)
	}
}

// TestArgsEqualAsJSON: ArgsDiff finds no change between arguments equal
// as JSON values, and some between those that are not.
func TestArgsEqualAsJSON(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{`{"a":1,"b":[1,2]}`, `{ "b": [1, 2], "a": 1.0 }`, true},
		{`{"a":"é"}`, `{"a":"\u00e9"}`, true},
		{`{"a":1}`, `{"a":1,"b":2}`, false},
		{`{"a":[1,2]}`, `{"a":[2,1]}`, false},
		{`{"id":1}`, `{"id":2}`, false}, // nothing is ignored inside arguments
		{`"x"`, `"y"`, false},
		{`null`, `false`, false},
		{`1e2`, `100`, true},
		{`{"n":12345678901234567890}`, `{"n":12345678901234567891}`, false}, // equal as float64s
		{`{"n":-0.0}`, `{"n":0}`, true},
		{`{"n":1.50e1}`, `{"n":15}`, true},
		{`{"a":1,"a":2}`, `{"a":2}`, true}, // the last of duplicate keys counts
		{`{"un\u0069t":"c"}`, `{"unit":"c"}`, true},
	} {
		changes, more := ArgsDiff([]byte(tt.a), []byte(tt.b))
		if got := len(changes) == 0 && more == 0; got != tt.want {
			t.Errorf("ArgsDiff(%s, %s) = %+v; want equal %t", tt.a, tt.b, changes, tt.want)
		}
	}
}

// TestSameString: long JSON strings compare decoded a chunk at a time,
// whatever the escapes and multi-byte runes at the chunk boundaries, and
// the first difference is found at its decoded offset.
func TestSameString(t *testing.T) {
	unit := `ab\"c\u00e9é\ud83d\ude00\\` // decodes to ab"céé😀\ : 13 bytes
	n := 3 * decodeChunk / len(unit)
	base := strings.Repeat(unit, n)
	q := func(s string) []byte { return []byte(`"` + s + `"`) }
	decoded := jsonscan.Unquote(nil, q(base))
	if len(decoded) != 13*n {
		t.Fatalf("decoded %d bytes; want %d", len(decoded), 13*n)
	}
	if eq, _ := sameString(q(base), q(strings.ReplaceAll(base, `\u00e9`, "é"))); !eq {
		t.Errorf("sameString: differently escaped equal strings differ")
	}
	at := len(unit) * (n - 7)
	edited := base[:at] + "Z" + base[at+1:] // the 'a' of a unit, decoded byte 13*(n-7)
	eq, got := sameString(q(base), q(edited))
	if eq || got != 13*(n-7) {
		t.Errorf("sameString = %t, %d; want false, %d", eq, got, 13*(n-7))
	}
	_, _, from := compareStrings(q(base), q(edited))
	if from[1].off > got || from[1].off < got-2*decodeChunk {
		t.Errorf("resume at decoded %d; want within two chunks before %d", from[1].off, got)
	}
	if w := window(q(edited), from[1], got, 5); string(w[:5]) != `Zb"cé`[:5] {
		t.Errorf("window = %q; want it to start at the change", w)
	}
	if w := window(q(edited), resume{}, got, 5); string(w[:5]) != `Zb"cé`[:5] {
		t.Errorf("window = %q; want it to start at the change", w)
	}
	if eq, _ := sameString(q(base), q(base+"x")); eq {
		t.Errorf("sameString: a longer string is equal")
	}
}
