package responses

import (
	"runtime"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// jsonEquivalentCompacting is jsonEquivalent as it was, compacting a copy
// of each value: what jsonEquivalent must answer.
func jsonEquivalentCompacting(present map[string]string) bool {
	var first string
	n := 0
	for _, v := range present {
		if jsonscan.Validate([]byte(v)) != nil {
			return false
		}
		cv := model.CompactJSON([]byte(v))
		if n == 0 {
			first = cv
		} else if cv != first {
			return false
		}
		n++
	}
	return true
}

// FuzzJSONEquivalent holds jsonEquivalent to the comparison of compacted
// copies, for two texts and for one with its whitespace moved.
func FuzzJSONEquivalent(f *testing.F) {
	for _, s := range [][2]string{
		{`{"a":1}`, `{ "a" : 1 }`}, {`{"a":"x y"}`, `{"a":"x  y"}`}, {`{"a":"\" "}`, `{"a" :"\" "}`},
		{`[1,2]`, "[1,\n2]"}, {`{"a":"\\"}`, `{"a":"\\" }`}, {`{"a":1}`, `{"a":2}`}, {`{}`, ``},
		{"{\"a\":\"\xff\"}", "{ \"a\":\"\xff\"}"}, {`"x"`, ` "x" `}, {`{"a":[]}`, `{"a":[ ]}`},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		spaced := strings.NewReplacer(",", " , ", ":", "\t:\n").Replace(a)
		for _, p := range []map[string]string{{"x": a, "y": b}, {"x": a, "y": spaced}, {"x": a, "y": b, "z": spaced}} {
			if got, want := jsonEquivalent(p), jsonEquivalentCompacting(p); got != want {
				t.Fatalf("jsonEquivalent(%q) = %v; want %v", p, got, want)
			}
		}
	})
}

// Telling whether differing arguments are the same JSON copies none of
// them: compacting a copy of each (and validating another) cost 290 MB for
// a 50 MB call whose .done differed from its deltas. Here two texts of 4
// MiB allocate next to nothing. Not parallel: it counts the process's
// allocations.
func TestJSONEquivalentCopiesNoArguments(t *testing.T) {
	row := `{"path": "a/b.txt", "line": "x y"}, `
	a := "[" + strings.Repeat(row, 4<<20/len(row)) + "{}]"
	b := strings.ReplaceAll(a, ", ", ",")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	same := jsonEquivalent(map[string]string{"deltas": a, "done": b})
	runtime.ReadMemStats(&after)
	if !same {
		t.Fatal("two texts told apart by whitespace only are not equivalent")
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
		t.Errorf("comparing texts of %d and %d MiB allocated %d KiB; want no copy of them (at most 64 KiB)", len(a)>>20, len(b)>>20, n>>10)
	}
}
