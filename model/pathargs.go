package model

import (
	"sort"
	"strconv"
	"strings"

	"github.com/streamtap/streamtap/model/jsonscan"
)

// PathArgs keeps a call's arguments that arrive as values at JSON paths
// rather than as text (Gemini's partialArgs, from Vertex's streamed
// function calls): they are kept as operations and rendered to compact
// JSON, keys in stream order, when asked for.
type PathArgs struct {
	Ops   []PathOp
	Ended bool // the dialect's end marker arrived
}

// SetPathArgs makes the item's arguments ones that arrive as values at
// JSON paths (p), rebuilt when read, instead of text fragments.
func (it *Item) SetPathArgs(p *PathArgs) { it.paths = p }

// PathArgs returns the item's arguments that arrive at JSON paths, nil when
// they arrive as text (see SetPathArgs).
func (it *Item) PathArgs() *PathArgs { return it.paths }

// PathOp is one value of a PathArgs: a value at a JSON path.
type PathOp struct {
	Ord   int
	Path  string
	Str   []byte // a string piece, for stringValue
	Raw   []byte // the JSON of any other value
	Cont  bool   // willContinue: the next piece of the same string follows
	IsStr bool
}

// OpsAt returns the values event ord added (a sub-slice of Ops, which is
// in stream order), nil when it added none.
func (p *PathArgs) OpsAt(ord int) []PathOp {
	if p == nil {
		return nil
	}
	i := sort.Search(len(p.Ops), func(i int) bool { return p.Ops[i].Ord >= ord })
	j := i
	for j < len(p.Ops) && p.Ops[j].Ord == ord {
		j++
	}
	return p.Ops[i:j]
}

// EventsAsOf counts the events that added values by the end of ord: the
// fragments of arguments that arrive at JSON paths.
func (p *PathArgs) EventsAsOf(ord int) int {
	if p == nil {
		return 0
	}
	n, last := 0, -1
	for _, op := range p.Ops {
		if op.Ord > ord {
			break
		}
		if op.Ord != last {
			n, last = n+1, op.Ord
		}
	}
	return n
}

// ArgsFragmentsAsOf counts the fragments of the item's arguments added by
// the end of ord: the text fragments, or the events that added values at
// JSON paths (PathArgs), where no fragment is a span of the rebuilt
// arguments.
func (it *Item) ArgsFragmentsAsOf(ord int) int {
	_, i := it.Args.AsOf(ord)
	return i + 1 + it.paths.EventsAsOf(ord)
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

// maxPathPad bounds the null elements one render may add to reach array
// indexes past an array's end. Without it each "[65535]" in a path (seven
// bytes of input) would render as 64k nulls, so a few hundred bytes of
// hostile arguments would cost megabytes and seconds on every render.
const maxPathPad = 1 << 16

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
func (g *PathArgs) render(ord int) []byte {
	root := &gnode{isObj: true}
	cont := map[string]bool{}
	pad := maxPathPad
	for _, op := range g.Ops {
		if ord >= 0 && op.Ord > ord {
			break
		}
		n := root
		for _, seg := range parsePath(op.Path) {
			n = n.child(seg.key, seg.index, &pad)
		}
		switch {
		case op.IsStr:
			if n.isStr && cont[op.Path] {
				n.str = append(n.str, op.Str...)
			} else {
				n.str, n.isStr, n.raw = append([]byte(nil), op.Str...), true, nil
			}
			cont[op.Path] = op.Cont
		default:
			n.raw, n.isStr = op.Raw, false
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
		return jsonscan.AppendQuote(b, n.str)
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
			b = jsonscan.AppendQuote(b, n.keys[i])
			b = append(b, ':')
			b = k.write(b)
		}
		return append(b, '}')
	case n.raw != nil:
		return append(b, n.raw...)
	}
	return append(b, "null"...)
}
