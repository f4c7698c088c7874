package streamdiff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/streamtap/streamtap/model/jsonscan"
)

// PathChange is one place where two tools' arguments differ, as a reader
// of JSON sees them: a member or element one side lacks, or a value that
// differs. Its JSON form is part of the `diff --json` contract.
type PathChange struct {
	// Path is the JSON Pointer (RFC 6901) of the value: "/unit",
	// "/items/0/name"; "" is the whole value. With Bytes it is "".
	Path string `json:"path"`
	// A and B are the values on each side as compact JSON, nil on a side
	// that lacks the member or element. Strings over 1 KiB are cut (from a
	// little before where they differ) and containers over 4 KiB replaced
	// by a note, as a Difference's values are; Truncated says so.
	A         json.RawMessage `json:"a,omitempty"`
	B         json.RawMessage `json:"b,omitempty"`
	Truncated bool            `json:"truncated,omitempty"`
	// OffsetA and OffsetB are where the two sides first diverge at Path,
	// as a byte offset into each side's arguments: the first byte of the
	// value that differs (the first letter of "celsius" against
	// "fahrenheit"), or, on the side that has a member the other lacks,
	// its key. nil on the side that lacks it. Key order and spacing make
	// the two offsets differ even where the values start alike.
	OffsetA *int `json:"offset_a,omitempty"`
	OffsetB *int `json:"offset_b,omitempty"`
	// Bytes says that the arguments were compared as bytes, because one
	// side or both are not JSON: A and B are then the two strings from a
	// little before their first differing byte, which both offsets name.
	Bytes bool `json:"bytes,omitempty"`
}

// MaxPathChanges is the most changes ArgsDiff lists; it counts the rest.
// A call whose arguments are a 10,000-row table that a gateway rounds
// differently differs 10,000 times, and the first screens tell the story.
const MaxPathChanges = 64

// ArgsDiff compares two tools' arguments, each a JSON text as a call
// carries it (Responses, Chat and Anthropic send a string; streamtap
// writes Gemini's and Ollama's objects compactly), and returns where they
// differ as JSON: each differing path with both values and where each
// side diverges, in the order of a's members (then b's), and how many
// more changes there are past MaxPathChanges. Objects compare whatever
// their key order (the last of duplicate keys counts, as decoders keep
// it), numbers by value (1.0 is 1; integers too long for a float64 are
// still told apart), strings decoded; nothing is ignored (an "id" inside
// the arguments is the tool's). When a or b is not JSON, the result is
// one change with Bytes set: the byte difference. It returns nil when the
// two are equal as JSON, even if their bytes differ (spacing, key order,
// escapes): the caller that cares about bytes compares them itself.
//
// It walks the raw bytes, so 50 MB arguments that differ in one string
// cost their bytes and the decoding of that string, not two trees.
func ArgsDiff(a, b []byte) (changes []PathChange, more int) {
	if bytes.Equal(a, b) {
		return nil, 0
	}
	if jsonscan.Validate(a) != nil || jsonscan.Validate(b) != nil {
		return []PathChange{byteChange(a, b)}, 0
	}
	return jsonChanges(a, b)
}

// jsonChanges is ArgsDiff for two texts already known to be valid JSON.
func jsonChanges(a, b []byte) ([]PathChange, int) {
	w := argsWalk{root: [2][]byte{a, b}}
	w.value("", bytes.TrimSpace(a), bytes.TrimSpace(b), 0)
	return w.out, w.more
}

// byteChange is the byte difference of two texts that are not both JSON:
// each from a little before the first byte that differs, cut at maxValue.
func byteChange(a, b []byte) PathChange {
	at := commonPrefix(a, b)
	from := max(at-textContext, 0)
	for from > 0 && !(utf8.RuneStart(a[from]) && utf8.RuneStart(b[from])) {
		from--
	}
	va, cutA := stringJSON(a[min(from, len(a)):])
	vb, cutB := stringJSON(b[min(from, len(b)):])
	oa, ob := at, at
	return PathChange{A: va, B: vb, Truncated: from > 0 || cutA || cutB, OffsetA: &oa, OffsetB: &ob, Bytes: true}
}

