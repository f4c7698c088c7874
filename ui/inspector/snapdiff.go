package inspector

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/streamtap/streamtap/model/jsonscan"
	"github.com/streamtap/streamtap/ui/plain"
	"github.com/streamtap/streamtap/ui/theme"
)

// The snapshot diff compares two JSON values as the stream's bytes hold
// them, member by member, without decoding them: equal members are equal
// bytes (one memory compare, whatever their size), and a changed value is
// shown by a window of at most diffValueMax bytes around where it first
// differs, with its size. Decoding a 20 MB snapshot into Go values took
// half a second and 200 MB to show one changed line.

// diffValueMax bounds a value printed in a diff line.
const diffValueMax = 80

// diffEntriesMax bounds the differences listed for one pair of snapshots:
// two arrays of a million elements that all differ are not a screen.
const diffEntriesMax = 500

// diffEntry is one difference between two JSON values: op '+' added, '-'
// removed, '~' changed, at path; from and to are the values shown short.
type diffEntry struct {
	op       byte
	path     string
	from, to string
}

// jsonDiff walks two JSON values, given as their bytes, and reports each
// difference with its path until emit returns false.
func jsonDiff(path string, a, b []byte, emit func(diffEntry) bool) bool {
	a, b = bytes.TrimSpace(a), bytes.TrimSpace(b)
	if bytes.Equal(a, b) {
		return true
	}
	switch ka, kb := jsonscan.Kind(a), jsonscan.Kind(b); {
	case ka == '{' && kb == '{':
		return diffObjects(path, a, b, emit)
	case ka == '[' && kb == '[':
		return diffArrays(path, a, b, emit)
	case ka == '"' && kb == '"' && sameString(a, b):
		return true
	}
	if path == "" {
		path = "."
	}
	at := 0
	if jsonscan.Kind(a) == jsonscan.Kind(b) {
		at = samePrefix(a, b)
	}
	return emit(diffEntry{op: '~', path: path, from: shortJSON(a, at), to: shortJSON(b, at)})
}

