package streamdiff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/model/jsonscan"
)

// change is a PathChange as a test writes it: offsets as ints, -1 for none.
type change struct {
	path   string
	a, b   string
	oa, ob int
}

func flat(c PathChange) change {
	off := func(p *int) int {
		if p == nil {
			return -1
		}
		return *p
	}
	return change{c.Path, string(c.A), string(c.B), off(c.OffsetA), off(c.OffsetB)}
}

// TestArgsDiff: two arguments are compared as JSON values, path by path,
// each change with both values and the byte of each side's arguments
// where the two diverge; arguments equal as JSON have no change whatever
// their bytes, and text that is not JSON is compared as bytes.
func TestArgsDiff(t *testing.T) {
	for _, tt := range []struct {
		name string
		a, b string
		want []change
	}{
		{
			"the issue's unit, keys reordered and spaced on one side",
			`{"location":"Paris","unit":"celsius"}`, `{"unit": "fahrenheit", "location": "Paris"}`,
			[]change{{"/unit", `"celsius"`, `"fahrenheit"`, 28, 10}},
		},
		{"equal as JSON, bytes differ", `{"a":1,"b":[1,2]}`, `{ "b": [1, 2.0], "a": 1 }`, nil},
		{"equal bytes", `{"a":1}`, `{"a":1}`, nil},
		{
			"a member one side has: its key on that side, nothing on the other",
			`{"a":1}`, `{"a":1,"extra":true}`,
			[]change{{"/extra", "", "true", -1, 7}},
		},
		{
			"nested, and an element only in A",
			`{"q":{"tags":["x","y"]}}`, `{"q":{"tags":["x"]}}`,
			[]change{{"/q/tags/1", `"y"`, "", 18, -1}},
		},
		{
			"pointer escapes: ~ and / in member names",
			`{"a/b":1,"c~d":2}`, `{"a/b":2,"c~d":3}`,
			[]change{{"/a~1b", "1", "2", 7, 7}, {"/c~0d", "2", "3", 15, 15}},
		},
		{
			"another kind of value",
			`{"n":"1"}`, `{"n":1}`,
			[]change{{"/n", `"1"`, "1", 5, 5}},
		},
		{
			"the whole value",
			`[1]`, `{"a":1}`,
			[]change{{"", "[1]", `{"a":1}`, 0, 0}},
		},
		{
			"not JSON: the bytes, from the first that differs",
			`{"city": "Par`, `{"city": "Lyon"}`,
			[]change{{"", `"{\"city\": \"Par"`, `"{\"city\": \"Lyon\"}"`, 10, 10}},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			changes, more := ArgsDiff([]byte(tt.a), []byte(tt.b))
			var got []change
			for _, c := range changes {
				got = append(got, flat(c))
			}
			if more != 0 || fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("ArgsDiff(%s, %s) = %v (+%d); want %v", tt.a, tt.b, got, more, tt.want)
			}
			if len(changes) == 1 && changes[0].Bytes != (jsonscan.Validate([]byte(tt.a)) != nil) {
				t.Errorf("Bytes = %t; want it exactly when a side is not JSON", changes[0].Bytes)
			}
		})
	}
}

// TestArgsDiffOffsetsPointAtTheChange: each offset is a byte of its
// side's arguments where that side's value differs from the other's.
func TestArgsDiffOffsetsPointAtTheChange(t *testing.T) {
	a := `{"location": "Paris, France", "unit": "celsius", "days": [1, 2, 3]}`
	b := `{"days":[1,2,4],"location":"Paris, France","unit":"fahrenheit"}`
	changes, _ := ArgsDiff([]byte(a), []byte(b))
	if len(changes) != 2 {
		t.Fatalf("changes = %+v; want /unit and /days/2", changes)
	}
	for _, c := range changes {
		if got, want := a[*c.OffsetA], b[*c.OffsetB]; got == want {
			t.Errorf("%s: A byte %d and B byte %d are both %q: they should differ", c.Path, *c.OffsetA, *c.OffsetB, got)
		}
	}
	if got := a[*changes[0].OffsetA:]; !strings.HasPrefix(got, `celsius"`) {
		t.Errorf("/unit offset in A points at %.10q; want the c of celsius", got)
	}
	if got, want := changes[0].String(), `/unit: "celsius" → "fahrenheit" (A byte 39, B byte 51)`; got != want {
		t.Errorf("String() = %s; want %s", got, want)
	}
}