// argsWalk walks two JSON values side by side and collects their changes.
type argsWalk struct {
	root [2][]byte // the whole arguments: offsets are taken in them
	out  []PathChange
	more int
}

// offsetIn is where v, a slice of root, starts in root. Every value the
// walk meets is a slice of its side's arguments (jsonscan returns slices,
// never copies), so the difference of capacities is its offset.
func offsetIn(root, v []byte) int { return cap(root) - cap(v) }

// add records a change unless MaxPathChanges are listed already; only
// then does it make the change's values.
func (w *argsWalk) add(build func() PathChange) {
	if len(w.out) >= MaxPathChanges {
		w.more++
		return
	}
	w.out = append(w.out, build())
}

// value compares the values va and vb found at path; depth bounds the
// nesting walked (a hostile 25-million-deep array must not overflow the
// stack): past maxHashDepth two containers are compared as bytes.
func (w *argsWalk) value(path string, va, vb []byte, depth int) {
	if bytes.Equal(va, vb) {
		return
	}
	ka, kb := jsonscan.Kind(va), jsonscan.Kind(vb)
	switch {
	case ka == '{' && kb == '{' && depth < maxHashDepth:
		w.objects(path, va, vb, depth)
		return
	case ka == '[' && kb == '[' && depth < maxHashDepth:
		w.arrays(path, va, vb, depth)
		return
	case ka == '"' && kb == '"':
		if equal, at, from := compareStrings(va, vb); !equal {
			w.add(func() PathChange { return w.stringChange(path, va, vb, at, from) })
		}
		return
	case isNumber(ka) && isNumber(kb) && sameNumber(va, vb):
		return
	}
	w.add(func() PathChange { return w.changed(path, va, vb) })
}

// changed is a change of two values both present, shown whole (compact).
func (w *argsWalk) changed(path string, va, vb []byte) PathChange {
	c := PathChange{Path: path, A: rawValue(va), B: rawValue(vb), Truncated: len(va) > 4*maxValue || len(vb) > 4*maxValue}
	c.OffsetA, c.OffsetB = w.diverge(va, vb)
	return c
}

// diverge is where two values present on both sides first differ, as an
// offset into each side's arguments.
func (w *argsWalk) diverge(va, vb []byte) (*int, *int) {
	at := commonPrefix(va, vb)
	oa, ob := offsetIn(w.root[0], va)+at, offsetIn(w.root[1], vb)+at
	return &oa, &ob
}

// stringChange is a change of two strings that differ from decoded byte
// at: shown whole when short, else each from a little before it.
func (w *argsWalk) stringChange(path string, va, vb []byte, at int, from [2]resume) PathChange {
	var f fieldDiff
	if len(va)+len(vb) > 2*bigString {
		f = bigStringDiff(path, va, vb, at, from)
	} else {
		f = stringDiff(path, jsonscan.Unquote(nil, va), jsonscan.Unquote(nil, vb))
	}
	c := PathChange{Path: path, A: f.a, B: f.b, Truncated: f.truncated}
	c.OffsetA, c.OffsetB = w.diverge(va, vb)
	return c
}

// only is a member or element that one side has (side 0 is a, 1 is b),
// starting at start (its key, for a member) and holding v.
func (w *argsWalk) only(side int, path string, start, v []byte) {
	w.add(func() PathChange {
		off := offsetIn(w.root[side], start)
		c := PathChange{Path: path, Truncated: len(v) > 4*maxValue}
		if side == 0 {
			c.A, c.OffsetA = rawValue(v), &off
		} else {
			c.B, c.OffsetB = rawValue(v), &off
		}
		return c
	})
}

// member is one member of an object as the walk keeps it: where its key
// starts, and its value.
type member struct{ key, value []byte }

