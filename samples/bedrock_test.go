package samples_test

import (
	"bytes"
	"encoding/base64"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/samples"
)

// update rewrites the generated samples: go test ./samples -run TestBedrockSamplesGenerated -update
var update = flag.Bool("update", false, "rewrite the generated Bedrock samples")

// The Bedrock samples are binary, so they are not written by hand: they
// are generated here, from the ConverseStream and InvokeModel event
// references, with capture's event stream encoder. TestBedrockSamplesGenerated
// holds the embedded files to this source.

// esEvent is one event stream message of :event-type typ, as Bedrock
// sends it.
func esEvent(typ, payload string) []byte {
	return capture.AppendEventStream(nil, []capture.Field{
		{Name: []byte(":event-type"), Value: []byte(typ)},
		{Name: []byte(":content-type"), Value: []byte("application/json")},
		{Name: []byte(":message-type"), Value: []byte("event")},
	}, []byte(payload))
}

// pad is Bedrock's "p" member: letters of a length that hides the
// payload's, different from one event to the next.
func pad(i int) string {
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	return letters[:1+(i*37+11)%len(letters)]
}

// converseSample is Claude through ConverseStream: a text block (no
// contentBlockStart: its first delta opens it), then a tool call whose
// input arrives as "" and string pieces, stopReason tool_use, metadata.
func converseSample() []byte {
	var out []byte
	i := 0
	ev := func(typ, body string) {
		out = append(out, esEvent(typ, strings.TrimSuffix(body, "}")+`,"p":"`+pad(i)+`"}`)...)
		i++
	}
	ev("messageStart", `{"role":"assistant"}`)
	for _, t := range []string{"I'll", " check the", " weather in", " Lisbon for", " you."} {
		ev("contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"`+t+`"}}`)
	}
	ev("contentBlockStop", `{"contentBlockIndex":0}`)
	ev("contentBlockStart", `{"contentBlockIndex":1,"start":{"toolUse":{"toolUseId":"tooluse_kZ3qT8vWmRa2Xc9LpN4bEw","name":"get_weather"}}}`)
	for _, in := range []string{``, `{\"location\"`, `: \"Lisbon, Po`, `rtugal\", \"unit`, `\": \"celsius\"}`} {
		ev("contentBlockDelta", `{"contentBlockIndex":1,"delta":{"toolUse":{"input":"`+in+`"}}}`)
	}
	ev("contentBlockStop", `{"contentBlockIndex":1}`)
	ev("messageStop", `{"stopReason":"tool_use"}`)
	ev("metadata", `{"usage":{"inputTokens":412,"outputTokens":71,"totalTokens":483},"metrics":{"latencyMs":1214}}`)
	return out
}

// invokeSample is Claude through InvokeModelWithResponseStream: every
// chunk's bytes is the base64 of one Anthropic Messages event, the last
// one carrying Bedrock's invocation metrics.
func invokeSample() []byte {
	var out []byte
	i := 0
	chunk := func(event string) {
		b64 := base64.StdEncoding.EncodeToString([]byte(event))
		out = append(out, esEvent("chunk", `{"bytes":"`+b64+`","p":"`+pad(i)+`"}`)...)
		i++
	}
	chunk(`{"type":"message_start","message":{"id":"msg_bdrk_01Hq7VdN3yXcR5tLm8KpWs2J","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":398,"output_tokens":2}}}`)
	chunk(`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
	for _, t := range []string{"Let me", " look up", " the time", " in Osaka."} {
		chunk(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"` + t + `"}}`)
	}
	chunk(`{"type":"content_block_stop","index":0}`)
	chunk(`{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_bdrk_01FkR4nW8qLs2VxJt6Yc9PdA","name":"get_local_time","input":{}}}`)
	for _, p := range []string{``, `{\"timez`, `one\": \"Asi`, `a/Tokyo\"}`} {
		chunk(`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"` + p + `"}}`)
	}
	chunk(`{"type":"content_block_stop","index":1}`)
	chunk(`{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":58}}`)
	chunk(`{"type":"message_stop","amazon-bedrock-invocationMetrics":{"inputTokenCount":398,"outputTokenCount":58,"invocationLatency":1630,"firstByteLatency":512}}`)
	return out
}

var generated = map[string]func() []byte{
	"bedrock-converse-text-then-tool": converseSample,
	"bedrock-invoke-claude-tool":      invokeSample,
}

// TestBedrockSamplesGenerated: the embedded Bedrock samples are what the
// generators above write (-update rewrites them).
func TestBedrockSamplesGenerated(t *testing.T) {
	for name, gen := range generated {
		want := gen()
		if *update {
			if err := os.WriteFile(name+".eventstream", want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := samples.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s.eventstream differs from its generator; run go test ./samples -run TestBedrockSamplesGenerated -update", name)
		}
	}
}
