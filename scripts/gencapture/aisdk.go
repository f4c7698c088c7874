package main

// This file writes the Vercel AI SDK's UI message stream (ai 7,
// toUIMessageStreamResponse) of an agent run over Anthropic: the
// Anthropic events the anthropic dialect writes, each turn one step of
// one long assistant message, converted as @ai-sdk/anthropic and
// streamText convert them (https://github.com/vercel/ai: a text block is
// a text part named by its block index, a tool_use block a call whose
// non-empty partial_json fragments are its tool-input-delta chunks and
// whose parsed input is its tool-input-available; pings are dropped). The
// run's finish and data: [DONE] end the file. With the same seed and
// -turns it carries the anthropic capture's calls and text.

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// aisdkOut is the state of the conversion.
type aisdkOut struct {
	started bool
	blocks  map[int]*aisdkBlock // content block index → the block, for the current turn
}

// aisdkBlock is one content block being converted.
type aisdkBlock struct {
	call, name string // a tool_use block's id and name; "" for text
	args       bytes.Buffer
}

// aisdkEvent writes the UI message stream form of Anthropic event v, of
// type typ.
func (g *gen) aisdkEvent(typ string, v any) {
	a := g.aisdk
	o, _ := v.(obj)
	idx, _ := get(o, "index").(int)
	switch typ {
	case "message_start":
		if !a.started {
			a.started = true
			g.chunk(obj{"type", "start", "messageId", "msg_aisdk_run_1"}) // no draw from the source: the turns stay the anthropic dialect's
		}
		clear(a.blocks)
		g.chunk(obj{"type", "start-step"})
	case "content_block_start":
		block, _ := get(o, "content_block").(obj)
		b := &aisdkBlock{}
		a.blocks[idx] = b
		if get(block, "type") == "tool_use" {
			b.call, _ = get(block, "id").(string)
			b.name, _ = get(block, "name").(string)
			g.chunk(obj{"type", "tool-input-start", "toolCallId", b.call, "toolName", b.name})
			return
		}
		g.chunk(obj{"type", "text-start", "id", strconv.Itoa(idx)})
	case "content_block_delta":
		b, d := a.blocks[idx], get(o, "delta").(obj)
		if b.call == "" {
			g.chunk(obj{"type", "text-delta", "id", strconv.Itoa(idx), "delta", get(d, "text")})
			return
		}
		if p, _ := get(d, "partial_json").(string); p != "" { // ai drops the empty fragments
			b.args.WriteString(p)
			g.chunk(obj{"type", "tool-input-delta", "toolCallId", b.call, "inputTextDelta", p})
		}
	case "content_block_stop":
		b := a.blocks[idx]
		if b.call == "" {
			g.chunk(obj{"type", "text-end", "id", strconv.Itoa(idx)})
			return
		}
		var input bytes.Buffer
		if err := json.Compact(&input, b.args.Bytes()); err != nil {
			fatal(err)
		}
		g.chunk(obj{"type", "tool-input-available", "toolCallId", b.call, "toolName", b.name, "input", json.RawMessage(input.Bytes())})
	case "message_stop":
		g.chunk(obj{"type", "finish-step"})
	}
}

// aisdkEnd ends the run: its finish, then data: [DONE].
func (g *gen) aisdkEnd() {
	g.chunk(obj{"type", "finish", "finishReason", "tool-calls"})
	g.buf.Reset()
	g.buf.WriteString("data: [DONE]\n\n")
	g.flush()
}

// chunk writes one UI message stream chunk: a data: line, as
// JsonToSseTransformStream writes it.
func (g *gen) chunk(v obj) {
	g.buf.Reset()
	g.buf.WriteString("data: ")
	if err := g.enc.Encode(v); err != nil { // Encode ends the line with '\n'
		fatal(err)
	}
	g.buf.WriteByte('\n')
	g.flush()
}
