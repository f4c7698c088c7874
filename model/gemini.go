package model

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/streamtap/streamtap/model/jsonscan"
)

// TypeGemini is the type given to a Gemini chunk, which names none.
const TypeGemini = "(gemini chunk)"

// geminiDialect is Gemini's streamGenerateContent: chunks that are each a
// GenerateContentResponse, as SSE events (alt=sse) or one JSON array.
type geminiDialect struct{ noHooks }

func (geminiDialect) info() DialectInfo {
	return DialectInfo{Name: "gemini", Short: "gemini", ArgsRebuilt: true}
}

func (geminiDialect) claim(_ string, t *top) claim {
	if t.candidates != nil || t.usageMeta != nil || t.promptFeedback != nil {
		return claimShape
	}
	return claimNone
}

func (geminiDialect) newState() dialectState { return new(gemState) }

// array applies the chunks of an array body: the elements with candidates.
func (geminiDialect) array(s *Session, ev *Event, data []byte, ord int) bool {
	var st *gemState
	s.idx.Elements(data, func(_ int, v []byte) bool {
		if s.idx.Get(v, "candidates") != nil {
			if st == nil {
				st = s.state(DialectGemini).(*gemState)
			}
			st.chunk(s, ev, v, ord)
		}
		return true
	})
	if st == nil {
		return false
	}
	ev.Type = s.types.id([]byte(TypeGemini))
	return true
}

// gemState tracks a Gemini streamGenerateContent stream: per candidate, its
// text, its reasoning and the call whose partialArgs are streaming.
type gemState struct {
	resp      *Response
	open      map[int]*Item
	texts     map[int]*Item
	reasoning map[int]*Item
	calls     int
	noHooks
}

func (st *gemState) response(s *Session, ord int) *Response {
	if st.resp == nil || st.resp.Terminal >= 0 {
		st.resp = s.newResponse(DialectGemini, ord)
		st.open, st.texts, st.reasoning = map[int]*Item{}, map[int]*Item{}, map[int]*Item{}
	}
	return st.resp
}

func (st *gemState) event(s *Session, ev *Event, _ string, data []byte, ord int) {
	st.chunk(s, ev, data, ord)
}

// chunk applies one chunk (a GenerateContentResponse).
func (st *gemState) chunk(s *Session, ev *Event, chunk []byte, ord int) {
	r := st.response(s, ord)
	if ev.Type == 0 {
		ev.Type = s.types.id([]byte(TypeGemini))
	}
	kind := KindLifecycle
	var finished bool
	s.idx.Members(chunk, func(k, v []byte) bool {
		switch string(k) {
		case "responseId":
			if r.ID == "" {
				r.ID = str(v)
			}
		case "modelVersion":
			if r.Model == "" {
				r.Model = str(v)
			}
		case "error":
			s.errorEvent(ev, v, ord)
			kind = KindError
		case "candidates":
			s.idx.Elements(v, func(pos int, cand []byte) bool {
				ci := intOr(s.idx.Get(cand, "index"), pos)
				s.idx.Elements(s.idx.Path(cand, "content", "parts"), func(_ int, part []byte) bool {
					raise(&kind, st.part(s, ev, r, ci, part, ord))
					return true
				})
				if fr := s.idx.Get(cand, "finishReason"); !jsonscan.IsNull(fr) {
					finished = true
					r.finish(ci, ord, str(fr))
					if it := st.open[ci]; it != nil {
						st.close(it, ord)
						delete(st.open, ci)
					}
				}
				return true
			})
		}
		return true
	})
	r.Status.set(ord, "in_progress")
	if finished && kind != KindError {
		kind = KindTerminal
		r.Terminal = ord
		r.Status.set(ord, "completed")
	}
	ev.Kind = kind
}

func (st *gemState) text(s *Session, m map[int]*Item, role ItemRole, typ string, r *Response, ci, ord int) *Item {
	it := m[ci]
	if it == nil {
		it = s.newItem(DialectGemini, role, typ, ord)
		it.Response, it.Choice, it.Opened = r.Index, ci, ord
		m[ci] = it
	}
	it.touch(ord)
	return it
}

