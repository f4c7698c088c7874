package streamdiff

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// diffKey is what tells one difference from another across two
// comparisons of the same streams: its kind and where it lies.
type diffKey struct {
	kind         Kind
	a, b, la, lb int
}

func keysOf(r *Result) map[diffKey]bool {
	out := map[diffKey]bool{}
	for _, d := range r.Differences {
		out[diffKey{d.Kind, d.EventA, d.EventB, d.LastA, d.LastB}] = true
	}
	return out
}

// TestStrictIsASuperset: --strict ignores nothing, so it reports every
// difference the default comparison reports (same kind, same events) and
// more. It reported less when a gateway dropped a delta and changed the
// obfuscation of every delta: the exact alignment, counting obfuscation,
// matched no delta, the dropped delta and the sequence gap became one
// chunking line, and the obfuscation of those deltas went unsaid. Each
// sample is compared with edits a gateway makes, both ways round.
func TestStrictIsASuperset(t *testing.T) {
	t.Parallel()
	obf := regexp.MustCompile(`"obfuscation":"([^"]*)"`)
	edits := map[string]func(bs []string) []string{
		"delta dropped": func(bs []string) []string {
			return dropFirst(bs, `_arguments.delta"`, `output_text.delta"`, `"delta":{"tool_calls"`)
		},
		"delta dropped, obfuscation changed": func(bs []string) []string {
			out := dropFirst(bs, `_arguments.delta"`, `output_text.delta"`)
			for i, b := range out {
				out[i] = obf.ReplaceAllString(b, `"obfuscation":"gw$1"`)
			}
			return out
		},
		"ids renamed, one event dropped": func(bs []string) []string {
			return blocks(renameIDs(join(dropFirst(bs, `output_item.done"`, `"finish_reason":"tool_calls"`))))
		},
		"keep-alive added": func(bs []string) []string { return append([]string{": keep-alive"}, bs...) },
		"last event cut":   func(bs []string) []string { return bs[:len(bs)-1] },
		"two events swapped": func(bs []string) []string {
			out := slices.Clone(bs)
			if len(out) > 6 {
				out[4], out[5] = out[5], out[4]
			}
			return out
		},
	}
	for _, name := range []string{"responses-single-call", "responses-parallel-calls", "responses-reasoning-then-call",
		"chat-single-call", "chat-parallel-calls", "anthropic-text-then-tool", "broken-sequence-gap"} {
		src := sampleBytes(t, name)
		for edit, f := range edits {
			b := join(f(blocks(src)))
			for _, pair := range [][2][]byte{{src, b}, {b, src}} {
				def := compare(t, pair[0], pair[1], DefaultOptions())
				str := compare(t, pair[0], pair[1], strict())
				got := keysOf(str)
				for _, d := range def.Differences {
					if !got[diffKey{d.Kind, d.EventA, d.EventB, d.LastA, d.LastB}] {
						t.Errorf("%s, %s: the default reports %s A#%d B#%d (%s); --strict does not:\n%s", name, edit, d.Kind, d.EventA, d.EventB,
							d.Message, summaryOf(str))
					}
				}
			}
		}
	}
	// The gateway's own sample, which renumbers, re-cuts and drops.
	a, b := sampleBytes(t, "responses-single-call"), sampleBytes(t, "gateway-responses-single-call")
	def, str := compare(t, a, b, DefaultOptions()), keysOf(compare(t, a, b, strict()))
	for _, d := range def.Differences {
		if !str[diffKey{d.Kind, d.EventA, d.EventB, d.LastA, d.LastB}] {
			t.Errorf("gateway: the default reports %s A#%d B#%d; --strict does not", d.Kind, d.EventA, d.EventB)
		}
	}
}

// dropFirst drops the second event that holds one of marks (the first
// may open what the others continue).
func dropFirst(bs []string, marks ...string) []string {
	seen := 0
	for i, b := range bs {
		if slices.ContainsFunc(marks, func(m string) bool { return strings.Contains(b, m) }) {
			if seen++; seen == 2 {
				return append(slices.Clone(bs[:i]), bs[i+1:]...)
			}
		}
	}
	return bs
}

func summaryOf(r *Result) string {
	var b strings.Builder
	for _, d := range r.Differences {
		fmt.Fprintf(&b, "  %s A#%d–%d B#%d–%d %s\n", d.Kind, d.EventA, d.LastA, d.EventB, d.LastB, d.Message)
	}
	return b.String()
}

// TestEventLinesLost: a Responses stream that lost every SSE event: line
// (a gateway that rebuilds the stream from the data) differs from one
// that has them, in one line each way round, with the count and the
// first event; --ignore event: leaves it out; the default and --strict
// both say it.
func TestEventLinesLost(t *testing.T) {
	t.Parallel()
	a := sampleBytes(t, "responses-single-call")
	var kept []string
	for _, l := range strings.Split(string(a), "\n") {
		if !strings.HasPrefix(l, "event:") {
			kept = append(kept, l)
		}
	}
	b := []byte(strings.Join(kept, "\n"))
	for _, o := range []Options{DefaultOptions(), strict()} {
		for i, pair := range [][2][]byte{{a, b}, {b, a}} {
			r := compare(t, pair[0], pair[1], o)
			var got []Difference
			for _, d := range r.Differences {
				if d.Path == IgnoreEventLines {
					got = append(got, d)
				}
			}
			side := []string{"A", "B"}[i]
			if len(got) != 1 || got[0].Kind != Field || got[0].CountA != 14 || got[0].EventA != 0 || got[0].LastA != 13 ||
				!strings.Contains(got[0].Message, "event: lines on "+side+" only") {
				t.Errorf("%s lost its event: lines (strict %v): %v; want one field difference over the 14 events on %s only\n%s", side, o.Ignore.Names() == nil, got, side, summaryOf(r))
			}
		}
	}
	ig := DefaultOptions()
	ig.Ignore = NewIgnore(append(DefaultIgnore(), IgnoreEventLines)...)
	if r := compare(t, a, b, ig); !r.Equal() {
		t.Errorf("--ignore event: should leave the event: lines out:\n%s", summaryOf(r))
	}
	if r := compare(t, sampleBytes(t, "responses-websocket-turns"), sampleBytes(t, "responses-websocket-turns"), strict()); !r.Equal() {
		t.Errorf("a WebSocket session has no event: lines to compare:\n%s", summaryOf(r))
	}
}
