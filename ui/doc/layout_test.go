package doc

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/samples"
	"github.com/streamtap/streamtap/termtext"
	"github.com/streamtap/streamtap/ui/plain"
	"github.com/streamtap/streamtap/ui/theme"
)

// docCorpus is JSON of every shape the layout must agree with the
// reference on: every event of every sample, hand-made edge cases, and
// every prefix of a few of them (arguments cut short as they stream in).
func docCorpus(t testing.TB) [][]byte {
	t.Helper()
	var out [][]byte
	for _, s := range samples.List() {
		data := sampleBytes(t, s.Name)
		sess := newSession(data)
		for ord := range sess.Len() {
			raw, err := sess.Raw(sess.Events.At(ord))
			if err != nil {
				t.Fatal(err)
			}
			if d, ok := plain.EventData(raw); ok {
				out = append(out, d)
			}
		}
	}
	edge := []string{
		``, `{}`, `[]`, `{ }`, `[ ]`, `{"a":{}}`, `[[],[[]],{}]`, `{"a":[1,2,{"b":null}],"c":"d"}`,
		`{"s":"a\"b\\c\u00e9\n"}`, `"just a string"`, `42`, `-1.5e10`, `true`, `nul`, `[DONE]`,
		`{"a":1}}x`, `}}]]`, `,,,`, `{"a" : 1 , "b" : [ 1 , 2 ] }`, "{\n\t\"a\": 1\r\n}",
		`{"k":tru`, `{"k":` + strings.Repeat("9", 40) + `}`, `{"k":` + strings.Repeat("x", 40) + `}`,
		`{"long":"` + strings.Repeat("abcdefghij ", 60) + `"}`, strings.Repeat(`[`, 70) + strings.Repeat(`]`, 70),
		strings.Repeat(`{"a":`, 130) + `1` + strings.Repeat(`}`, 130), "{\"ctl\":\"\x1b[2J\x00\x7f\"}",
		`{"a":"` + "\xff\xfe" + `"}`, `{"trailing":"\`, `{"a":1,` + "   ",
	}
	for _, e := range edge {
		out = append(out, []byte(e))
	}
	for _, whole := range []string{`{"location": "Paris, France", "units": ["c", {"x": true}], "n": -12.5}`, edge[7]} {
		for i := range len(whole) {
			out = append(out, []byte(whole[:i]))
		}
	}
	return out
}

// dropEmpty removes empty segments, which the reference made for an indent
// of nothing and the layout does not.
func dropEmpty(ls []theme.Line) []theme.Line {
	out := make([]theme.Line, len(ls))
	for i, l := range ls {
		out[i] = theme.Line{}
		for _, s := range l {
			if s.Text != "" {
				out[i] = append(out[i], s)
			}
		}
	}
	return out
}

func wrapRef(ls []theme.Line, prefix string, w int) []theme.Line {
	var out []theme.Line
	for _, l := range ls {
		if prefix != "" {
			l = append(theme.Line{{Text: prefix}}, l...)
		}
		out = append(out, theme.WrapSegs(l, w)...)
	}
	return out
}

func maxDepth(b []byte) int {
	d, m := 0, 0
	for _, c := range b {
		switch c {
		case '{', '[':
			d++
			m = max(m, d)
		case '}', ']':
			d = max(d-1, 0)
		}
	}
	return m
}

// TestDocMatchesReference checks the lazy layout against the whole-text
// pretty-printer and raw layout it replaced: the same lines, segments,
// classes and marks, unwrapped and wrapped, with and without the calls
// pane's prefix. (Escapes and wide runes may wrap a little differently: the
// layout never splits one, so only ASCII is compared wrapped.)
func TestDocMatchesReference(t *testing.T) {
	t.Parallel()
	for i, src := range docCorpus(t) {
		ms, me := len(src)/3, len(src)/3+max(len(src)/6, 1) // a non-empty mark: an empty one splits nothing visible
		want := dropEmpty(refPrettyPartial(src, ms, me))
		got := dropEmpty(layoutDoc(&Spec{Src: src, Mode: JSON, MarkStart: ms, MarkEnd: me}))
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("#%d %q unwrapped:\n got %v\nwant %v", i, src, got, want)
		}
		if !theme.IsASCII(string(src)) || bytes.ContainsFunc(src, func(r rune) bool { return r < 0x20 && r != '\n' && r != '\r' && r != '\t' }) {
			continue
		}
		for _, w := range []int{9, 24, 80, 117} {
			if 2*maxDepth(src) > w/2-2 {
				continue // deep indents are capped at half the width
			}
			for _, prefix := range []string{"", "  "} {
				want := dropEmpty(wrapRef(refPrettyPartial(src, ms, me), prefix, w))
				got := dropEmpty(layoutDoc(&Spec{Src: src, Mode: JSON, W: w, Prefix: prefix, MarkStart: ms, MarkEnd: me}))
				if !slices.EqualFunc(got, want, slices.Equal) {
					t.Fatalf("#%d %q at %d prefix %q:\n got %q\nwant %q", i, src, w, prefix, plainSegs(got), plainSegs(want))
				}
			}
		}
	}
}

// TestRawDocMatchesReference checks the raw layout against the old one on
// the bytes of every sample event and on line-ending and head edge cases.
func TestRawDocMatchesReference(t *testing.T) {
	var inputs [][]byte
	for _, s := range samples.List() {
		data := sampleBytes(t, s.Name)
		sess := newSession(data)
		for ord := range sess.Len() {
			raw, _ := sess.Raw(sess.Events.At(ord))
			inputs = append(inputs, raw)
		}
	}
	for _, e := range []string{"", "\n", "a", "a\r\nb\rc\nd", ": comment\n\n", "data: {\"a\":1}\nevent: x\n\n", "id\n", "{\"x\": 1}\n", "bad line: x\r", "\x1b[2J\n", "da\xffta: x\n"} {
		inputs = append(inputs, []byte(e))
	}
	for i, src := range inputs {
		for _, head := range []bool{false, true} {
			mode := Raw
			if head {
				mode = Head
			}
			want := dropEmpty(refRawLines(src, head, false))
			got := dropEmpty(layoutDoc(&Spec{Src: src, Mode: mode, MarkStart: -1, MarkEnd: -1}))
			if !slices.EqualFunc(got, want, slices.Equal) {
				t.Fatalf("#%d %q head=%v:\n got %v\nwant %v", i, src, head, got, want)
			}
		}
		if !theme.IsASCII(string(src)) {
			continue
		}
		for _, w := range []int{7, 40, 80} {
			want := dropEmpty(wrapRef(refRawLines(src, false, false), "", w))
			got := dropEmpty(layoutDoc(&Spec{Src: src, Mode: Raw, W: w, MarkStart: -1, MarkEnd: -1}))
			if !slices.EqualFunc(got, want, slices.Equal) {
				t.Fatalf("#%d %q at %d:\n got %q\nwant %q", i, src, w, plainSegs(got), plainSegs(want))
			}
		}
	}
}

// TestHeadDocRedacts shows header names and values of a head, with secret
// values redacted unless kept.
func TestHeadDocRedacts(t *testing.T) {
	src := []byte("HTTP/1.1 200 OK\r\nAuthorization:  Bearer sk-secret  \r\nContent-Type: text/event-stream\r\n\r\n")
	got := plainSegs(layoutDoc(&Spec{Src: src, Mode: Head, MarkStart: -1, MarkEnd: -1}))
	if strings.Contains(got, "sk-secret") || !strings.Contains(got, "Content-Type: text/event-stream␍␊") {
		t.Errorf("head layout = %q; want the token redacted and the other header shown", got)
	}
	kept := plainSegs(layoutDoc(&Spec{Src: src, Mode: Head, KeepSecrets: true, MarkStart: -1, MarkEnd: -1}))
	if !strings.Contains(kept, "Authorization: Bearer sk-secret␍␊") {
		t.Errorf("head layout keeping secrets = %q; want the trimmed token", kept)
	}
}

// TestHeadDocRedactsURLCredentials: a URL header (a redirect's Location,
// Content-Location, Referer) shows every byte but the values of its
// query's credentials, at every width, wrapped or not.
func TestHeadDocRedactsURLCredentials(t *testing.T) {
	src := []byte("HTTP/1.1 302 Found\r\nLocation: https://x.test/v1beta/models/g:stream?alt=sse&key=AIzaSECRET1;%6Bey=AIzaSECRET2#f\r\n" +
		"Referer: /x?access_token=tok-SECRET3\r\nX-Other: /y?key=shown\r\n\r\n")
	want := "Location: https://x.test/v1beta/models/g:stream?alt=sse&key=%5Bredacted%5D;%6Bey=%5Bredacted%5D#f␍␊" +
		"Referer: /x?access_token=%5Bredacted%5D␍␊X-Other: /y?key=shown␍␊"
	for _, w := range []int{0, 7, 13, 14, 15, 40, 200} {
		l := layoutDoc(&Spec{Src: src, Mode: Head, W: w, MarkStart: -1, MarkEnd: -1})
		got := strings.NewReplacer(" ", "", "\n", "").Replace(plainSegs(l)) // lines joined
		if strings.Contains(got, "SECRET") || !strings.Contains(got, strings.ReplaceAll(want, " ", "")) {
			t.Errorf("width %d: head layout = %q; want the credentials redacted, every other byte shown", w, plainSegs(l))
		}
	}
	kept := plainSegs(layoutDoc(&Spec{Src: src, Mode: Head, KeepSecrets: true, MarkStart: -1, MarkEnd: -1}))
	if !strings.Contains(kept, "key=AIzaSECRET1;%6Bey=AIzaSECRET2#f") {
		t.Errorf("head layout keeping secrets = %q; want the URL as sent", kept)
	}
}

// TestHeadDocRedactsRecordingHeader: the raw view of a recording's
// header block (one saved with --keep-secrets, or written by hand) hides
// the userinfo and query credentials of the request's URL, the values of
// credential headers (the gateways' among them) and the URLs an error
// quotes, at every width; every other byte shows.
func TestHeadDocRedactsRecordingHeader(t *testing.T) {
	src := []byte(": streamtap-recording v1\n: request POST https://user:SECRET1@gw.test/v1/x?api-key=SECRET2&alt=sse\n" +
		": request-header Ocp-Apim-Subscription-Key: SECRET3\n: request-header Helicone-Auth: Bearer SECRET4\n" +
		": request-header X-Ratelimit-Remaining-Tokens: 99\n: response-header Location: /y?sig=SECRET5\n" +
		": error Post \"https://u:SECRET6@gw.test/v1\": refused\n\n")
	want := []string{
		": request POST https://%5Bredacted%5D@gw.test/v1/x?api-key=%5Bredacted%5D&alt=sse␊",
		": request-header Ocp-Apim-Subscription-Key: [redacted]␊", ": request-header Helicone-Auth: [redacted]␊",
		": request-header X-Ratelimit-Remaining-Tokens: 99␊", ": response-header Location: /y?sig=%5Bredacted%5D␊",
		": error Post \"https://%5Bredacted%5D@gw.test/v1\": refused␊",
	}
	for _, w := range []int{0, 7, 13, 40, 200} {
		l := layoutDoc(&Spec{Src: src, Mode: Head, W: w, MarkStart: -1, MarkEnd: -1})
		got := strings.NewReplacer(" ", "", "\n", "").Replace(plainSegs(l))
		if strings.Contains(got, "SECRET") {
			t.Errorf("width %d: head layout holds a secret: %q", w, plainSegs(l))
		}
		for _, line := range want {
			if !strings.Contains(got, strings.ReplaceAll(line, " ", "")) {
				t.Errorf("width %d: head layout lacks %q: %q", w, line, plainSegs(l))
			}
		}
	}
	kept := plainSegs(layoutDoc(&Spec{Src: src, Mode: Head, KeepSecrets: true, MarkStart: -1, MarkEnd: -1}))
	for i := 1; i <= 6; i++ {
		if !strings.Contains(kept, fmt.Sprintf("SECRET%d", i)) {
			t.Errorf("head layout keeping secrets lacks SECRET%d: %q", i, kept)
		}
	}
}

// TestHeadDocRedactsEveryCredential: every name of the one list
// (capture.CredentialNames), as a header of a head and as a header of a
// recording's header block, shows redacted in the raw view; so does each
// as a query parameter of a Location; a rate limit's tokens show.
func TestHeadDocRedactsEveryCredential(t *testing.T) {
	var head, rec strings.Builder
	head.WriteString("HTTP/1.1 200 OK\r\n")
	rec.WriteString(": streamtap-recording v1\n")
	q := "Location: /next?max_tokens=9"
	for _, n := range capture.CredentialNames() {
		head.WriteString(n + ": SECRET-" + n + "\r\n")
		rec.WriteString(": request-header " + n + ": SECRET-" + n + "\n: response-header " + n + ": SECRET-" + n + "\n")
		q += "&" + n + "=SECRET-" + n
	}
	head.WriteString("X-Ratelimit-Remaining-Tokens: 99\r\n" + q + "\r\n\r\n")
	rec.WriteString(": response-header X-Ratelimit-Remaining-Tokens: 99\n: response-header " + q + "\n\n")
	for _, src := range []string{head.String(), rec.String()} {
		got := strings.ReplaceAll(plainSegs(layoutDoc(&Spec{Src: []byte(src), Mode: Head, W: 60, MarkStart: -1, MarkEnd: -1})), "\n", "")
		if i := strings.Index(got, "SECRET"); i >= 0 {
			t.Errorf("the raw head shows a secret: …%s…", got[max(i-80, 0):min(i+40, len(got))])
		}
		if n := strings.Count(got, capture.Redacted); n < len(capture.CredentialNames()) {
			t.Errorf("the raw head shows %d values redacted; want one per name at least", n)
		}
		if !strings.Contains(got, "99") || !strings.Contains(got, "max_tokens=9") {
			t.Errorf("the raw head lost a non-secret: %q", got)
		}
	}
}

// TestDocResumes checks that lines drawn from saved states, after an index
// built on the event loop, off it in chunks, or both, are exactly the lines
// of a layout from the start, for every mode and many widths.
func TestDocResumes(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	var big bytes.Buffer
	items := 3000 // about 1 MB
	if testing.Short() {
		items = 1000
	}
	big.WriteString(`{"items":[`)
	for i := range items {
		fmt.Fprintf(&big, `{"id":%d,"name":"item %d","tags":["a","b"],"text":"%s"},`, i, i, strings.Repeat("héllo wörld ", rng.IntN(40)))
	}
	big.WriteString(`null],"end":true}`)
	srcs := map[Mode][]byte{
		JSON: big.Bytes(),
		Raw:  bytes.ReplaceAll(big.Bytes(), []byte(`},`), []byte("},\r\ndata: ")),
		Text: bytes.ReplaceAll(big.Bytes(), []byte(`,`), []byte(",\n")),
	}
	ws := []int{13, 80}
	if testing.Short() {
		ws = ws[:1] // the narrow one, which wraps most
	}
	for mode, src := range srcs {
		for _, w := range ws {
			sp := &Spec{Src: src, Mode: mode, W: w, Prefix: "  ", MarkStart: 1000, MarkEnd: 5000}
			all := layoutDoc(sp)
			check := func(name string, d *Layout) {
				t.Helper()
				for range 40 {
					from := rng.IntN(len(all))
					to := min(from+1+rng.IntN(50), len(all))
					got := d.Lines(from, to)
					if !slices.EqualFunc(got, all[from:to], slices.Equal) {
						t.Fatalf("%s mode %d w %d: lines(%d, %d) differ from a layout from the start", name, mode, w, from, to)
					}
				}
				if !d.Done() || d.Known() != len(all) {
					t.Fatalf("%s mode %d w %d: known %d done %v; want %d lines", name, mode, w, d.Known(), d.Done(), len(all))
				}
			}
			// Off the event loop, chunk by chunk.
			d := New(sp)
			for !d.Done() {
				msg := d.IndexCmd()().(IndexedMsg)
				d.Apply(msg)
			}
			check("commands", d)
			// On the event loop only, a page at a time.
			d = New(sp)
			for !d.Done() {
				d.Extend(d.Known()+40, SyncBudget)
			}
			check("event loop", d)
			// Both at once: a command's result arrives after the event loop
			// laid out part of the same chunk.
			d = New(sp)
			for !d.Done() {
				cmd := d.IndexCmd()
				d.Extend(d.Known()+300, SyncBudget)
				if cmd != nil {
					d.Apply(cmd().(IndexedMsg))
				}
			}
			check("mixed", d)
		}
	}
}

// TestDocLineOf finds the line that shows a byte.
func TestDocLineOf(t *testing.T) {
	src := []byte(`{"a":"` + strings.Repeat("x", 500) + `","b":"MARK","c":1}`)
	sp := &Spec{Src: src, Mode: JSON, W: 40, MarkStart: -1, MarkEnd: -1}
	all := layoutDoc(sp)
	d := New(sp)
	at := bytes.Index(src, []byte("MARK"))
	line := d.LineOf(at, true)
	if line < 0 || line >= len(all) || !strings.Contains(plainSegs(all[line:line+1]), "MARK") {
		t.Fatalf("lineOf(%d) = %d; want the line showing MARK in:\n%s", at, line, plainSegs(all))
	}
	if got := d.LineOf(0, true); got != 0 {
		t.Errorf("lineOf(0) = %d; want 0", got)
	}
}

// TestDocDeepNesting lays out nesting far deeper than 64 levels (the
// stack's node size) and back out, with capped indents.
func TestDocDeepNesting(t *testing.T) {
	src := []byte(`{"x":` + strings.Repeat(`{"a":[`, 200) + `1` + strings.Repeat(`]}`, 200) + `,"after":{"k":"v"}}`)
	all := layoutDoc(&Spec{Src: src, Mode: JSON, W: 60, MarkStart: -1, MarkEnd: -1})
	for i, l := range all {
		if w := theme.CellWidth(plainSegs([]theme.Line{l})); w > 60 {
			t.Fatalf("line %d is %d cells: %q", i, w, plainSegs([]theme.Line{l}))
		}
	}
	// after closing the 400 levels the outer object's next member is a
	// key again, one level in.
	var after theme.Line
	for _, l := range all {
		if strings.Contains(plainSegs([]theme.Line{l}), "after") {
			after = l
		}
	}
	if plainSegs([]theme.Line{after}) != `  "after": {` || after[1].Class != theme.TokKey {
		t.Errorf("line after the nest = %q (%v); want the key \"after\" one level in", plainSegs([]theme.Line{after}), after)
	}
	if ansiW := theme.CellWidth(theme.GlyphCR + theme.GlyphLF); ansiW != 2 {
		t.Errorf("line-ending glyphs are %d cells; the layout counts 2", ansiW)
	}
}

// refUnit is a character of the text reference: as shown, its width,
// whether it is a space and whether it is marked.
type refUnit struct {
	text        string
	w           int
	space, mark bool
}

// refTextLines lays message text out as a reader expects prose, the
// simple way, whole: split at \n, each line after a two-space prefix,
// wrapped w cells wide between words (a word that does not fit goes to
// the next line, indented min(2, w/4), whole; the spaces the line breaks
// at go; a word longer than a line is cut where the line ends), each
// character made safe, the fragment [ms, me) marked.
func refTextLines(txt []byte, ms, me, w int) []theme.Line {
	var out []theme.Line
	start := 0
	for {
		end := bytes.IndexByte(txt[start:], '\n')
		if end < 0 {
			end = len(txt)
		} else {
			end += start
		}
		var units []refUnit
		for i := start; i < end; {
			r, n := utf8.DecodeRune(txt[i:end])
			text := termtext.Safe(string(txt[i : i+n]))
			units = append(units, refUnit{text: text, w: ansi.StringWidth(text), space: r == ' ', mark: i >= ms && i < me})
			i += n
		}
		out = append(out, refWrapLine(units, w)...)
		if end == len(txt) {
			return out
		}
		start = end + 1
	}
}

// refWrapLine wraps one line of units for refTextLines.
func refWrapLine(units []refUnit, w int) []theme.Line {
	lead := 2
	if w > 0 {
		lead = min(2, w/4)
	}
	var out []theme.Line
	head, used, placed := "  ", 2, false
	var cur []refUnit
	newLine := func() {
		out = append(out, refSegs(head, cur))
		head, used, placed, cur = strings.Repeat(" ", lead), lead, false, nil
	}
	place := func(u refUnit) {
		cur, used, placed = append(cur, u), used+u.w, true
	}
	for i := 0; i < len(units); {
		j := i
		for j < len(units) && units[j].space == units[i].space {
			j++
		}
		if units[i].space {
			for ; i < j; i++ {
				if w > 0 && used+units[i].w > w && placed {
					newLine() // the spaces the line breaks at go
					i = j
					break
				}
				place(units[i])
			}
			continue
		}
		ww := 0
		for _, u := range units[i:j] {
			ww += u.w
		}
		if w > 0 && placed && used > lead && used+ww > w && ww <= w-lead {
			newLine()
		}
		for ; i < j; i++ {
			if w > 0 && used+units[i].w > w && placed && (used >= w || used > lead) {
				newLine()
			}
			place(units[i])
		}
	}
	return append(out, refSegs(head, cur))
}

// refSegs is a line of refWrapLine: its head, then a segment per run of
// units marked alike.
func refSegs(head string, units []refUnit) theme.Line {
	l := theme.Line{{Text: head}}
	for i, u := range units {
		if i > 0 && u.mark == units[i-1].mark {
			l[len(l)-1].Text += u.text
			continue
		}
		l = append(l, theme.Seg{Text: u.text, Mark: u.mark})
	}
	return l
}

// runeStartAtOrBefore moves i back to the start of the rune it falls in.
func runeStartAtOrBefore(b []byte, i int) int {
	for i > 0 && i < len(b) && !utf8.RuneStart(b[i]) {
		i--
	}
	return i
}

// TestTextDocMatchesReference checks the text layout against the simple
// whole-text reference (prose wrapped between words) on the message and
// reasoning text of every sample.
func TestTextDocMatchesReference(t *testing.T) {
	texts := [][]byte{[]byte(""), []byte("\n"), []byte("one\ntwo\n\nthree"), []byte("tab\there \x1b[2J\r\n"), []byte(strings.Repeat("lorem ipsum ", 50) + "\n" + strings.Repeat("x", 300))}
	for _, s := range samples.List() {
		for _, it := range newSession(sampleBytes(t, s.Name)).Items {
			if it.Text.Len() > 0 {
				texts = append(texts, it.Text.Bytes())
			}
		}
	}
	for i, txt := range texts {
		ms, me := len(txt)/3, len(txt)/3+max(len(txt)/4, 1)
		me = min(me, len(txt))
		// The reference splits bytes where the new layout marks whole
		// runes: put the mark's ends on rune starts so both see the same.
		ms, me = runeStartAtOrBefore(txt, ms), runeStartAtOrBefore(txt, me)
		for _, w := range []int{10, 53, 80, 0} {
			want := dropEmpty(refTextLines(txt, ms, me, w))
			got := dropEmpty(layoutDoc(&Spec{Src: txt, Mode: Text, W: w, Prefix: "  ", MarkStart: ms, MarkEnd: me}))
			if !theme.IsASCII(string(txt)) && w > 0 {
				if len(got) == 0 || plainSegs(got) == "" && len(txt) > 0 {
					t.Fatalf("#%d at %d: empty layout", i, w)
				}
				continue // wide runes may wrap a cell differently
			}
			if !slices.EqualFunc(got, want, slices.Equal) {
				t.Fatalf("#%d %q at %d:\n got %q\nwant %q", i, txt, w, plainSegs(got), plainSegs(want))
			}
		}
	}
}

// FuzzDocLayout checks, on any bytes: the JSON layout agrees with the
// reference pretty-printer (see the comparison for where it may differ);
// every mode lays out without panicking, keeps
// every line within the width (ASCII is measured exactly), and gives the
// same lines drawn from saved states as from the start.
func FuzzDocLayout(f *testing.F) {
	for _, src := range docCorpus(f) {
		f.Add(src, uint8(40))
	}
	// A head whose URL headers hold credentials: the layout redacts inside
	// a run.
	f.Add([]byte("HTTP/1.1 302 Found\r\nLocation: /m?alt=sse&key=k1;%6Bey=k2&apikey=#f\r\nReferer:/x?key=\r\n\r\n"), uint8(9))
	// A recording's header block with credentials in its comment lines.
	f.Add([]byte(": streamtap-recording v1\n: request GET http://u:p@h/?token=t&sig=\n: request-header Api-Key: k\n: error \"ws://k@h/\"\n"), uint8(11))
	f.Fuzz(func(t *testing.T, src []byte, w8 uint8) {
		w := int(w8%120) + 1
		// Fragments end at rune boundaries (the reference would split a
		// rune a mark cuts; the layout keeps it whole).
		ms := runeStart(src, len(src)/3)
		me := runeStart(src, max(len(src)/3+len(src)/6, ms+1))
		// The same lines with the same text; for ASCII the same segments
		// too (elsewhere a grapheme cluster a mark boundary cuts is marked
		// whole, where the reference split it).
		got, want := dropEmpty(layoutDoc(&Spec{Src: src, Mode: JSON, MarkStart: ms, MarkEnd: me})), dropEmpty(refPrettyPartial(src, ms, me))
		if plainSegs(got) != plainSegs(want) || (theme.IsASCII(string(src)) && !slices.EqualFunc(got, want, slices.Equal)) {
			t.Fatalf("%q unwrapped:\n got %v\nwant %v", src, got, want)
		}
		for _, mode := range []Mode{JSON, Raw, Head, Text} {
			sp := &Spec{Src: src, Mode: mode, W: w, Prefix: "  ", MarkStart: ms, MarkEnd: me}
			all := layoutDoc(sp)
			for i, l := range all {
				if text := plainSegs([]theme.Line{l}); theme.IsASCII(text) && len(text) > max(w, 10) {
					t.Fatalf("mode %d w %d: line %d is %d cells: %q", mode, w, i, len(text), text)
				}
			}
			d := &Layout{Spec: sp, front: sp.start()}
			d.marks = []layoutState{d.front}
			d.Extend(1<<62, len(src)+1)
			if d.Known() != len(all) {
				t.Fatalf("mode %d: index counts %d lines; layout makes %d", mode, d.Known(), len(all))
			}
			for from := 0; from < len(all); from += 1 + len(all)/7 {
				if got := d.Lines(from, from+3); !slices.EqualFunc(got, all[from:min(from+3, len(all))], slices.Equal) {
					t.Fatalf("mode %d w %d: lines(%d) differ from a layout from the start", mode, w, from)
				}
			}
		}
	})
}

// runeStart moves i forward to the start of a rune in b.
func runeStart(b []byte, i int) int {
	for i < len(b) && !utf8.RuneStart(b[i]) {
		i++
	}
	return i
}

// TestProseWrapsBetweenWords: message text and reasoning wrap between
// words, as a reader expects prose (the calls pane cut "Narita (NRT) i" /
// "s the usual choice"); the spaces a line breaks at go; a word longer
// than a line is cut where the line ends; a mark stays on its bytes.
func TestProseWrapsBetweenWords(t *testing.T) {
	src := []byte("Tokyo has two airports; Narita (NRT) is the usual choice for flights from Europe.")
	for _, w := range []int{14, 20, 31, 47} {
		lines := layoutDoc(&Spec{Src: src, Mode: Text, W: w, Prefix: "  "})
		var words []string
		for i, l := range lines {
			text := plainSegs([]theme.Line{l})
			if ansi.StringWidth(text) > w {
				t.Errorf("width %d: line %d %q is wider", w, i, text)
			}
			if i > 0 && strings.HasPrefix(strings.TrimPrefix(text, strings.Repeat(" ", min(2, w/4))), " ") {
				t.Errorf("width %d: line %d %q starts with the space the line broke at", w, i, text)
			}
			words = append(words, strings.Fields(text)...)
		}
		if got, want := strings.Join(words, " "), string(src); got != want {
			t.Errorf("width %d cuts words:\n%s", w, plainSegs(lines))
		}
	}
	long := []byte("see " + strings.Repeat("x", 30) + " end")
	lines := layoutDoc(&Spec{Src: long, Mode: Text, W: 12, Prefix: "  "})
	if got := plainSegs(lines); got != "  see xxxxxx\n  xxxxxxxxxx\n  xxxxxxxxxx\n  xxxx end" {
		t.Errorf("a word longer than a line:\n%s", got)
	}
	ms := bytes.Index(src, []byte("is the"))
	lines = layoutDoc(&Spec{Src: src, Mode: Text, W: 20, Prefix: "  ", MarkStart: ms, MarkEnd: ms + 6})
	var marked string
	for _, l := range lines {
		for _, s := range l {
			if s.Mark {
				marked += s.Text
			}
		}
	}
	if marked != "is the" {
		t.Errorf("the mark shows %q; want %q", marked, "is the")
	}
}