func (st *gemState) part(s *Session, ev *Event, r *Response, ci int, part []byte, ord int) Kind {
	var text, fc []byte
	thought := false
	s.idx.Members(part, func(k, v []byte) bool {
		switch string(k) {
		case "text":
			text = v
		case "thought":
			thought = string(v) == "true"
		case "functionCall":
			fc = v
		}
		return true
	})
	if fc == nil {
		if len(text) <= 2 { // absent or ""
			return KindLifecycle
		}
		m, role, typ := st.texts, RoleMessage, "text"
		if thought {
			m, role, typ = st.reasoning, RoleReasoning, "thought"
		}
		it := st.text(s, m, role, typ, r, ci, ord)
		it.Text.addString(ord, text)
		if ev.Item < 0 {
			ev.Item = int32(it.Index)
		}
		return KindTextDelta
	}
	call := ReadFunctionCall(fc)
	name, id, args, partial, cont := call.Name, call.ID, call.Args, call.PartialArgs, call.WillContinue
	it := st.open[ci]
	kind := KindArgsDelta
	if len(name) > 2 {
		if it != nil { // a new call while one is streaming: close it
			st.close(it, ord)
		}
		it = s.newItem(DialectGemini, RoleCall, "functionCall", ord)
		it.Response, it.Choice, it.Position, it.Opened = r.Index, ci, st.calls, ord
		it.Name, it.CallID = str(name), str(id)
		it.Status.set(ord, "in_progress")
		st.calls++
		kind = KindItemOpen
		delete(st.open, ci)
		if args != nil {
			it.Args.add(ord, []byte(compactJSON(args)))
			it.Deltas++
		} else {
			it.gemini = &geminiArgs{}
		}
	}
	if it == nil { // partialArgs or an end marker with no call open
		ev.Flags |= Orphan
		it = s.newItem(DialectGemini, RoleCall, "functionCall", ord)
		it.Response, it.Choice, it.Position = r.Index, ci, st.calls
		it.gemini = &geminiArgs{}
		st.calls++
	}
	it.touch(ord)
	ev.Item = int32(it.Index)
	if partial != nil && it.gemini != nil {
		it.gemini.add(ord, partial)
		it.Deltas++
	}
	switch {
	case len(name) <= 2 && partial == nil && args == nil && !cont:
		// functionCall: {} ends a partialArgs stream.
		if it.gemini != nil {
			it.gemini.ended = true
		}
		st.close(it, ord)
		return KindArgsDone
	case cont:
		// A bare {"willContinue":true} (Vertex sends one between the
		// objects of an array) carries nothing but keeps the call open.
		st.open[ci] = it
	default:
		st.close(it, ord)
		delete(st.open, ci)
	}
	return kind
}

// FunctionCall is the raw members of a Gemini functionCall part, each nil
// when absent. The model assembles from it; model/checks judges it.
type FunctionCall struct {
	Name, ID, Args, PartialArgs []byte
	WillContinue                bool
}

// ReadFunctionCall reads a functionCall part in one walk.
func ReadFunctionCall(fc []byte) FunctionCall {
	var c FunctionCall
	jsonscan.Members(fc, func(k, v []byte) bool {
		switch string(k) {
		case "name":
			c.Name = v
		case "id":
			c.ID = v
		case "args":
			c.Args = v
		case "partialArgs":
			c.PartialArgs = v
		case "willContinue":
			c.WillContinue = string(v) == "true"
		}
		return true
	})
	return c
}

func (st *gemState) close(it *Item, ord int) {
	if it.Closed < 0 {
		it.close(ord)
		it.Status.set(ord, "completed")
	}
	for ci, o := range st.open {
		if o == it {
			delete(st.open, ci)
		}
	}
}

// GeminiEnded reports, for a Gemini call streamed with partialArgs, whether
// the explicit end marker (an empty functionCall) arrived.
func (it *Item) GeminiEnded() (streamed, ended bool) {
	if it.gemini == nil {
		return false, false
	}
	return true, it.gemini.ended
}

// geminiArgs keeps the partialArgs of a Vertex streamed function call.
// Arguments arrive as values at JSON paths, not as text, so they are kept
// as operations and rendered to compact JSON, keys in stream order, when
// asked for.
type geminiArgs struct {
	ops   []gemOp
	ended bool
}

type gemOp struct {
	ord   int
	path  string
	str   []byte // a string piece, for stringValue
	raw   []byte // the JSON of any other value
	cont  bool   // willContinue: the next piece of the same string follows
	isStr bool
}

func (g *geminiArgs) add(ord int, partial []byte) {
	jsonscan.Elements(partial, func(_ int, pa []byte) bool {
		op := gemOp{ord: ord}
		jsonscan.Members(pa, func(k, v []byte) bool {
			switch key := string(k); key {
			case "jsonPath":
				op.path = str(v)
			case "willContinue":
				op.cont = string(v) == "true"
			case "stringValue":
				op.isStr, op.str = true, jsonscan.Unquote(nil, v)
			case "nullValue":
				op.raw = []byte("null")
			default:
				if strings.HasSuffix(key, "Value") {
					op.raw = []byte(compactJSON(v))
				}
			}
			return true
		})
		g.ops = append(g.ops, op)
		return true
	})
}

