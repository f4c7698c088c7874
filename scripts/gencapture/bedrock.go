package main

// This file writes Amazon Bedrock streams: the Anthropic events the
// anthropic dialect writes, converted to ConverseStream events or wrapped
// in InvokeModelWithResponseStream chunks, each an AWS event stream
// message (https://docs.aws.amazon.com/transcribe/latest/dg/event-stream.html):
// prelude (total length, headers length, CRC32 of both), string headers,
// the JSON payload, CRC32 of the whole.

import (
	"encoding/base64"
	"math/rand/v2"

	"github.com/streamtap/streamtap/capture"
)

// bedrockOut is the state of the conversion.
type bedrockOut struct {
	invoke  bool
	blocks  map[int]string // content block index → type, for the current message
	pad     *rand.Rand     // the "p" padding's lengths: a source of its own, so the content matches the anthropic dialect's
	msg     []byte
	headers []byte // the message's header block, its buffer kept
}

const padLetters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// get returns the value of key in o, or nil.
func get(o obj, key string) any {
	for i := 0; i+1 < len(o); i += 2 {
		if o[i] == key {
			return o[i+1]
		}
	}
	return nil
}

// bedrockEvent writes the Bedrock form of Anthropic event v, of type typ.
func (g *gen) bedrockEvent(typ string, v any) {
	b := g.bedrock
	if b.pad == nil {
		b.pad = rand.New(rand.NewPCG(uint64(len(padLetters)), 0xbed))
	}
	p := padLetters[:1+b.pad.IntN(len(padLetters))]
	o, _ := v.(obj)
	if b.invoke {
		inner := o
		if typ == "message_stop" {
			inner = append(inner[:len(inner):len(inner)], "amazon-bedrock-invocationMetrics",
				obj{"inputTokenCount", 812, "outputTokenCount", 120, "invocationLatency", 1630, "firstByteLatency", 512})
		}
		g.message("chunk", obj{"bytes", base64.StdEncoding.EncodeToString([]byte(encode(inner))), "p", p})
		return
	}
	idx, _ := get(o, "index").(int)
	switch typ {
	case "message_start":
		clear(b.blocks)
		g.message("messageStart", obj{"p", p, "role", "assistant"})
	case "content_block_start":
		block, _ := get(o, "content_block").(obj)
		bt, _ := get(block, "type").(string)
		b.blocks[idx] = bt
		if bt == "tool_use" { // text blocks have no start
			g.message("contentBlockStart", obj{"contentBlockIndex", idx, "p", p,
				"start", obj{"toolUse", obj{"name", get(block, "name"), "toolUseId", "tooluse_" + get(block, "id").(string)[8:]}}})
		}
	case "content_block_delta":
		d, _ := get(o, "delta").(obj)
		var delta obj
		if get(d, "type") == "input_json_delta" {
			delta = obj{"toolUse", obj{"input", get(d, "partial_json")}}
		} else {
			delta = obj{"text", get(d, "text")}
		}
		g.message("contentBlockDelta", obj{"contentBlockIndex", idx, "delta", delta, "p", p})
	case "content_block_stop":
		g.message("contentBlockStop", obj{"contentBlockIndex", idx, "p", p})
	case "message_delta":
		d, _ := get(o, "delta").(obj)
		g.message("messageStop", obj{"p", p, "stopReason", get(d, "stop_reason")})
	case "message_stop":
		g.message("metadata", obj{"metrics", obj{"latencyMs", 1630}, "p", p,
			"usage", obj{"inputTokens", 812, "outputTokens", 120, "totalTokens", 932}})
	}
}

// message writes one event stream message of :event-type typ.
func (g *gen) message(typ string, payload obj) {
	b := g.bedrock
	h := b.headers[:0]
	for _, kv := range [][2]string{{":event-type", typ}, {":content-type", "application/json"}, {":message-type", "event"}} {
		h = capture.AppendEventStreamHeader(h, kv[0], capture.EventStreamString, []byte(kv[1]))
	}
	b.headers = h
	b.msg = capture.AppendEventStreamMessage(b.msg[:0], h, []byte(encode(payload)))
	g.buf.Reset()
	g.buf.Write(b.msg)
	g.flush()
}
