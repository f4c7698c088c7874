package inject

import (
	"slices"
	"strconv"

	"github.com/streamtap/streamtap/model/jsonscan"
)

// The edits of this file change one value of a JSON document and keep
// every other byte of it, so that an event a defect touches differs from
// the original only where the defect says. A path is a list of member
// names (string) and array positions (int).

// get returns the value at path in doc, or nil.
func get(doc []byte, path ...any) []byte {
	v := doc
	for _, p := range path {
		switch k := p.(type) {
		case string:
			v = jsonscan.Get(v, k)
		case int:
			var out []byte
			jsonscan.Elements(v, func(i int, e []byte) bool {
				if i == k {
					out = e
					return false
				}
				return true
			})
			v = out
		}
		if v == nil {
			return nil
		}
	}
	return v
}

// getString returns the string at path, and whether there is one.
func getString(doc []byte, path ...any) (string, bool) {
	return jsonscan.String(get(doc, path...))
}

// getInt returns the integer at path, and whether there is one.
func getInt(doc []byte, path ...any) (int, bool) {
	n, ok := jsonscan.Int(get(doc, path...))
	return int(n), ok
}

// count returns the number of elements of the array at path.
func count(doc []byte, path ...any) int {
	n := 0
	jsonscan.Elements(get(doc, path...), func(int, []byte) bool { n++; return true })
	return n
}

// spanOf returns where the value at path lies in doc.
func spanOf(doc []byte, path ...any) (start, end int, ok bool) {
	v := get(doc, path...)
	if v == nil {
		return 0, 0, false
	}
	off, ok := within(doc, v)
	return off, off + len(v), ok
}

// splice returns a copy of doc with doc[start:end] replaced by with.
func splice(doc []byte, start, end int, with []byte) []byte {
	out := make([]byte, 0, len(doc)-(end-start)+len(with))
	out = append(out, doc[:start]...)
	out = append(out, with...)
	return append(out, doc[end:]...)
}

// set returns doc with the value at path replaced by value (raw JSON).
func set(doc, value []byte, path ...any) ([]byte, bool) {
	s, e, ok := spanOf(doc, path...)
	if !ok {
		return doc, false
	}
	return splice(doc, s, e, value), true
}

// setString is set with a string value.
func setString(doc []byte, v string, path ...any) ([]byte, bool) {
	return set(doc, quote(v), path...)
}

// setInt is set with an integer value.
func setInt(doc []byte, n int, path ...any) ([]byte, bool) {
	return set(doc, strconv.AppendInt(nil, int64(n), 10), path...)
}

// quote is s as a JSON string.
func quote(s string) []byte { return jsonscan.AppendQuote(nil, s) }

// del returns doc without the member or element at path, and the comma
// that separated it from its neighbour.
func del(doc []byte, path ...any) ([]byte, bool) {
	if len(path) == 0 {
		return doc, false
	}
	parent := get(doc, path[:len(path)-1]...)
	pOff, ok := within(doc, parent)
	if !ok {
		return doc, false
	}
	start, end := -1, -1
	switch k := path[len(path)-1].(type) {
	case string:
		jsonscan.Members(parent, func(key, v []byte) bool {
			if string(key) == k {
				ks, _ := within(parent, key)
				vs, _ := within(parent, v)
				start, end = ks-1, vs+len(v) // from the key's opening quote
				return false
			}
			return true
		})
	case int:
		jsonscan.Elements(parent, func(i int, v []byte) bool {
			if i == k {
				vs, _ := within(parent, v)
				start, end = vs, vs+len(v)
				return false
			}
			return true
		})
	}
	if start < 0 {
		return doc, false
	}
	start, end = pOff+start, pOff+end
	// Take the comma after the value, or, for the last one, the one
	// before it.
	j := skipSpace(doc, end)
	if j < len(doc) && doc[j] == ',' {
		return splice(doc, start, skipSpace(doc, j+1), nil), true
	}
	i := start - 1
	for i >= 0 && isSpace(doc[i]) {
		i--
	}
	if i >= 0 && doc[i] == ',' {
		start = i
	}
	return splice(doc, start, end, nil), true
}

// add returns doc with member key set to value (raw JSON) first in the
// object at path; a member already named key is replaced where it is.
func add(doc []byte, key string, value []byte, path ...any) ([]byte, bool) {
	if out, ok := set(doc, value, append(slices.Clone(path), key)...); ok {
		return out, true
	}
	obj := get(doc, path...)
	off, ok := within(doc, obj)
	if !ok || jsonscan.Kind(obj) != '{' {
		return doc, false
	}
	open := off + skipSpace(obj, 0) + 1
	member := append(quote(key), ':')
	member = append(member, value...)
	empty := true
	jsonscan.Members(obj, func(_, _ []byte) bool { empty = false; return false })
	if !empty {
		member = append(member, ',')
	}
	return splice(doc, open, open, member), true
}

// appendElem returns doc with value (raw JSON) added at the end of the
// array at path.
func appendElem(doc, value []byte, path ...any) ([]byte, bool) {
	arr := get(doc, path...)
	off, ok := within(doc, arr)
	if !ok || jsonscan.Kind(arr) != '[' {
		return doc, false
	}
	closeAt := off + len(arr) - 1
	with := value
	if count(doc, path...) > 0 {
		with = append([]byte{','}, value...)
	}
	return splice(doc, closeAt, closeAt, with), true
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}
