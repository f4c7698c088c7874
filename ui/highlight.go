package ui

import (
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/alecthomas/chroma/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/streamtap/streamtap/termtext"
)

// seg is a run of text of one token class. Its text is already
// terminal-safe (passed through Safe).
type seg struct {
	text string
	cls  tokClass
	mark bool
}

// segLine is one display line of segments.
type segLine []seg

// chromaLimit is the size up to which the detail pane highlights a value
// with chroma (about 7 MB/s, so 32 KB costs ~5 ms once, then cached).
// Larger values are coloured by the document layout's own token classes,
// a screen at a time (doclayout.go).
const chromaLimit = 32 << 10

// jsonLexer is a JSON lexer built from chroma's rule API, made once.
// Importing chroma's lexers package instead would register its hundreds of
// lexers at start-up, about 9 MB of resident memory that every headless
// command would pay for one grammar. Coalescing merges runs of one token
// type, so the highlighter sees fewer, longer tokens.
var jsonLexer = sync.OnceValue(func() chroma.Lexer {
	const str = `"(?:\\.|[^"\\])*"`
	value := []chroma.Rule{
		{Pattern: `\s+`, Type: chroma.Text},
		{Pattern: `(?:true|false|null)\b`, Type: chroma.KeywordConstant},
		{Pattern: `-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?`, Type: chroma.LiteralNumber},
		{Pattern: str, Type: chroma.LiteralStringDouble},
		{Pattern: `\{`, Type: chroma.Punctuation, Mutator: chroma.Push("object")},
		{Pattern: `\[`, Type: chroma.Punctuation, Mutator: chroma.Push("array")},
		{Pattern: `[^\s{}\[\],:"]+|.`, Type: chroma.Error},
	}
	l := chroma.MustNewLexer(&chroma.Config{Name: "JSON", Aliases: []string{"json"}, DotAll: true}, func() chroma.Rules {
		return chroma.Rules{
			"root":  {chroma.Include("value")},
			"value": value,
			"object": {
				{Pattern: `\s+`, Type: chroma.Text},
				{Pattern: `(` + str + `)(\s*)(:)`, Type: chroma.ByGroups(chroma.NameTag, chroma.Text, chroma.Punctuation)},
				{Pattern: `,`, Type: chroma.Punctuation},
				{Pattern: `\}`, Type: chroma.Punctuation, Mutator: chroma.Pop(1)},
				chroma.Include("value"),
			},
			"array": {
				{Pattern: `\s+`, Type: chroma.Text},
				{Pattern: `,`, Type: chroma.Punctuation},
				{Pattern: `\]`, Type: chroma.Punctuation, Mutator: chroma.Pop(1)},
				chroma.Include("value"),
			},
		}
	})
	return chroma.Coalesce(l)
})

// chromaLines highlights text (already indented, one JSON token per line
// at most for strings) with chroma and returns its lines as segments.
func chromaLines(text string) []segLine {
	it, err := jsonLexer().Tokenise(nil, text)
	if err != nil {
		return plainLines(text)
	}
	out := []segLine{nil}
	for tok := it(); tok != chroma.EOF; tok = it() {
		cls := chromaClass(tok.Type)
		parts := strings.Split(tok.Value, "\n")
		for i, p := range parts {
			if i > 0 {
				out = append(out, nil)
			}
			if p != "" {
				out[len(out)-1] = append(out[len(out)-1], seg{text: termtext.Safe(p), cls: cls})
			}
		}
	}
	if n := len(out); n > 1 && len(out[n-1]) == 0 {
		out = out[:n-1]
	}
	return out
}

func chromaClass(t chroma.TokenType) tokClass {
	switch {
	case t == chroma.NameTag:
		return tokKey
	case t.InSubCategory(chroma.LiteralString):
		return tokString
	case t.InSubCategory(chroma.LiteralNumber):
		return tokNumber
	case t.InCategory(chroma.Keyword):
		return tokLiteral
	case t == chroma.Punctuation:
		return tokPunct
	case t == chroma.Error:
		return tokError
	}
	return tokPlain
}

func plainLines(text string) []segLine {
	var out []segLine
	for l := range strings.SplitSeq(text, "\n") {
		out = append(out, segLine{{text: termtext.Safe(l)}})
	}
	return out
}

func isDelim(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '{', '}', '[', ']', ',', ':', '"':
		return true
	}
	return false
}

func scalarClass(b []byte) tokClass {
	switch s := string(b); {
	case s == "true", s == "false", s == "null":
		return tokLiteral
	case len(s) > 0 && (s[0] == '-' || (s[0] >= '0' && s[0] <= '9')):
		return tokNumber
	case strings.HasPrefix("true", s), strings.HasPrefix("false", s), strings.HasPrefix("null", s):
		return tokLiteral // a literal cut short by the end of what arrived
	}
	return tokError
}

// renderSegs styles one line of segments, without padding.
func renderSegs(l segLine, st *styles) string {
	var b strings.Builder
	for _, sg := range l {
		switch {
		case sg.mark:
			b.WriteString(st.JSONMark[sg.cls].Render(sg.text))
		case sg.cls == tokPlain && strings.TrimSpace(sg.text) == "":
			b.WriteString(sg.text)
		default:
			b.WriteString(st.JSON[sg.cls].Render(sg.text))
		}
	}
	return b.String()
}

// wrapSegs cuts a line of segments into lines at most w cells wide.
// Continuation lines are indented by the original line's leading spaces
// (up to a quarter of the width) so wrapped values stay readable.
func wrapSegs(l segLine, w int) []segLine {
	if w <= 0 {
		return []segLine{l}
	}
	total := 0
	for _, sg := range l {
		total += cellWidth(sg.text)
	}
	if total <= w {
		return []segLine{l}
	}
	lead := 0
	if len(l) > 0 && strings.TrimSpace(l[0].text) == "" {
		lead = min(len(l[0].text), w/4)
	}
	var out []segLine
	cur, used := segLine{}, 0
	for _, sg := range l {
		text := sg.text
		for text != "" {
			room := w - used
			if room <= 0 {
				out = append(out, cur)
				cur, used = segLine{{text: strings.Repeat(" ", lead)}}, lead
				room = w - used
			}
			tw := cellWidth(text)
			if tw <= room {
				cur = append(cur, seg{text: text, cls: sg.cls, mark: sg.mark})
				used += tw
				break
			}
			var head string
			if isASCII(text) {
				head = text[:room]
			} else {
				head = ansi.Cut(text, 0, room)
			}
			if head == "" {
				if used > lead {
					used = w // a wide rune that does not fit: start a new line
					continue
				}
				// Not even one rune fits on an empty line: take one anyway,
				// or the loop would never end.
				_, size := utf8.DecodeRuneInString(text)
				head = text[:size]
			}
			cur = append(cur, seg{text: head, cls: sg.cls, mark: sg.mark})
			used += cellWidth(head)
			text = text[len(head):]
		}
	}
	return append(out, cur)
}

// cellWidth is the display width of plain (unstyled) text, with a fast path
// for ASCII, which most of a JSON stream is.
func cellWidth(s string) int {
	if isASCII(s) {
		return len(s)
	}
	return ansi.StringWidth(s)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
