package streamdiff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// maxValue is the longest string a Difference shows in full; longer ones
// are cut (Truncated). A 50 MB argument that differs by one byte is
// reported, not printed.
const maxValue = 1024

// maxFieldsPerEvent is the most field differences one pair of events
// reports: a snapshot rebuilt field by field is one difference per field
// up to here, and the rest is left to the later events that show it too.
const maxFieldsPerEvent = 16

// fieldDiff is one member that differs between two events' data: its
// path and both values as reports show them (nil when absent).
type fieldDiff struct {
	path      string
	a, b      json.RawMessage
	truncated bool
	offset    *int // strings: where they start to differ
	// dec holds two strings under bigString that differ, decoded, for
	// argsField; nil for anything else.
	dec [2][]byte
}

// compareFields compares the data of aligned events a and b member by
// member, leaving ignored members out, and reports each that differs. It
// walks the raw JSON rather than decoding it: a 50 MB event costs its
// bytes, read back, and the decoding of the one string that differs.
func (c *comparer) compareFields(l *lane, a, b int32) {
	da, errA := c.side[SideA].Data(int(a))
	if c.side[SideA].rec == c.side[SideB].rec {
		da = bytes.Clone(da) // one side compared with itself: one buffer
	}
	db, errB := c.side[SideB].Data(int(b))
	typ := c.typeName(SideA, a)
	base := Difference{Kind: Field, Item: l.name(), Type: typ, EventA: int(a), EventB: int(b), LastA: -1, LastB: -1}
	if errA != nil || errB != nil {
		d := base
		d.Message = fmt.Sprintf("%s at A#%d / B#%d: the events differ, but their bytes cannot be read back", typ, a, b)
		c.add(d)
		return
	}
	da, db = bytes.TrimSpace(da), bytes.TrimSpace(db)
	var diffs []fieldDiff
	if c.isJSON(SideA, a, da) && c.isJSON(SideB, b, db) {
		c.diffValues("", da, db, &diffs, 0)
	} else if !bytes.Equal(da, db) {
		diffs = append(diffs, stringDiff("(data)", da, db))
	}
	for i, f := range diffs {
		if i == maxFieldsPerEvent {
			d := base
			d.Message = fmt.Sprintf("%s at A#%d / B#%d: %d more members differ", typ, a, b, len(diffs)-i)
			c.add(d)
			break
		}
		d := base
		d.Path, d.A, d.B, d.Truncated, d.Offset, d.says = f.path, f.a, f.b, f.truncated, f.offset, saysField
		if f.dec[0] != nil {
			c.argsField(l, &d, f.dec)
		}
		c.add(d)
	}
}

// callArgs is what compareFields needs to tell, of a string field of a
// call's events that differs, whether it holds the call's arguments: the
// final arguments of both sides, made once per lane.
type callArgs struct {
	final [2][]byte
	// refer: a field whose two values are the final arguments says so
	// rather than repeat them, since the call difference shows them (not
	// when call differences are ignored: then nothing else would).
	refer bool
}

// laneArgs returns the final arguments of the lane's calls when it is a
// call on both sides, or nil. They are made once per lane, when a string
// field first differs: a call whose statements disagree has its final
// arguments copied, and a 50 MB one must not be copied per event.
func (c *comparer) laneArgs(l *lane) *callArgs {
	if l.args != nil || l.item[0] < 0 || l.item[1] < 0 {
		return l.args
	}
	ia, ib := c.side[SideA].S.Items[l.item[0]], c.side[SideB].S.Items[l.item[1]]
	if !ia.IsCall() || !ib.IsCall() {
		return nil
	}
	l.args = &callArgs{final: [2][]byte{finalArgs(ia), finalArgs(ib)}, refer: !c.ignores(Call)}
	return l.args
}

