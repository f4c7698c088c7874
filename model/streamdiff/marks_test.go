package streamdiff

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// glyphs draws the marks of side w as the diff page's gutter does: one
// character an event, "." for none.
func glyphs(m *Marks, r *Result, w Which, n int) string {
	var b strings.Builder
	for ord := range n {
		i := m.At(w, ord)
		if i < 0 {
			b.WriteByte('.')
			continue
		}
		b.WriteString(map[Kind]string{OnlyInA: "-", OnlyInB: "+", Reordered: "↕", Field: "~", Chunking: "÷", Sequence: "#"}[r.Differences[i].Kind])
		if k := r.Differences[i].Kind; k >= IDs {
			b.WriteString("◆")
		}
	}
	return b.String()
}

// marksOf compares a and b and works out their marks.
func marksOf(t *testing.T, a, b []byte, o Options) (*Marks, *Result, [2]*Side) {
	t.Helper()
	sa, sb := Build("A", a, 0, o.Ignore), Build("B", b, 0, o.Ignore)
	r := Compare(sa, sb, o)
	return NewMarks(r, sa, sb), r, [2]*Side{sa, sb}
}

// TestMarksCallArguments: a call whose arguments differ in their last
// value marks the events whose bytes or statements differ — the deltas
// that carry the changed bytes, the .done, output_item.done and terminal
// events — and not the seven identical deltas before them, nor the event
// that opened the call; the call difference is still about every event
// of the call, so a panel lists it at any of them.
func TestMarksCallArguments(t *testing.T) {
	a := sampleBytes(t, "responses-single-call")
	b := bytes.ReplaceAll(a, []byte(`elsius\"}`), []byte(`ubits\"}`))
	for _, tt := range []struct {
		name  string
		b     []byte
		o     Options
		wantA string
		wantB string
	}{
		// One dialect: the changed delta and the statements differ as
		// fields too (~, the more telling kind); nothing is ◆ alone.
		{"one dialect", b, DefaultOptions(), "..........~~~~", "..........~~~~"},
		// Two dialects: no event is aligned, so the call marks alone: on A
		// the deltas of "celsius" and the three statements; on Chat the
		// one fragment that carries the unit.
		{"two dialects", chatOf("get_weather", `{"location": "Pa`, `ris, France", "unit": "fahrenheit"}`), DefaultOptions(),
			".........◆◆◆◆◆", "..◆.."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, r, sides := marksOf(t, a, tt.b, tt.o)
			if got := glyphs(m, r, SideA, sides[0].Len()); got != tt.wantA {
				t.Errorf("marks on A = %s; want %s\n%s", got, tt.wantA, dump(r))
			}
			if got := glyphs(m, r, SideB, sides[1].Len()); got != tt.wantB {
				t.Errorf("marks on B = %s; want %s", got, tt.wantB)
			}
			call := slices.IndexFunc(r.Differences, func(d Difference) bool { return d.Kind == Call && d.Path == "arguments" })
			if call < 0 {
				t.Fatalf("no call difference on arguments\n%s", dump(r))
			}
			if !slices.Contains(m.About(SideA, 5), call) {
				t.Errorf("About(A, 5) = %v; want the call difference %d listed at an unmarked delta of the call", m.About(SideA, 5), call)
			}
			if got := m.First(SideA, call); got < 9 {
				t.Errorf("First(A, call) = %d; want the first delta that differs (9 or 10)", got)
			}
		})
	}
}

// TestMarksCallName: a call renamed by one side marks the event that
// names it (its output_item.added), not its deltas; with ids compared, a
// call id marks the same event.
func TestMarksCallName(t *testing.T) {
	a := sampleBytes(t, "chat-single-call")
	b := bytes.Replace(a, []byte(`"name":"get_stock_quote"`), []byte(`"name":"get_quote"`), 1)
	m, r, sides := marksOf(t, a, b, DefaultOptions())
	// The name's chunk differs as a field (~); the call's name marks it
	// too, under the field's mark; nothing else is marked.
	if got, want := glyphs(m, r, SideA, sides[0].Len()), "~........."; got != want {
		t.Errorf("marks on A = %s; want %s\n%s", got, want, dump(r))
	}
	m, r, _ = marksOf(t, a, chatOf("get_quote", `{"symbol":"NVDA","exchange":"NASDAQ"}`), Options{Ignore: NewIgnore("obfuscation")})
	seen := 0
	for i, d := range r.Differences {
		if d.Kind == Call && (d.Path == "name" || d.Path == "id") {
			seen++
			if got := m.First(SideA, i); got != 0 {
				t.Errorf("call %s marks A#%d first; want A#0, the chunk that opens the call", d.Path, got)
			}
		}
	}
	if seen != 2 {
		t.Errorf("%d call differences on name and id; want 2\n%s", seen, dump(r))
	}
}

// TestMarksInterleaved: the diff page's case of a stretch of one call's
// deltas that only A has, interleaved with the other call's: the marks
// keep to their own events, and the call whose deltas now disagree with
// its .done marks only its statements that disagree (its deltas run out
// before they agree again: the last of them) — not all of its events.
func TestMarksInterleaved(t *testing.T) {
	data := sampleBytes(t, "responses-parallel-calls")
	events := strings.SplitAfter(string(data), "\n\n")
	dropped := strings.Join(events[:26], "") + events[27] + strings.Join(events[29:], "") // get_local_time's #26 and #28
	m, r, sides := marksOf(t, data, []byte(dropped), DefaultOptions())
	// The ui's own marking (ui/diffmarks.go) gives ...◆◆.-#-#◆.◆....◆◆ on
	// A#20–#38: the call over every event of get_local_time, though A's
	// statements agree.
	if got, want := glyphs(m, r, SideA, sides[0].Len()), strings.Repeat(".", 26)+"-#-#.........."; got != want {
		t.Errorf("marks on A = %s; want %s\n%s", got, want, dump(r))
	}
	// On B, get_local_time's deltas stop agreeing with its .done at the
	// first of them after the gap (B#28).
	if got, want := glyphs(m, r, SideB, sides[1].Len()), strings.Repeat(".", 26)+"##◆........."; got != want {
		t.Errorf("marks on B = %s; want %s", got, want)
	}
}
