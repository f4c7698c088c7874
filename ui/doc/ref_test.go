package doc

import (
	"bytes"
	"strings"

	"github.com/streamtap/streamtap/termtext"
	"github.com/streamtap/streamtap/ui/plain"
	"github.com/streamtap/streamtap/ui/theme"
)

// refPrettyPartial is the whole-text pretty-printer the panes used before
// they laid documents out lazily, kept as the oracle the lazy layout must
// agree with.
func refPrettyPartial(src []byte, markStart, markEnd int) []theme.Line {
	var out []theme.Line
	var cur theme.Line
	indent := 0
	newline := func() {
		out = append(out, cur)
		cur = theme.Line{{Text: strings.Repeat("  ", indent)}}
	}
	cur = theme.Line{}
	emit := func(a, b int, cls theme.TokClass) {
		for a < b {
			end, mark := b, false
			switch {
			case a < markStart:
				end = min(b, markStart)
			case a < markEnd:
				end, mark = min(b, markEnd), true
			}
			cur = append(cur, theme.Seg{Text: termtext.Safe(string(src[a:end])), Class: cls, Mark: mark})
			a = end
		}
	}
	// stack of open containers: '{' or '['; expectKey is true where an
	// object key may come next.
	var stack []byte
	expectKey := false
	skipWS := func(i int) int {
		for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
			i++
		}
		return i
	}
	i := skipWS(0)
	for i < len(src) {
		c := src[i]
		switch c {
		case '{', '[':
			emit(i, i+1, theme.TokPunct)
			close := byte('}')
			if c == '[' {
				close = ']'
			}
			j := skipWS(i + 1)
			if j < len(src) && src[j] == close {
				emit(j, j+1, theme.TokPunct)
				i = j + 1
				expectKey = false
				break
			}
			stack = append(stack, c)
			expectKey = c == '{'
			indent++
			if j < len(src) {
				newline()
			}
			i++
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			indent = max(indent-1, 0)
			newline()
			emit(i, i+1, theme.TokPunct)
			expectKey = false
			i++
		case ',':
			emit(i, i+1, theme.TokPunct)
			expectKey = len(stack) > 0 && stack[len(stack)-1] == '{'
			if skipWS(i+1) < len(src) {
				newline()
			}
			i++
		case ':':
			emit(i, i+1, theme.TokPunct)
			cur = append(cur, theme.Seg{Text: " "})
			expectKey = false
			i++
		case '"':
			j := stringEnd(src, i)
			cls := theme.TokString
			if expectKey {
				cls = theme.TokKey
			}
			emit(i, j, cls)
			i = j
		default:
			j := i + 1
			for j < len(src) && !theme.IsDelim(src[j]) {
				j++
			}
			emit(i, j, theme.ScalarClass(src[i:j]))
			expectKey = false
			i = j
		}
		i = skipWS(i)
	}
	out = append(out, cur)
	return out
}

// refRawLines is the whole-text raw layout the detail pane used before it
// laid documents out lazily (without its 1 MiB cut), kept as the oracle.
func refRawLines(raw []byte, head, keepSecrets bool) []theme.Line {
	var out []theme.Line
	for len(raw) > 0 {
		i := bytes.IndexAny(raw, "\r\n")
		line, end := raw, ""
		if i >= 0 {
			line = raw[:i]
			switch {
			case raw[i] == '\r' && i+1 < len(raw) && raw[i+1] == '\n':
				end, raw = theme.GlyphCR+theme.GlyphLF, raw[i+2:]
			case raw[i] == '\r':
				end, raw = theme.GlyphCR, raw[i+1:]
			default:
				end, raw = theme.GlyphLF, raw[i+1:]
			}
		} else {
			raw = nil
		}
		var l theme.Line
		switch {
		case len(line) > 0 && line[0] == ':':
			l = theme.Line{{Text: termtext.Safe(string(line)), Class: theme.TokComment}}
		case head:
			name, value, ok := strings.Cut(string(line), ":")
			if ok {
				value = plain.RedactHeader(name, strings.TrimSpace(value), keepSecrets)
				l = theme.Line{{Text: termtext.Safe(name), Class: theme.TokField}, {Text: ": "}, {Text: termtext.Safe(value)}}
			} else {
				l = theme.Line{{Text: termtext.Safe(string(line)), Class: theme.TokKey}}
			}
		default:
			name, value, ok := strings.Cut(string(line), ":")
			if ok && !strings.ContainsAny(name, " {\"") {
				l = theme.Line{{Text: termtext.Safe(name), Class: theme.TokField}, {Text: ":"}, {Text: termtext.Safe(value)}}
			} else {
				l = theme.Line{{Text: termtext.Safe(string(line))}}
			}
		}
		if end != "" {
			l = append(l, theme.Seg{Text: end, Class: theme.TokControl})
		}
		out = append(out, l)
	}
	return out
}

// stringEnd returns the index just past the JSON string starting at i, or
// len(s) when it is not closed.
func stringEnd[T string | []byte](s T, i int) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(s)
}