// objects compares two objects member by member, in a's order, then the
// members only b has in b's order.
func (w *argsWalk) objects(path string, va, vb []byte, depth int) {
	ka, ma := members(va)
	kb, mb := members(vb)
	for _, k := range ka {
		p := path + "/" + pointerToken(k)
		if y, ok := mb[k]; ok {
			w.value(p, ma[k].value, y.value, depth+1)
		} else {
			w.only(0, p, ma[k].key, ma[k].value)
		}
	}
	for _, k := range kb {
		if _, ok := ma[k]; !ok {
			w.only(1, path+"/"+pointerToken(k), mb[k].key, mb[k].value)
		}
	}
}

// members lists an object's keys, decoded, in the order they first come,
// and each key's member; the last of duplicate keys counts.
func members(obj []byte) ([]string, map[string]member) {
	var keys []string
	m := map[string]member{}
	jsonscan.Members(obj, func(k, v []byte) bool {
		name := string(k)
		if bytes.IndexByte(k, '\\') >= 0 {
			name = string(jsonscan.Unquote(nil, obj[offsetIn(obj, k)-1:offsetIn(obj, k)+len(k)+1]))
		}
		if _, dup := m[name]; !dup {
			keys = append(keys, name)
		}
		m[name] = member{key: obj[offsetIn(obj, k)-1:], value: v}
		return true
	})
	return keys, m
}

// arrays compares two arrays element by element, in order.
func (w *argsWalk) arrays(path string, va, vb []byte, depth int) {
	var ea, eb [][]byte
	jsonscan.Elements(va, func(_ int, v []byte) bool { ea = append(ea, v); return true })
	jsonscan.Elements(vb, func(_ int, v []byte) bool { eb = append(eb, v); return true })
	for i := range max(len(ea), len(eb)) {
		p := path + "/" + strconv.Itoa(i)
		switch {
		case i >= len(ea):
			w.only(1, p, eb[i], eb[i])
		case i >= len(eb):
			w.only(0, p, ea[i], ea[i])
		default:
			w.value(p, ea[i], eb[i], depth+1)
		}
	}
}

// pointerToken escapes a member name for a JSON Pointer (RFC 6901 §4):
// "~" as "~0", "/" as "~1".
func pointerToken(k string) string {
	if !strings.ContainsAny(k, "~/") {
		return k
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
}

// describeChanges says a list of changes in one line for a message: the
// first few as `/unit: "celsius" → "fahrenheit" (A byte 40, B byte 38)`,
// then how many more.
func describeChanges(changes []PathChange, more int) string {
	const shownChanges = 3
	var parts []string
	for i, c := range changes {
		if i == shownChanges {
			more += len(changes) - i
			break
		}
		parts = append(parts, describeChange(c))
	}
	s := strings.Join(parts, "; ")
	if more > 0 {
		s += fmt.Sprintf("; and %d more", more)
	}
	return s
}

// String says the change in one line as reports say it:
// `/unit: "celsius" → "fahrenheit" (A byte 28, B byte 10)`, values cut to
// a line. It holds stream text: escape it before it reaches a terminal.
func (c PathChange) String() string { return describeChange(c) }

// describeChange says one change: path, both values, where each side
// diverges.
func describeChange(c PathChange) string {
	path := c.Path
	if path == "" {
		path = "(whole value)"
	}
	s := fmt.Sprintf("%s: %s → %s", path, shown(c.A), shown(c.B))
	if c.Bytes {
		s = fmt.Sprintf("%s ≠ %s", shown(c.A), shown(c.B))
	}
	switch {
	case c.OffsetA != nil && c.OffsetB != nil && *c.OffsetA == *c.OffsetB:
		s += fmt.Sprintf(" (byte %d)", *c.OffsetA)
	case c.OffsetA != nil && c.OffsetB != nil:
		s += fmt.Sprintf(" (A byte %d, B byte %d)", *c.OffsetA, *c.OffsetB)
	case c.OffsetA != nil:
		s += fmt.Sprintf(" (A byte %d)", *c.OffsetA)
	case c.OffsetB != nil:
		s += fmt.Sprintf(" (B byte %d)", *c.OffsetB)
	}
	return s
}