// gnode is a node of the arguments being rebuilt.
type gnode struct {
	keys  []string
	kids  []*gnode
	isArr bool
	isObj bool
	str   []byte
	isStr bool
	raw   []byte
}

// maxGeminiPad bounds the null elements one render may add to reach array
// indexes past an array's end. Without it each "[65535]" in a path (seven
// bytes of input) would render as 64k nulls, so a few hundred bytes of
// hostile partialArgs would cost megabytes and seconds on every render.
const maxGeminiPad = 1 << 16

// child returns the child at index (when index >= 0) or key, creating it.
// pad is the padding left for this render; an index that needs more is
// taken as an object key instead.
func (n *gnode) child(key string, index int, pad *int) *gnode {
	if need := index + 1 - len(n.kids); index >= 0 && need > *pad {
		key, index = strconv.Itoa(index), -1
	}
	if index >= 0 {
		*pad -= max(index+1-len(n.kids), 0)
		n.isArr = true
		for len(n.kids) <= index {
			n.kids = append(n.kids, &gnode{raw: []byte("null")})
		}
		return n.kids[index]
	}
	n.isObj = true
	for i, k := range n.keys {
		if k == key {
			return n.kids[i]
		}
	}
	c := &gnode{}
	n.keys = append(n.keys, key)
	n.kids = append(n.kids, c)
	return c
}

// render returns the arguments as of event ord (all when ord < 0).
func (g *geminiArgs) render(ord int) []byte {
	root := &gnode{isObj: true}
	cont := map[string]bool{}
	pad := maxGeminiPad
	for _, op := range g.ops {
		if ord >= 0 && op.ord > ord {
			break
		}
		n := root
		for _, seg := range parsePath(op.path) {
			n = n.child(seg.key, seg.index, &pad)
		}
		switch {
		case op.isStr:
			if n.isStr && cont[op.path] {
				n.str = append(n.str, op.str...)
			} else {
				n.str, n.isStr, n.raw = append([]byte(nil), op.str...), true, nil
			}
			cont[op.path] = op.cont
		default:
			n.raw, n.isStr = op.raw, false
		}
	}
	return root.write(nil)
}

type pathSeg struct {
	key   string
	index int
}

// parsePath reads a JSONPath such as $.operations[0]['a.b'] into segments.
func parsePath(p string) []pathSeg {
	p = strings.TrimPrefix(p, "$")
	var out []pathSeg
	for len(p) > 0 {
		switch p[0] {
		case '.':
			p = p[1:]
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			out = append(out, pathSeg{key: p[:end], index: -1})
			p = p[end:]
		case '[':
			end := strings.IndexByte(p, ']')
			if end < 0 {
				return append(out, pathSeg{key: p[1:], index: -1})
			}
			inner := p[1:end]
			if n, err := strconv.Atoi(inner); err == nil && n >= 0 && n < 1<<16 {
				out = append(out, pathSeg{index: n})
			} else {
				out = append(out, pathSeg{key: strings.Trim(inner, `'"`), index: -1})
			}
			p = p[end+1:]
		default:
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			out = append(out, pathSeg{key: p[:end], index: -1})
			p = p[end:]
		}
	}
	return out
}

func (n *gnode) write(b []byte) []byte {
	switch {
	case n.isStr:
		return appendQuoted(b, n.str)
	case n.isArr:
		b = append(b, '[')
		for i, k := range n.kids {
			if i > 0 {
				b = append(b, ',')
			}
			b = k.write(b)
		}
		return append(b, ']')
	case n.isObj:
		b = append(b, '{')
		for i, k := range n.kids {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendQuoted(b, []byte(n.keys[i]))
			b = append(b, ':')
			b = k.write(b)
		}
		return append(b, '}')
	case n.raw != nil:
		return append(b, n.raw...)
	}
	return append(b, "null"...)
}

// appendQuoted writes s as a JSON string, escaping only what JSON requires
// (no HTML escaping, non-ASCII kept as UTF-8).
func appendQuoted(b, s []byte) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		case c < utf8.RuneSelf:
			b = append(b, c)
		default:
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, `\ufffd`...)
			} else {
				b = append(b, s[i:i+size]...)
			}
			i += size
			continue
		}
		i++
	}
	return append(b, '"')
}