// argsField says what a string field d that differs holds when it is
// arguments, given both strings decoded: a call's final arguments on both
// sides (said once, by the call difference), or, in a call's events,
// arguments of their own that differ as JSON (their JSON difference) or
// only as bytes. Anything else, a fragment of arguments among them, stays
// a plain field difference.
//
// Strings over bigString are left as they are (diffValues does not
// decode them whole): telling would cost a pass of decoding over each (a
// 50 MB call stated three times took a third longer to compare), and
// they are shown from where they differ anyway, a KiB each, not whole.
func (c *comparer) argsField(l *lane, d *Difference, dec [2][]byte) {
	a, b := dec[0], dec[1]
	ca := c.laneArgs(l)
	if ca != nil && ca.refer && !bytes.Equal(ca.final[0], ca.final[1]) && bytes.Equal(a, ca.final[0]) && bytes.Equal(b, ca.final[1]) {
		d.says = saysArgsOfCall
		return
	}
	if !isContainer(a) || !isContainer(b) || jsonscan.Validate(a) != nil || jsonscan.Validate(b) != nil {
		return
	}
	if ca == nil {
		// A response's own events state its calls' arguments too (the
		// terminal snapshot's output[]).
		if name, ok := c.finalArgsOf(a, b); ok {
			d.says = saysArgsOfNamedCall
			d.Message = fmt.Sprintf("%s %s: the final arguments of %s, which differ (its call difference says how)", d.Type, d.Path, name)
		}
		return
	}
	d.ArgsChanges, d.ArgsChangesMore = jsonChanges(a, b)
	d.says = saysArgsJSON
}

// finalArgsOf finds the call whose final arguments are a on side A and b
// on side B, among the calls the alignment paired whose arguments differ,
// and returns its name. The pairs are hashed once, when a response's
// event first needs them, and not kept: only their hashes are.
func (c *comparer) finalArgsOf(a, b []byte) (string, bool) {
	if c.ignores(Call) {
		return "", false
	}
	if c.argsPairs == nil {
		c.argsPairs = map[[2]uint64]string{}
		for _, p := range c.calls {
			if p[0] == nil || p[1] == nil {
				continue
			}
			fa, fb := finalArgs(p[0]), finalArgs(p[1])
			if !bytes.Equal(fa, fb) {
				c.argsPairs[[2]uint64{maphash.Bytes(seed, fa), maphash.Bytes(seed, fb)}] = itemName(p[0])
			}
		}
	}
	name, ok := c.argsPairs[[2]uint64{maphash.Bytes(seed, a), maphash.Bytes(seed, b)}]
	return name, ok
}

// ignores reports whether differences of kind k are ignored.
func (c *comparer) ignores(k Kind) bool { return c.o.Ignore.Has(k.String()) }

// isContainer reports whether a JSON text is an object or an array, as
// arguments are (a string holding "1" is not a call's arguments).
func isContainer(v []byte) bool {
	k := jsonscan.Kind(v)
	return k == '{' || k == '['
}

// isJSON reports whether the data of event ord of side w is a JSON object
// or array the walk can read. The session validated every event as it
// came and typed the invalid ones: no second pass over a 50 MB event.
func (c *comparer) isJSON(w Which, ord int32, data []byte) bool {
	return len(data) > 0 && (data[0] == '{' || data[0] == '[') && c.typeName(w, ord) != model.TypeInvalid
}

