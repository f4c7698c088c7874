package inject

import "bytes"

// The capture framer has already cut the stream into events; what is
// here rewrites the lines of one event whose bytes a defect changes (its
// data, its event: name), keeping its other lines and its line endings.

// line is one line of an event: its content and its terminator.
type line struct{ text, end []byte }

// splitLines cuts b into lines ended by CRLF, LF or CR; a last line
// without an ending has an empty end.
func splitLines(b []byte) []line {
	var out []line
	for len(b) > 0 {
		i := bytes.IndexAny(b, "\r\n")
		if i < 0 {
			out = append(out, line{text: b})
			break
		}
		n := 1
		if b[i] == '\r' && i+1 < len(b) && b[i+1] == '\n' {
			n = 2
		}
		out = append(out, line{text: b[:i], end: b[i : i+n]})
		b = b[i+n:]
	}
	return out
}

func joinLines(ls []line) []byte {
	var b []byte
	for _, l := range ls {
		b = append(b, l.text...)
		b = append(b, l.end...)
	}
	return b
}

// field tells the field a line of an SSE event sets: "data", "event", "",
// a comment (":").
func field(l line) string {
	if len(l.text) > 0 && l.text[0] == ':' {
		return ":"
	}
	name, _, _ := bytes.Cut(l.text, []byte(":"))
	return string(name)
}

// sseWithData returns an SSE event's bytes with its data: lines replaced
// by one line holding doc.
func sseWithData(own, doc []byte) []byte {
	ls := splitLines(own)
	var out []line
	put := false
	for _, l := range ls {
		if field(l) != "data" {
			out = append(out, l)
			continue
		}
		if !put {
			out = append(out, line{text: append([]byte("data: "), doc...), end: l.end})
			put = true
		}
	}
	return joinLines(out)
}

// sseWithName returns an SSE event's bytes with its event: line naming
// name, a line added first when it has none.
func sseWithName(own []byte, name string) []byte {
	ls := splitLines(own)
	for i, l := range ls {
		if field(l) == "event" {
			ls[i].text = []byte("event: " + name)
			return joinLines(ls)
		}
	}
	end := []byte("\n")
	if len(ls) > 0 && len(ls[0].end) > 0 {
		end = ls[0].end
	}
	return append(append([]byte("event: "+name), end...), own...)
}

// sseWithoutName returns an SSE event's bytes without its event: lines.
func sseWithoutName(own []byte) []byte {
	ls := splitLines(own)
	out := ls[:0:0]
	for _, l := range ls {
		if field(l) != "event" {
			out = append(out, l)
		}
	}
	return joinLines(out)
}

// withEndings returns b with every line ending made nl.
func withEndings(b []byte, nl string) []byte {
	ls := splitLines(b)
	for i := range ls {
		if len(ls[i].end) > 0 {
			ls[i].end = []byte(nl)
		}
	}
	return joinLines(ls)
}
