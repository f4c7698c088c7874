package ui

import (
	"bytes"
	"strings"

	"github.com/streamtap/streamtap/termtext"
)

// refPrettyPartial is the whole-text pretty-printer the panes used before
// they laid documents out lazily, kept as the oracle the lazy layout must
// agree with.
func refPrettyPartial(src []byte, markStart, markEnd int) []segLine {
	var out []segLine
	var cur segLine
	indent := 0
	newline := func() {
		out = append(out, cur)
		cur = segLine{{text: strings.Repeat("  ", indent)}}
	}
	cur = segLine{}
	emit := func(a, b int, cls tokClass) {
		for a < b {
			end, mark := b, false
			switch {
			case a < markStart:
				end = min(b, markStart)
			case a < markEnd:
				end, mark = min(b, markEnd), true
			}
			cur = append(cur, seg{text: termtext.Safe(string(src[a:end])), cls: cls, mark: mark})
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
			emit(i, i+1, tokPunct)
			close := byte('}')
			if c == '[' {
				close = ']'
			}
			j := skipWS(i + 1)
			if j < len(src) && src[j] == close {
				emit(j, j+1, tokPunct)
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
			emit(i, i+1, tokPunct)
			expectKey = false
			i++
		case ',':
			emit(i, i+1, tokPunct)
			expectKey = len(stack) > 0 && stack[len(stack)-1] == '{'
			if skipWS(i+1) < len(src) {
				newline()
			}
			i++
		case ':':
			emit(i, i+1, tokPunct)
			cur = append(cur, seg{text: " "})
			expectKey = false
			i++
		case '"':
			j := stringEnd(src, i)
			cls := tokString
			if expectKey {
				cls = tokKey
			}
			emit(i, j, cls)
			i = j
		default:
			j := i + 1
			for j < len(src) && !isDelim(src[j]) {
				j++
			}
			emit(i, j, scalarClass(src[i:j]))
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
func refRawLines(raw []byte, head, keepSecrets bool) []segLine {
	var out []segLine
	for len(raw) > 0 {
		i := bytes.IndexAny(raw, "\r\n")
		line, end := raw, ""
		if i >= 0 {
			line = raw[:i]
			switch {
			case raw[i] == '\r' && i+1 < len(raw) && raw[i+1] == '\n':
				end, raw = glyphCR+glyphLF, raw[i+2:]
			case raw[i] == '\r':
				end, raw = glyphCR, raw[i+1:]
			default:
				end, raw = glyphLF, raw[i+1:]
			}
		} else {
			raw = nil
		}
		var l segLine
		switch {
		case len(line) > 0 && line[0] == ':':
			l = segLine{{text: termtext.Safe(string(line)), cls: tokComment}}
		case head:
			name, value, ok := strings.Cut(string(line), ":")
			if ok {
				value = RedactHeader(name, strings.TrimSpace(value), keepSecrets)
				l = segLine{{text: termtext.Safe(name), cls: tokField}, {text: ": "}, {text: termtext.Safe(value)}}
			} else {
				l = segLine{{text: termtext.Safe(string(line)), cls: tokKey}}
			}
		default:
			name, value, ok := strings.Cut(string(line), ":")
			if ok && !strings.ContainsAny(name, " {\"") {
				l = segLine{{text: termtext.Safe(name), cls: tokField}, {text: ":"}, {text: termtext.Safe(value)}}
			} else {
				l = segLine{{text: termtext.Safe(string(line))}}
			}
		}
		if end != "" {
			l = append(l, seg{text: end, cls: tokControl})
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

// splitLines cuts raw text segments at line breaks into lines of safe
// segments.
func splitLines(pieces []seg) []segLine {
	out := []segLine{nil}
	for _, p := range pieces {
		for i, part := range strings.Split(p.text, "\n") {
			if i > 0 {
				out = append(out, nil)
			}
			if part != "" {
				out[len(out)-1] = append(out[len(out)-1], seg{text: termtext.Safe(part), mark: p.mark})
			}
		}
	}
	return out
}