// diffValues appends to out every member under path that differs between
// the JSON values a and b, up to maxFieldsPerEvent+1 of them (one more
// tells there were more). Objects compare whatever their key order,
// numbers by value, strings decoded.
func (c *comparer) diffValues(path string, a, b []byte, out *[]fieldDiff, depth int) {
	if len(*out) > maxFieldsPerEvent || bytes.Equal(a, b) {
		return
	}
	ka, kb := jsonscan.Kind(a), jsonscan.Kind(b)
	switch {
	case ka == '{' && kb == '{' && depth < maxHashDepth:
		c.diffObjects(path, a, b, out, depth)
		return
	case ka == '[' && kb == '[' && depth < maxHashDepth:
		var ea, eb [][]byte
		jsonscan.Elements(a, func(_ int, v []byte) bool { ea = append(ea, v); return true })
		jsonscan.Elements(b, func(_ int, v []byte) bool { eb = append(eb, v); return true })
		for i := range max(len(ea), len(eb)) {
			p := path + "[" + strconv.Itoa(i) + "]"
			switch {
			case i >= len(ea):
				*out = append(*out, fieldDiff{path: p, b: rawValue(eb[i])})
			case i >= len(eb):
				*out = append(*out, fieldDiff{path: p, a: rawValue(ea[i])})
			default:
				c.diffValues(p, ea[i], eb[i], out, depth+1)
			}
			if len(*out) > maxFieldsPerEvent {
				return
			}
		}
		return
	case ka == '"' && kb == '"' && len(a)+len(b) > 2*bigString:
		if equal, at, from := compareStrings(a, b); !equal {
			*out = append(*out, bigStringDiff(path, a, b, at, from))
		}
		return
	case ka == '"' && kb == '"':
		da, db := jsonscan.Unquote(nil, a), jsonscan.Unquote(nil, b)
		if !bytes.Equal(da, db) {
			f := stringDiff(path, da, db)
			f.dec = [2][]byte{da, db}
			*out = append(*out, f)
		}
		return
	case isNumber(ka) && isNumber(kb) && sameNumber(a, b):
		return
	}
	*out = append(*out, fieldDiff{path: path, a: rawValue(a), b: rawValue(b)})
}

// diffObjects compares two objects member by member, in key order.
func (c *comparer) diffObjects(path string, a, b []byte, out *[]fieldDiff, depth int) {
	members := func(obj []byte) map[string][]byte {
		m := map[string][]byte{}
		jsonscan.Members(obj, func(k, v []byte) bool {
			if !c.o.Ignore.hasKey(k) && string(k) != IgnoreSeq { // sequence numbers are checkSequence's
				m[string(k)] = v
			}
			return true
		})
		return m
	}
	ma, mb := members(a), members(b)
	keys := make([]string, 0, len(ma)+len(mb))
	for k := range ma {
		keys = append(keys, k)
	}
	for k := range mb {
		if _, dup := ma[k]; !dup {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		va, inA := ma[k]
		vb, inB := mb[k]
		p := joinPath(path, k)
		switch {
		case !inA:
			*out = append(*out, fieldDiff{path: p, b: rawValue(vb)})
		case !inB:
			*out = append(*out, fieldDiff{path: p, a: rawValue(va)})
		default:
			c.diffValues(p, va, vb, out, depth+1)
		}
		if len(*out) > maxFieldsPerEvent {
			return
		}
	}
}

func isNumber(k byte) bool { return k == '-' || k >= '0' && k <= '9' }

// sameNumber compares two JSON numbers by value: 1.0 is 1 and 1e2 is 100,
// and, unlike two float64s, 12345678901234567890 is not
// 12345678901234567891: a tool's arguments carry ids as long integers.
func sameNumber(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	da, okA := parseDecimal(a)
	db, okB := parseDecimal(b)
	return okA && okB && da == db
}

// decimal is a JSON number as sign, significant digits (no leading or
// trailing zeros) and a power of ten: one value, one decimal.
type decimal struct {
	neg    bool
	digits string
	exp    int64
}

// maxExp saturates exponents: two numbers past 10^(10^15) compare equal,
// as both are +Inf to a float64, and a hostile exponent cannot overflow.
const maxExp = 1e15

// parseDecimal reads a JSON number (-?int(.frac)?([eE][+-]?digits)?).
func parseDecimal(v []byte) (decimal, bool) {
	var d decimal
	i := 0
	if i < len(v) && v[i] == '-' {
		d.neg, i = true, i+1
	}
	start := i
	for i < len(v) && v[i] >= '0' && v[i] <= '9' {
		i++
	}
	digits := append([]byte(nil), v[start:i]...)
	if i == start {
		return d, false
	}
	if i < len(v) && v[i] == '.' {
		i++
		f := i
		for i < len(v) && v[i] >= '0' && v[i] <= '9' {
			i++
		}
		digits = append(digits, v[f:i]...)
		d.exp = -int64(i - f)
	}
	if i < len(v) && (v[i] == 'e' || v[i] == 'E') {
		i++
		neg := false
		if i < len(v) && (v[i] == '+' || v[i] == '-') {
			neg, i = v[i] == '-', i+1
		}
		e := int64(0)
		for ; i < len(v) && v[i] >= '0' && v[i] <= '9'; i++ {
			e = min(e*10+int64(v[i]-'0'), maxExp)
		}
		if neg {
			e = -e
		}
		d.exp = max(min(d.exp+e, maxExp), -maxExp)
	}
	if i != len(v) {
		return d, false
	}
	lead := 0
	for lead < len(digits) && digits[lead] == '0' {
		lead++
	}
	digits = digits[lead:]
	for len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		d.exp = min(d.exp+1, maxExp)
	}
	if len(digits) == 0 {
		return decimal{}, true // zero, whatever its sign and exponent
	}
	d.digits = string(digits)
	return d, true
}