// TestArgsDiffCapped: past MaxPathChanges the changes are counted, not
// listed; a message says the first few and how many more.
func TestArgsDiffCapped(t *testing.T) {
	var a, b strings.Builder
	a.WriteString("{")
	b.WriteString("{")
	n := MaxPathChanges + 10
	for i := range n {
		sep := ","
		if i == n-1 {
			sep = "}"
		}
		fmt.Fprintf(&a, `"k%d":%d%s`, i, i, sep)
		fmt.Fprintf(&b, `"k%d":%d%s`, i, i+1, sep)
	}
	changes, more := ArgsDiff([]byte(a.String()), []byte(b.String()))
	if len(changes) != MaxPathChanges || more != 10 {
		t.Fatalf("listed %d, more %d; want %d, 10", len(changes), more, MaxPathChanges)
	}
	if msg := describeChanges(changes, more); !strings.HasPrefix(msg, "/k0: 0 → 1 (byte 6); /k1: 1 → 2") || !strings.HasSuffix(msg, fmt.Sprintf("; and %d more", n-3)) {
		t.Errorf("describeChanges = %q", msg)
	}
}

// TestArgsDiffBigString: a 200 KB string changed in its middle is shown
// from a little before the change, cut, and the offsets name the byte.
func TestArgsDiffBigString(t *testing.T) {
	long := strings.Repeat("abcdefghij", 20000)
	a := `{"text":"` + long + `"}`
	b := `{"text":"` + long[:100000] + "X" + long[100001:] + `"}`
	changes, _ := ArgsDiff([]byte(a), []byte(b))
	if len(changes) != 1 || !changes[0].Truncated || len(changes[0].A) > maxValue+textContext+8 {
		t.Fatalf("changes = %d, truncated %t, %d bytes shown; want one, cut", len(changes), len(changes) > 0 && changes[0].Truncated, len(changes[0].A))
	}
	if c := flat(changes[0]); c.oa != 9+100000 || c.ob != 9+100000 {
		t.Errorf("offsets = %d, %d; want %d", c.oa, c.ob, 9+100000)
	}
	var s string
	if err := json.Unmarshal(changes[0].B, &s); err != nil || !strings.Contains(s, "X") || strings.Index(s, "X") > textContext+4 {
		t.Errorf("B = %.60s…; want it from a little before the X", changes[0].B)
	}
}

// TestArgsDiffDeep: arguments nested past the walk's depth are compared
// as bytes there (the value at that depth is the change), and nesting
// past what JSON readers accept is not JSON: the byte difference.
func TestArgsDiffDeep(t *testing.T) {
	deep := func(n int, leaf string) []byte {
		return []byte(strings.Repeat("[", n) + leaf + strings.Repeat("]", n))
	}
	changes, _ := ArgsDiff(deep(jsonscan.MaxDepth-1, "1"), deep(jsonscan.MaxDepth-1, "2"))
	if len(changes) != 1 || changes[0].Path != strings.Repeat("/0", maxHashDepth) || changes[0].Bytes {
		t.Errorf("changes = %+v; want one, at depth %d", changes, maxHashDepth)
	}
	changes, _ = ArgsDiff(deep(jsonscan.MaxDepth+1, "1"), deep(jsonscan.MaxDepth+1, "2"))
	if len(changes) != 1 || !changes[0].Bytes {
		t.Errorf("changes = %+v; want the byte difference", changes)
	}
}

// FuzzArgsDiff: ArgsDiff never panics, finds nothing between a value and
// itself, agrees with itself both ways round on whether two values are
// equal, and every offset lies inside its side's arguments.
func FuzzArgsDiff(f *testing.F) {
	f.Add([]byte(`{"location":"Paris","unit":"celsius"}`), []byte(`{"unit": "fahrenheit", "location": "Paris"}`))
	f.Add([]byte(`{"a":[1,2,{"b":null}]}`), []byte(`{"a":[1,2.0,{"b":false}],"c":"\u00e9"}`))
	f.Add([]byte(`{"x":1e400}`), []byte(`{"x":-0}`))
	f.Add([]byte(`not json`), []byte(`{}`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		if c, _ := ArgsDiff(a, bytes.Clone(a)); c != nil {
			t.Fatalf("ArgsDiff(a, a) = %+v", c)
		}
		ab, moreAB := ArgsDiff(a, b)
		ba, moreBA := ArgsDiff(b, a)
		if (len(ab)+moreAB == 0) != (len(ba)+moreBA == 0) {
			t.Fatalf("a→b %d changes, b→a %d", len(ab)+moreAB, len(ba)+moreBA)
		}
		for _, c := range ab {
			if c.OffsetA != nil && (*c.OffsetA < 0 || *c.OffsetA > len(a)) || c.OffsetB != nil && (*c.OffsetB < 0 || *c.OffsetB > len(b)) {
				t.Fatalf("offsets of %+v out of %d, %d bytes", c, len(a), len(b))
			}
			if !json.Valid(c.A) && c.A != nil || !json.Valid(c.B) && c.B != nil {
				t.Fatalf("values %q, %q are not JSON", c.A, c.B)
			}
		}
	})
}

