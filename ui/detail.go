package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

// rawShowMax bounds how much of one event the detail pane lays out; the
// rest is summarised (y copies all of it).
const rawShowMax = 1 << 20

// detailPane shows the selected event: pretty, highlighted JSON, or the raw
// bytes as received with line endings and comments made visible.
type detailPane struct {
	s           *model.Session
	st          *styles
	keepSecrets bool
	w, h        int
	raw         bool
	scroll      int

	// The laid-out content, kept for (ord, raw, width).
	key    detailKey
	header []segLine
	lines  []segLine // small values: every line, highlighted and wrapped
	plain  []string  // large values: indented text, coloured per visible line
}

type detailKey struct {
	ord, w int
	raw    bool
	n      int // session length, for events still growing
}

func (d *detailPane) setSize(w, h int) { d.w, d.h = w, max(h, 1) }

// total is the number of content lines.
func (d *detailPane) total() int { return len(d.header) + len(d.lines) + len(d.plain) }

func (d *detailPane) scrollBy(n int) {
	d.scroll = clamp(d.scroll+n, 0, max(d.total()-d.h, 0))
}

func (d *detailPane) prepare(ord int) {
	k := detailKey{ord: ord, w: d.w, raw: d.raw, n: d.s.Len()}
	if k == d.key && (d.header != nil || ord < 0) {
		return
	}
	if k.ord != d.key.ord || k.raw != d.key.raw {
		d.scroll = 0
	}
	d.key = k
	d.header, d.lines, d.plain = nil, nil, nil
	if ord < 0 || ord >= d.s.Events.Len() {
		return
	}
	ev := d.s.Events.At(ord)
	raw, err := d.s.Raw(ev)
	d.header = d.headerLines(ev, ord, err)
	if d.raw {
		d.lines = d.wrapAll(rawLines(raw, ev, d.keepSecrets))
		return
	}
	switch ev.Source {
	case capture.FrameHead:
		d.lines = d.wrapAll(d.headLines(ord))
		return
	case capture.FrameComment, capture.FrameRemainder:
		d.lines = d.wrapAll(rawLines(raw, ev, d.keepSecrets))
		return
	}
	data, ok := eventData(raw)
	if !ok {
		d.lines = d.wrapAll(rawLines(raw, ev, d.keepSecrets))
		return
	}
	if len(data) > rawShowMax {
		d.lines = append(d.lines, segLine{{text: fmt.Sprintf("%d bytes; showing the first %d", len(data), rawShowMax), cls: tokComment}})
		data = data[:rawShowMax]
	}
	var ind bytes.Buffer
	if json.Indent(&ind, data, "", "  ") != nil {
		// Not JSON ([DONE], a cut-off or broken payload): show it with the
		// place where it stops being JSON marked.
		stt := model.ArgsState(data, true)
		mark := len(data)
		if !stt.Complete && !stt.Empty {
			mark = stt.Offset
			d.lines = append(d.lines, segLine{{text: "data is not JSON: " + stt.String(), cls: tokError}})
		}
		d.lines = append(d.lines, d.wrapAll(prettyPartial(data, mark, mark+1))...)
		return
	}
	if ind.Len() <= chromaLimit {
		d.lines = append(d.lines, d.wrapAll(chromaLines(ind.String()))...)
		return
	}
	d.plain = strings.Split(ind.String(), "\n")
}

func (d *detailPane) wrapAll(ls []segLine) []segLine {
	var out []segLine
	for _, l := range ls {
		out = append(out, wrapSegs(l, d.w)...)
	}
	return out
}

// headerLines describe the event: what it is and where it sits.
func (d *detailPane) headerLines(ev *model.Event, ord int, rerr error) []segLine {
	s := d.s
	first := fmt.Sprintf("#%d  %s  %s  %s", ord, Safe(s.TypeName(ev.Type)), ev.Kind, ev.Dialect)
	second := fmt.Sprintf("bytes %d..%d (%d)  at %s", ev.Offset, ev.Offset+int64(ev.Len), ev.Len, FormatTime(ev.At))
	if ev.Seq >= 0 {
		second += "  seq " + strconv.FormatInt(ev.Seq, 10)
	}
	if ev.Item >= 0 && int(ev.Item) < len(s.Items) {
		second += "  item " + itemLabel(s.Items[ev.Item])
	}
	out := []segLine{{{text: first, cls: tokKey}}, {{text: second, cls: tokComment}}}
	if fl := FlagNames(ev); len(fl) > 0 {
		out = append(out, segLine{{text: "flags: " + strings.Join(fl, ", "), cls: tokError}})
	}
	if rerr != nil {
		out = append(out, segLine{{text: "cannot read bytes back: " + Safe(rerr.Error()), cls: tokError}})
	}
	return append(out, segLine{})
}

