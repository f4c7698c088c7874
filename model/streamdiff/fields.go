package streamdiff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"
)

// maxValue is the longest string a Difference shows in full; longer ones
// are cut (Truncated). A 50 MB argument that differs by one byte is
// reported, not printed.
const maxValue = 1024

// maxFieldsPerEvent is the most field differences one pair of events
// reports: a snapshot rebuilt field by field is one difference per field
// up to here, and the rest is left to the later events that show it too.
const maxFieldsPerEvent = 16

// fieldDiff is one member that differs between two JSON values; a or b
// is absentValue when the member is missing on that side.
type fieldDiff struct {
	path string
	a, b any
}

// absent marks a member missing on one side.
type absent struct{}

var absentValue = absent{}

// compareFields compares the data of aligned events a and b member by
// member, leaving ignored members out, and reports each that differs.
func (c *comparer) compareFields(l *lane, a, b int32) {
	da, errA := c.side[SideA].Data(int(a))
	db, errB := c.side[SideB].Data(int(b))
	typ := c.typeName(SideA, a)
	base := Difference{Kind: Field, Item: l.name(), Type: typ, EventA: int(a), EventB: int(b), LastA: -1, LastB: -1}
	if errA != nil || errB != nil {
		d := base
		d.Message = fmt.Sprintf("%s at A#%d / B#%d: the events differ, but their bytes cannot be read back", typ, a, b)
		c.add(d)
		return
	}
	va, okA := decode(da)
	vb, okB := decode(db)
	var diffs []fieldDiff
	if okA && okB {
		c.diffValues("", va, vb, &diffs)
	} else if !bytes.Equal(bytes.TrimSpace(da), bytes.TrimSpace(db)) {
		diffs = append(diffs, fieldDiff{path: "(data)", a: string(da), b: string(db)})
	}
	for i, f := range diffs {
		if i == maxFieldsPerEvent {
			d := base
			d.Message = fmt.Sprintf("%s at A#%d / B#%d: %d more members differ", typ, a, b, len(diffs)-i)
			c.add(d)
			break
		}
		d := base
		d.Path = f.path
		var ta, tb bool
		d.A, ta = valueJSON(f.a)
		d.B, tb = valueJSON(f.b)
		d.Truncated = ta || tb
		d.Message = fmt.Sprintf("%s %s: %s ≠ %s", typ, f.path, shown(d.A), shown(d.B))
		c.add(d)
	}
}

// decode parses JSON data, keeping numbers as written.
func decode(data []byte) (any, bool) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || (data[0] != '{' && data[0] != '[') {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}

// diffValues appends to out every member under path that differs between
// a and b, up to maxFieldsPerEvent+1 of them (one more tells there were
// more).
func (c *comparer) diffValues(path string, a, b any, out *[]fieldDiff) {
	if len(*out) > maxFieldsPerEvent {
		return
	}
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			break
		}
		keys := make([]string, 0, len(x)+len(y))
		for k := range x {
			keys = append(keys, k)
		}
		for k := range y {
			if _, dup := x[k]; !dup {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			if c.o.Ignore.Has(k) || k == IgnoreSeq {
				continue // sequence numbers are checkSequence's
			}
			va, inA := x[k]
			vb, inB := y[k]
			p := joinPath(path, k)
			switch {
			case !inA:
				*out = append(*out, fieldDiff{p, absentValue, vb})
			case !inB:
				*out = append(*out, fieldDiff{p, va, absentValue})
			default:
				c.diffValues(p, va, vb, out)
			}
		}
		return
	case []any:
		y, ok := b.([]any)
		if !ok {
			break
		}
		for i := range max(len(x), len(y)) {
			p := path + "[" + strconv.Itoa(i) + "]"
			switch {
			case i >= len(x):
				*out = append(*out, fieldDiff{p, absentValue, y[i]})
			case i >= len(y):
				*out = append(*out, fieldDiff{p, x[i], absentValue})
			default:
				c.diffValues(p, x[i], y[i], out)
			}
			if len(*out) > maxFieldsPerEvent {
				return
			}
		}
		return
	}
	if !sameScalar(a, b) {
		*out = append(*out, fieldDiff{path, a, b})
	}
}

// joinPath appends a member name to a JSON path, quoting names that are
// not plain identifiers.
func joinPath(path, k string) string {
	plain := k != ""
	for _, r := range k {
		if !(r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			plain = false
			break
		}
	}
	if !plain {
		k = strconv.Quote(k)
		return path + "[" + k + "]"
	}
	if path == "" {
		return k
	}
	return path + "." + k
}

// sameScalar compares two decoded scalars (or a container with a scalar,
// which differ); numbers are equal when their values are.
func sameScalar(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		fx, errX := strconv.ParseFloat(string(x), 64)
		fy, errY := strconv.ParseFloat(string(y), 64)
		return errX == nil && errY == nil && fx == fy
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	}
	return false
}

// valueJSON renders a value for a Difference: nil when absent, long
// strings cut at maxValue bytes (at a rune boundary) and big containers
// replaced by a note, with truncated set.
func valueJSON(v any) (json.RawMessage, bool) {
	if _, ok := v.(absent); ok {
		return nil, false
	}
	if s, ok := v.(string); ok && len(s) > maxValue {
		cut := maxValue
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		b, _ := marshal(s[:cut])
		return b, true
	}
	b, err := marshal(v)
	if err != nil {
		return json.RawMessage(`null`), false
	}
	if len(b) > 4*maxValue {
		note, _ := marshal(fmt.Sprintf("(%d bytes of JSON)", len(b)))
		return note, true
	}
	return b, false
}

// shown is a value as a message shows it: its JSON, cut to a line.
func shown(v json.RawMessage) string {
	if v == nil {
		return "(absent)"
	}
	const maxShown = 80
	s := string(v)
	if len(s) > maxShown {
		cut := maxShown
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