// TestCallArgumentsSaidOnce: a call whose arguments differ is reported
// once as their JSON difference (the call difference, with each path and
// where each side diverges), and the events that restate the same pair
// (.done, output_item.done, the terminal snapshot) say whose arguments
// they are instead of repeating them: the escaped pair was printed four
// times in messages, with the call's own A and B lines a fifth.
func TestCallArgumentsSaidOnce(t *testing.T) {
	a := sampleBytes(t, "responses-single-call")
	b := bytes.ReplaceAll(a, []byte(`elsius\"}`), []byte(`ubits\"}`)) // the last delta and every statement
	r := compare(t, a, b, DefaultOptions())
	calls := find(r, Call)
	if len(calls) != 1 || calls[0].Path != "arguments" {
		t.Fatalf("call differences = %+v; want one on arguments\n%s", calls, dump(r))
	}
	d := calls[0]
	at := strings.Index(`{"location": "Paris, France", "unit": "celsius"}`, "celsius") + len("c")
	if got := fmt.Sprint(flatAll(d.ArgsChanges)); got != fmt.Sprint([]change{{"/unit", `"celsius"`, `"cubits"`, at, at}}) {
		t.Errorf("arguments changes = %s", got)
	}
	if want := fmt.Sprintf(`arguments differ as JSON at 1 path: /unit: "celsius" → "cubits" (byte %d)`, at); !strings.Contains(d.Message, want) {
		t.Errorf("message %q; want it to say %q", d.Message, want)
	}
	pair := `\"unit\": \"celsius\"}`
	for _, d := range r.Differences {
		if strings.Contains(d.Message, pair) {
			t.Errorf("%s %s repeats the arguments: %s", d.Kind, d.Path, d.Message)
		}
	}
	var restated []string
	for _, f := range find(r, Field) {
		if strings.Contains(f.Message, "the final arguments of call get_weather (response 0, output 0)") {
			restated = append(restated, f.Type)
		}
	}
	if got := strings.Join(restated, " "); got != "response.function_call_arguments.done response.output_item.done response.completed" {
		t.Errorf("fields that restate the call's arguments = %q", got)
	}
	if b, _ := json.Marshal(&d); !bytes.Contains(b, fmt.Appendf(nil, `"arguments_changes":[{"path":"/unit","a":"celsius","b":"cubits","offset_a":%d,"offset_b":%d}]`, at, at)) {
		t.Errorf("JSON lacks arguments_changes: %s", b)
	}
}

func flatAll(cs []PathChange) []change {
	var out []change
	for _, c := range cs {
		out = append(out, flat(c))
	}
	return out
}

// TestArgsAcrossDialects: across dialects a call's arguments equal as
// JSON are the same call whatever their bytes (Gemini sends an object,
// which the model writes compactly; Chat the model's spaced string in
// another key order); --strict (no ArgsAsJSONAcrossDialects) reports
// them as equal as JSON, bytes differ. Within one dialect the bytes are what a
// client gets and always count.
func TestArgsAcrossDialects(t *testing.T) {
	gemini := []byte(strings.Split(string(sampleBytes(t, "gemini-call")), "\r\n\r\n")[2] + "\r\n\r\n") // the call, without the text
	chat := chatOf("get_weather", `{"unit": "celsius", `, `"location": "Kyoto, Japan"}`)
	r := compare(t, gemini, chat, DefaultOptions())
	if !r.Equal() || r.Mode != "semantic" {
		t.Errorf("gemini vs chat, same call: equal %t, mode %s; want equal, semantic\n%s", r.Equal(), r.Mode, dump(r))
	}
	r = compare(t, gemini, chat, Options{Ignore: NewIgnore("id", "call_id")})
	calls := find(r, Call)
	if len(calls) != 1 || !strings.Contains(calls[0].Message, "arguments equal as JSON, bytes differ from byte 2") ||
		calls[0].ArgsJSONEqual == nil || !*calls[0].ArgsJSONEqual {
		t.Errorf("--strict: call differences = %+v; want one, equal as JSON\n%s", calls, dump(r))
	}
	spaced := chatOf("get_weather", `{"location":"Kyoto, Japan",`, `"unit":"celsius"}`)
	compact := chatOf("get_weather", `{"location": "Kyoto, Japan",`, `"unit":"celsius"}`)
	if calls := find(compare(t, spaced, compact, DefaultOptions()), Call); len(calls) != 1 || !strings.Contains(calls[0].Message, "equal as JSON, bytes differ") {
		t.Errorf("one dialect: call differences = %+v; want the bytes reported", calls)
	}
}
