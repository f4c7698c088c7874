package checks

import (
	"encoding/base64"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/internal/fixtures"
)

// esEvent is one Bedrock event stream message: :event-type typ, payload.
func esEvent(typ, payload string) string {
	return string(capture.AppendEventStream(nil, []capture.Field{
		{Name: []byte(":event-type"), Value: []byte(typ)},
		{Name: []byte(":content-type"), Value: []byte("application/json")},
		{Name: []byte(":message-type"), Value: []byte("event")},
	}, []byte(payload)))
}

// esException is an exception message.
func esException(typ, message string) string {
	return string(capture.AppendEventStream(nil, []capture.Field{
		{Name: []byte(":exception-type"), Value: []byte(typ)},
		{Name: []byte(":content-type"), Value: []byte("application/json")},
		{Name: []byte(":message-type"), Value: []byte("exception")},
	}, []byte(`{"message":"`+message+`"}`)))
}

// convBase is a sound ConverseStream: a text block with no start, then a
// tool call; event i is element i.
func convBase() []string {
	return []string{
		esEvent("messageStart", `{"p":"abc","role":"assistant"}`),
		esEvent("contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"Let me check."},"p":"ab"}`),
		esEvent("contentBlockStop", `{"contentBlockIndex":0,"p":"abcd"}`),
		esEvent("contentBlockStart", `{"contentBlockIndex":1,"p":"a","start":{"toolUse":{"name":"get_weather","toolUseId":"tooluse_1"}}}`),
		esEvent("contentBlockDelta", `{"contentBlockIndex":1,"delta":{"toolUse":{"input":""}},"p":"abc"}`),
		esEvent("contentBlockDelta", `{"contentBlockIndex":1,"delta":{"toolUse":{"input":"{\"city\":"}},"p":"ab"}`),
		esEvent("contentBlockDelta", `{"contentBlockIndex":1,"delta":{"toolUse":{"input":"\"Paris\"}"}},"p":"a"}`),
		esEvent("contentBlockStop", `{"contentBlockIndex":1,"p":"abcdef"}`),
		esEvent("messageStop", `{"p":"ab","stopReason":"tool_use"}`),
		esEvent("metadata", `{"metrics":{"latencyMs":420},"p":"abc","usage":{"inputTokens":40,"outputTokens":20,"totalTokens":60}}`),
	}
}

// withEvent returns events with element i replaced by repl (none: removed).
func withEvent(events []string, i int, repl ...string) []string {
	out := append([]string(nil), events[:i]...)
	out = append(out, repl...)
	return append(out, events[i+1:]...)
}

// invokeChunk is an InvokeModel chunk wrapping inner.
func invokeChunk(inner string) string {
	return esEvent("chunk", `{"bytes":"`+base64.StdEncoding.EncodeToString([]byte(inner))+`","p":"abc"}`)
}

// invokeAnthropic is a sound InvokeModel stream of Claude: Anthropic
// Messages events in chunks.
func invokeAnthropic(input ...string) []string {
	out := []string{
		invokeChunk(`{"type":"message_start","message":{"id":"msg_bdrk_1","type":"message","role":"assistant","model":"claude","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}}}`),
		invokeChunk(`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}}`),
	}
	for _, p := range input {
		out = append(out, invokeChunk(`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":`+p+`}}`))
	}
	return append(out,
		invokeChunk(`{"type":"content_block_stop","index":0}`),
		invokeChunk(`{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":15}}`),
		invokeChunk(`{"type":"message_stop","amazon-bedrock-invocationMetrics":{"inputTokenCount":10,"outputTokenCount":15}}`))
}

func flipByte(msg string, at int) string {
	b := []byte(msg)
	b[at] ^= 0x20
	return string(b)
}

func bedrockCases() []ruleCase {
	base := convBase()
	join := func(events []string) string { return strings.Join(events, "") }
	short := "\x00\x00\x00\x0c\x00\x00\x00\x00" // total 12, a valid CRC: too short for a message
	short = string(binary.BigEndian.AppendUint32([]byte(short), crc32.ChecksumIEEE([]byte(short))))
	warning := Warning
	maxTok := withEvent(base, 8, esEvent("messageStop", `{"stopReason":"max_tokens"}`))
	maxTokCut := withEvent(maxTok, 6)
	wholeConverse := `{"output":{"message":{"role":"assistant","content":[{"text":"Let me check."},` +
		`{"toolUse":{"toolUseId":"tooluse_1","name":"get_weather","input":{"city":"Paris"}}}]}},"stopReason":"tool_use",` +
		`"usage":{"inputTokens":40,"outputTokens":20,"totalTokens":60},"metrics":{"latencyMs":420}}`
	return []ruleCase{
		hit(fESPreludeCRC, "length byte damaged", join(withEvent(base, 1, flipByte(base[1], 2))), 1),
		miss(fESPreludeCRC, "sound", join(base)),
		hit(fESMessageCRC, "payload byte damaged", join(withEvent(base, 5, flipByte(base[5], len(base[5])-10))), 5),
		miss(fESMessageCRC, "sound", join(base)),
		hit(fESLength, "a prelude of 12 bytes", join(withEvent(base, 2, short, base[2])), 2),
		miss(fESLength, "sound", join(base)),
		hit(fESException, "throttled mid-stream", join(append(slices.Clone(base[:6]), esException("throttlingException", "Too many requests"))), 6),
		miss(fESException, "no exception", join(base)),
		hit(fUnterminated, "event stream cut mid-message", join(base)[:len(join(base))-7], 9),

		hit("bedrock/delta-unknown-block", "toolUse delta with no contentBlockStart", join(withEvent(base, 3)), 3),
		hit("bedrock/delta-unknown-block", "text delta after its block's stop", join(withEvent(base, 3, base[3], esEvent("contentBlockDelta",
			`{"contentBlockIndex":0,"delta":{"text":" More."}}`))), 2, 4),
		hit("bedrock/delta-unknown-block", "stop twice", join(withEvent(base, 2, base[2], base[2])), 2, 3),
		miss("bedrock/delta-unknown-block", "text opens its block with its first delta", join(base)),
		hit("bedrock/delta-wrong-block", "text routed to the tool block", join(withEvent(base, 6, base[6], esEvent("contentBlockDelta",
			`{"contentBlockIndex":1,"delta":{"text":"Done."}}`))), 3, 7),
		miss("bedrock/delta-wrong-block", "text in a block of its own after the call", join(withEvent(base, 7, base[7], esEvent("contentBlockDelta",
			`{"contentBlockIndex":2,"delta":{"text":"Done."}}`), esEvent("contentBlockStop", `{"contentBlockIndex":2}`)))),
		hit("bedrock/empty-block-start", "start union empty", join(withEvent(base, 1, esEvent("contentBlockStart", `{"contentBlockIndex":0,"start":{}}`), base[1])), 1),
		miss("bedrock/empty-block-start", "tool call start", join(base)),
		hit("bedrock/tool-input-invalid-json", "input cut", join(withEvent(base, 6)), 3, 6),
		{rule: "bedrock/tool-input-invalid-json", name: "input cut by max_tokens", stream: join(maxTokCut), hit: true, events: []int{3, 6}, sev: &warning},
		miss("bedrock/tool-input-invalid-json", "input complete", join(base)),
		hit("bedrock/message-stop-missing", "cut before messageStop", join(base[:8]), 7),
		miss("bedrock/message-stop-missing", "an exception ends it", join(append(slices.Clone(base[:6]), esException("modelStreamErrorException", "The model failed")))),
		hit("bedrock/metadata-missing", "no metadata", join(base[:9]), 8),
		miss("bedrock/metadata-missing", "metadata", join(base)),
		// A whole Converse response has no messageStop or metadata event:
		// its stopReason, usage and metrics are its own members.
		miss("bedrock/message-stop-missing", "a whole Converse response", wholeConverse),
		miss("bedrock/metadata-missing", "a whole Converse response", wholeConverse),
		miss("bedrock/tool-input-invalid-json", "a whole Converse response", wholeConverse),
		hit("bedrock/unknown-event", "an invented event type", join(withEvent(base, 9, base[9], esEvent("messageTrailer", `{}`))), 10),
		miss("bedrock/unknown-event", "documented types", join(base)),
		hit("bedrock/message-start-repeated", "a second message after the first", join(append(slices.Clone(base), base[0], base[1], base[2],
			esEvent("messageStop", `{"stopReason":"end_turn"}`), base[9])), 0, 10),
		hit("bedrock/message-start-repeated", "a message started again before its stop", join(withEvent(base, 3, base[0], base[3])), 0, 3),
		hit("bedrock/message-start-repeated", "Nova inside InvokeModel, two messageStart chunks", join([]string{
			invokeChunk(`{"messageStart":{"role":"assistant"}}`), invokeChunk(`{"contentBlockDelta":{"contentBlockIndex":0,"delta":{"text":"Hi"}}}`),
			invokeChunk(`{"messageStart":{"role":"assistant"}}`)}), 0, 2),
		miss("bedrock/message-start-repeated", "one messageStart", join(base)),
		miss("bedrock/message-start-repeated", "no messageStart at all", join(base[1:])),

		hit("invoke/chunk-invalid", "bytes not base64", join(withEvent(invokeAnthropic(`"{}"`), 2, esEvent("chunk", `{"bytes":"not base64!"}`))), 2),
		hit("invoke/chunk-invalid", "bytes decode to no object", join(withEvent(invokeAnthropic(`"{}"`), 2, esEvent("chunk", `{"bytes":"WzFd"}`))), 2),
		miss("invoke/chunk-invalid", "sound chunks", join(invokeAnthropic(`"{}"`))),
		hit("invoke/unknown-model", "an unknown family", esEvent("chunk", `{"bytes":"`+base64.StdEncoding.EncodeToString([]byte(`{"completion":"Hi","stop":null}`))+`"}`), 0),
		miss("invoke/unknown-model", "Titan", esEvent("chunk", `{"bytes":"`+base64.StdEncoding.EncodeToString([]byte(`{"outputText":"Hi","index":0,"completionReason":"FINISH"}`))+`"}`)),

		// One implementation: the Anthropic rules judge the Anthropic
		// events InvokeModel chunks wrap.
		hit("anthropic/tool-input-invalid-json", "Anthropic input cut inside InvokeModel chunks", join(invokeAnthropic(`""`, `"{\"city\":"`)), 1, 4),
		miss("anthropic/tool-input-invalid-json", "Anthropic input whole inside InvokeModel chunks", join(invokeAnthropic(`""`, `"{\"city\":\"Paris\"}"`))),
	}
}

// TestBedrockCapturesClean: the encoding's test vectors (the AWS SDK's,
// in capture/testdata/eventstream) yield exactly the transport findings
// their names call for, and the Bedrock streams of ../shared/captures-next,
// when it is there, no finding at all (their manifest notes every frame
// sound).
func TestBedrockCapturesClean(t *testing.T) {
	files, _ := filepath.Glob(fixtures.Path("capture/testdata/eventstream/*.eventstream"))
	if len(files) == 0 {
		t.Fatal("no test vectors in capture/testdata/eventstream")
	}
	files = append(files, fixtures.SharedGlob("captures-next/bedrock-*.eventstream")...)
	for _, path := range files {
		name := filepath.Base(path)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rep := CheckBytes(data, capture.FormatAuto, Strict)
		var got []string
		for _, f := range rep.Findings {
			got = append(got, f.Rule)
		}
		want := ""
		switch {
		case strings.Contains(name, "corrupted-length"), strings.Contains(name, "corrupted-header-len"):
			want = fESPreludeCRC
		case strings.Contains(name, "corrupted-headers"), strings.Contains(name, "corrupted-payload"):
			want = fESMessageCRC
		case strings.Contains(name, "positive-empty-message"):
			want = fNoData // no payload at all
		case strings.HasPrefix(name, "positive-"):
			want = fInvalidJSON // the vectors' payload is {'foo':'bar'}
		}
		if strings.Join(got, " ") != want {
			t.Errorf("%s: findings %q; want %q", name, got, want)
			for _, f := range rep.Findings {
				t.Logf("%s %s: %s", f.Severity, f.Rule, f.Message)
			}
		}
	}
}