// stringDiff reports two decoded strings that differ. A long one is shown
// from a little before the first byte that differs, and offset says
// where that is: a 50 MB argument changed in its middle shows the change.
func stringDiff(path string, a, b []byte) fieldDiff {
	f := fieldDiff{path: path}
	from := 0
	if len(a) > maxValue || len(b) > maxValue {
		at := commonPrefix(a, b)
		f.offset = &at
		from = max(at-textContext, 0)
		for from > 0 && !(utf8.RuneStart(a[from]) && utf8.RuneStart(b[from])) {
			from--
		}
	}
	var ta, tb bool
	f.a, ta = stringJSON(a[min(from, len(a)):])
	f.b, tb = stringJSON(b[min(from, len(b)):])
	f.truncated = from > 0 || ta || tb
	return f
}

// bigStringDiff is stringDiff for two long JSON string values that differ
// from decoded byte at: each is decoded only around it.
func bigStringDiff(path string, a, b []byte, at int, r [2]resume) fieldDiff {
	from := max(at-textContext, 0)
	wa, wb := window(a, r[0], from, maxValue+textContext), window(b, r[1], from, maxValue+textContext)
	skip := 0 // to the first whole rune of both windows
	for skip < min(len(wa), len(wb), utf8.UTFMax) && !(utf8.RuneStart(wa[skip]) && utf8.RuneStart(wb[skip])) {
		skip++
	}
	f := fieldDiff{path: path, offset: &at, truncated: true}
	f.a, _ = stringJSON(wa[min(skip, len(wa)):])
	f.b, _ = stringJSON(wb[min(skip, len(wb)):])
	return f
}

// stringJSON is a string as a JSON value, cut at maxValue bytes.
func stringJSON(s []byte) (json.RawMessage, bool) {
	cut := len(s) > maxValue
	if cut {
		n := maxValue
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n]
	}
	v, _ := marshal(string(s))
	return v, cut
}

// rawValue is a value as a report shows it: its JSON made compact, or a
// note of its size when it is over 4 KiB.
func rawValue(v []byte) json.RawMessage {
	if len(v) > 4*maxValue {
		note, _ := marshal(fmt.Sprintf("(%d bytes of JSON)", len(v)))
		return note
	}
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		note, _ := marshal(string(v))
		return note
	}
	return b.Bytes()
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

// valueJSON renders a decoded value for a Difference: long strings cut at maxValue bytes (at a rune boundary) and big containers
// replaced by a note, with truncated set.
func valueJSON(v any) (json.RawMessage, bool) {
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
