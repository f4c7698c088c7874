package theme

import (
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/alecthomas/chroma/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/streamtap/streamtap/termtext"
)

// Seg is a run of text of one token class. Its text is already
// terminal-safe (passed through Safe).
type Seg struct {
	Text  string
	Class TokClass
	Mark  bool
}

// Line is one display line of segments.
type Line []Seg

// ChromaLimit is the size up to which the detail pane highlights a value
// with chroma (about 7 MB/s, so 32 KB costs ~5 ms once, then cached).
// Larger values are coloured by the document layout's own token classes,
// a screen at a time (doclayout.go).
const ChromaLimit = 32 << 10

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

// ChromaLines highlights text (already indented, one JSON token per line
// at most for strings) with chroma and returns its lines as segments.
func ChromaLines(text string) []Line {
	it, err := jsonLexer().Tokenise(nil, text)
	if err != nil {
		return plainLines(text)
	}
	out := []Line{nil}
	for tok := it(); tok != chroma.EOF; tok = it() {
		cls := chromaClass(tok.Type)
		parts := strings.Split(tok.Value, "\n")
		for i, p := range parts {
			if i > 0 {
				out = append(out, nil)
			}
			if p != "" {
				out[len(out)-1] = append(out[len(out)-1], Seg{Text: termtext.Safe(p), Class: cls})
			}
		}
	}
	if n := len(out); n > 1 && len(out[n-1]) == 0 {
		out = out[:n-1]
	}
	return out
}

func chromaClass(t chroma.TokenType) TokClass {
	switch {
	case t == chroma.NameTag:
		return TokKey
	case t.InSubCategory(chroma.LiteralString):
		return TokString
	case t.InSubCategory(chroma.LiteralNumber):
		return TokNumber
	case t.InCategory(chroma.Keyword):
		return TokLiteral
	case t == chroma.Punctuation:
		return TokPunct
	case t == chroma.Error:
		return TokError
	}
	return TokPlain
}

func plainLines(text string) []Line {
	var out []Line
	for l := range strings.SplitSeq(text, "\n") {
		out = append(out, Line{{Text: termtext.Safe(l)}})
	}
	return out
}

func IsDelim(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '{', '}', '[', ']', ',', ':', '"':
		return true
	}
	return false
}

func ScalarClass(b []byte) TokClass {
	switch s := string(b); {
	case s == "true", s == "false", s == "null":
		return TokLiteral
	case len(s) > 0 && (s[0] == '-' || (s[0] >= '0' && s[0] <= '9')):
		return TokNumber
	case strings.HasPrefix("true", s), strings.HasPrefix("false", s), strings.HasPrefix("null", s):
		return TokLiteral // a literal cut short by the end of what arrived
	}
	return TokError
}

// RenderSegs styles one line of segments, without padding.
func RenderSegs(l Line, st *Styles) string {
	var b strings.Builder
	for _, sg := range l {
		switch {
		case sg.Mark:
			b.WriteString(st.JSONMark[sg.Class].Render(sg.Text))
		case sg.Class == TokPlain && strings.TrimSpace(sg.Text) == "":
			b.WriteString(sg.Text)
		default:
			b.WriteString(st.JSON[sg.Class].Render(sg.Text))
		}
	}
	return b.String()
}

// WrapSegs cuts a line of segments into lines at most w cells wide.
// Continuation lines are indented by the original line's leading spaces
// (up to a quarter of the width) so wrapped values stay readable.
func WrapSegs(l Line, w int) []Line {
	if w <= 0 {
		return []Line{l}
	}
	total := 0
	for _, sg := range l {
		total += CellWidth(sg.Text)
	}
	if total <= w {
		return []Line{l}
	}
	lead := 0
	if len(l) > 0 && strings.TrimSpace(l[0].Text) == "" {
		lead = min(len(l[0].Text), w/4)
	}
	var out []Line
	cur, used := Line{}, 0
	for _, sg := range l {
		text := sg.Text
		for text != "" {
			room := w - used
			if room <= 0 {
				out = append(out, cur)
				cur, used = Line{{Text: strings.Repeat(" ", lead)}}, lead
				room = w - used
			}
			tw := CellWidth(text)
			if tw <= room {
				cur = append(cur, Seg{Text: text, Class: sg.Class, Mark: sg.Mark})
				used += tw
				break
			}
			var head string
			if IsASCII(text) {
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
			cur = append(cur, Seg{Text: head, Class: sg.Class, Mark: sg.Mark})
			used += CellWidth(head)
			text = text[len(head):]
		}
	}
	return append(out, cur)
}

// CellWidth is the display width of plain (unstyled) text, with a fast path
// for ASCII, which most of a JSON stream is.
func CellWidth(s string) int {
	if IsASCII(s) {
		return len(s)
	}
	return ansi.StringWidth(s)
}

func IsASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