// diffObjects compares two objects member by member, in key order. A key
// stated twice counts as its last value, as decoders read it.
func diffObjects(path string, a, b []byte, emit func(diffEntry) bool) bool {
	ma, mb := objectMembers(a), objectMembers(b)
	keys := make([]string, 0, len(ma)+len(mb))
	for k := range ma {
		keys = append(keys, k)
	}
	for k := range mb {
		if _, ok := ma[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		p := path + "." + k
		va, ina := ma[k]
		vb, inb := mb[k]
		var ok bool
		switch {
		case !ina:
			ok = emit(diffEntry{op: '+', path: p, to: shortJSON(vb, 0)})
		case !inb:
			ok = emit(diffEntry{op: '-', path: p, from: shortJSON(va, 0)})
		default:
			ok = jsonDiff(p, va, vb, emit)
		}
		if !ok {
			return false
		}
	}
	return true
}

// objectMembers maps an object's keys, decoded, to their values' bytes.
func objectMembers(obj []byte) map[string][]byte {
	m := map[string][]byte{}
	jsonscan.Members(obj, func(k, v []byte) bool {
		key := string(k)
		if bytes.IndexByte(k, '\\') >= 0 {
			key = string(jsonscan.Unquote(nil, append(append([]byte{'"'}, k...), '"')))
		}
		m[key] = v
		return true
	})
	return m
}

// diffArrays compares two arrays element by element.
func diffArrays(path string, a, b []byte, emit func(diffEntry) bool) bool {
	var ea, eb [][]byte
	jsonscan.Elements(a, func(_ int, v []byte) bool { ea = append(ea, v); return true })
	jsonscan.Elements(b, func(_ int, v []byte) bool { eb = append(eb, v); return true })
	for i := range max(len(ea), len(eb)) {
		p := path + "[" + strconv.Itoa(i) + "]"
		var ok bool
		switch {
		case i >= len(ea):
			ok = emit(diffEntry{op: '+', path: p, to: shortJSON(eb[i], 0)})
		case i >= len(eb):
			ok = emit(diffEntry{op: '-', path: p, from: shortJSON(ea[i], 0)})
		default:
			ok = jsonDiff(p, ea[i], eb[i], emit)
		}
		if !ok {
			return false
		}
	}
	return true
}

// sameString reports whether two JSON strings whose bytes differ hold the
// same text, written with different escapes ("é" and "\u00e9"). Only the
// shorter is decoded whole; the other is compared with it as it decodes.
func sameString(a, b []byte) bool {
	if bytes.IndexByte(a, '\\') < 0 && bytes.IndexByte(b, '\\') < 0 {
		return false
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	return jsonscan.EqualDecoded(b, jsonscan.Unquote(nil, a))
}

// shortJSON shows JSON value v on one line, without the whitespace
// between its tokens: at most diffValueMax bytes of it, starting a little
// before byte at (where it differs from the value it is compared with)
// when the start would not show that. A value cut short says its size.
func shortJSON(v []byte, at int) string {
	from := 0
	if at > diffValueMax-diffContext {
		from = at - diffContext
		for from > 0 && !utf8.RuneStart(v[from]) {
			from--
		}
	}
	var out []byte
	if from > 0 {
		out = append(out, theme.GlyphEllipsis...)
	}
	// A value cut short at a difference is a long string or number, so
	// the window starts inside the string when the value is one.
	i, inStr := from, from > 0 && jsonscan.Kind(v) == '"'
	for ; i < len(v) && len(out) < diffValueMax; i++ {
		c := v[i]
		switch {
		case inStr && c == '\\' && i+1 < len(v):
			out = append(out, c, v[i+1])
			i++
			continue
		case c == '"':
			inStr = !inStr
		case !inStr && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			continue
		}
		out = append(out, c)
	}
	for i < len(v) && !utf8.RuneStart(v[i]) { // end on a whole rune
		out = append(out, v[i])
		i++
	}
	if i < len(v) || from > 0 {
		if i < len(v) {
			out = append(out, theme.GlyphEllipsis...)
		}
		out = append(out, " ("+plain.Bytes(int64(len(v)))+")"...)
	}
	return string(out)
}

// samePrefix is the length of the common prefix of a and b, found a
// block at a time: snapshots that differ near the end of 20 MB share the
// rest.
func samePrefix(a, b []byte) int {
	const block = 4 << 10
	n := 0
	for n+block <= min(len(a), len(b)) && bytes.Equal(a[n:n+block], b[n:n+block]) {
		n += block
	}
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// styledRun is a run of terminal-safe text in one style, or unstyled
// when st is nil.
type styledRun struct {
	text string
	st   *lipgloss.Style
}

// wrapRuns lays runs out on lines at most w cells wide, continuation lines
// indented by indent cells. Each line styles its own part of each run, so
// no style runs on past a line's end into what is drawn beside it.
func wrapRuns(runs []styledRun, w, indent int) []string {
	if indent >= w-1 {
		indent = 0
	}
	var out []string
	var line strings.Builder
	used := 0
	for _, r := range runs {
		for text := r.text; text != ""; {
			if used >= w {
				out = append(out, line.String())
				line.Reset()
				line.WriteString(strings.Repeat(" ", indent))
				used = indent
			}
			head := ansi.Truncate(text, w-used, "")
			if head == "" {
				if used > indent {
					used = w // a wide rune that does not fit: on the next line
					continue
				}
				_, size := utf8.DecodeRuneInString(text) // one rune wider than the line
				head = text[:size]
			}
			n := len(head)
			if r.st != nil {
				head = r.st.Render(head)
			}
			line.WriteString(head)
			used += ansi.StringWidth(head)
			text = text[n:]
		}
	}
	return append(out, line.String())
}