// headLines show an HTTP head with credentials redacted.
func (d *detailPane) headLines(ord int) []segLine {
	for _, h := range d.s.Heads {
		if h.Ordinal != ord {
			continue
		}
		out := []segLine{{{text: Safe(fmt.Sprintf("%s %d", h.Proto, h.Status)), cls: tokKey}}}
		for _, f := range h.Header {
			v := RedactHeader(string(f.Name), string(f.Value), d.keepSecrets)
			out = append(out, segLine{{text: Safe(string(f.Name)), cls: tokField}, {text: ": "}, {text: Safe(v), cls: tokString}})
		}
		return out
	}
	return nil
}

// view renders the visible lines.
func (d *detailPane) view(ord int) string {
	d.prepare(ord)
	if ord < 0 {
		return strings.Join(block([]string{d.st.Muted.Render("no event selected")}, d.w, d.h), "\n")
	}
	d.scroll = clamp(d.scroll, 0, max(d.total()-d.h, 0))
	lines := make([]string, 0, d.h)
	for i := d.scroll; i < d.total() && len(lines) < d.h; i++ {
		switch {
		case i < len(d.header):
			lines = append(lines, renderSegs(d.header[i], d.st))
		case i < len(d.header)+len(d.lines):
			lines = append(lines, renderSegs(d.lines[i-len(d.header)], d.st))
		default:
			// Large values: only the visible lines are tokenized.
			lines = append(lines, renderSegs(tokenizeLine(d.plain[i-len(d.header)-len(d.lines)]), d.st))
		}
	}
	return strings.Join(block(lines, d.w, d.h), "\n")
}

// eventData returns an event's data: the joined data: lines of an SSE
// block, or the bytes themselves for JSON lines and whole bodies.
func eventData(raw []byte) ([]byte, bool) {
	t := bytes.TrimSpace(raw)
	if len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		return t, true
	}
	var out []byte
	found := false
	for len(raw) > 0 {
		line, rest := cutLine(raw)
		raw = rest
		v, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			continue
		}
		v = bytes.TrimPrefix(v, []byte(" "))
		if found {
			out = append(out, '\n')
		}
		out = append(out, v...)
		found = true
	}
	return out, found
}

// cutLine splits off one line (without its ending) at \n, \r\n or \r.
func cutLine(b []byte) (line, rest []byte) {
	for i, c := range b {
		switch c {
		case '\n':
			return b[:i], b[i+1:]
		case '\r':
			if i+1 < len(b) && b[i+1] == '\n' {
				return b[:i], b[i+2:]
			}
			return b[:i], b[i+1:]
		}
	}
	return b, nil
}

// rawLines lays out bytes as received: each line made safe, its ending
// shown as ␍␊, ␊ or ␍, comment lines and field names set apart, and secret
// header values redacted.
func rawLines(raw []byte, ev *model.Event, keepSecrets bool) []segLine {
	var out []segLine
	if len(raw) > rawShowMax {
		out = append(out, segLine{{text: fmt.Sprintf("%d bytes; showing the first %d", len(raw), rawShowMax), cls: tokComment}})
		raw = raw[:rawShowMax]
	}
	head := ev.Source == capture.FrameHead
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
			l = segLine{{text: Safe(string(line)), cls: tokComment}}
		case head:
			name, value, ok := strings.Cut(string(line), ":")
			if ok {
				value = RedactHeader(name, strings.TrimSpace(value), keepSecrets)
				l = segLine{{text: Safe(name), cls: tokField}, {text: ": "}, {text: Safe(value)}}
			} else {
				l = segLine{{text: Safe(string(line)), cls: tokKey}}
			}
		default:
			name, value, ok := strings.Cut(string(line), ":")
			if ok && !strings.ContainsAny(name, " {\"") {
				l = segLine{{text: Safe(name), cls: tokField}, {text: ":"}, {text: Safe(value)}}
			} else {
				l = segLine{{text: Safe(string(line))}}
			}
		}
		if end != "" {
			l = append(l, seg{text: end, cls: tokControl})
		}
		out = append(out, l)
	}
	return out
}
