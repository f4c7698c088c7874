package capture_test

import (
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/internal/eventstreamvectors"
)

// The vectors are made with capture's own encoder, so this test lives
// outside the package (its internal tests cannot import what imports it).

// TestEventStreamVectors: the event stream encoding's own test vectors
// (internal/eventstreamvectors: the AWS SDK's, byte for byte)
// decode as the SDK says they do (lengths, every header type, payload),
// and the negative ones are refused with the check that fails.
func TestEventStreamVectors(t *testing.T) {
	type hdr struct{ name, typ, text string }
	tests := []struct {
		name            string
		total, headers  int
		want            []hdr
		payload, refuse string
	}{
		{name: "positive-all-headers", total: 204, headers: 175, payload: "{'foo':'bar'}", want: []hdr{
			{"event-type", "int", "40972"}, {"content-type", "string", "application/json"}, {"bool false", "bool", "false"},
			{"bool true", "bool", "true"}, {"byte", "byte", "-49"},
			{"byte buf", "bytes", "SSdtIGEgbGl0dGxlIHRlYXBvdCE="},  // 49276d2061206c6974746c6520746561706f7421
			{"timestamp", "timestamp", "1970-01-01T02:24:35.309Z"}, // 8675309 ms
			{"int16", "short", "42"}, {"int64", "long", "42424242"},
			{"uuid", "uuid", "01020304-0506-0708-090a-0b0c0d0e0f10"},
		}},
		{name: "positive-empty-message", total: 16},
		{name: "positive-int32-header", total: 45, headers: 16, payload: "{'foo':'bar'}", want: []hdr{{"event-type", "int", "40972"}}},
		{name: "positive-payload-no-headers", total: 29, payload: "{'foo':'bar'}"},
		{name: "positive-payload-one-str-header", total: 61, headers: 32, payload: "{'foo':'bar'}",
			want: []hdr{{"content-type", "string", "application/json"}}},
		{name: "negative-corrupted-header-len", refuse: "prelude-crc"},
		{name: "negative-corrupted-headers", refuse: "message-crc"},
		{name: "negative-corrupted-length", refuse: "prelude-crc"},
		{name: "negative-corrupted-payload", refuse: "message-crc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := eventstreamvectors.Get(tt.name)
			m, err := capture.ParseEventStream(data)
			if err != nil {
				t.Fatal(err)
			}
			if got := problems(m.Problem); got != tt.refuse {
				t.Fatalf("problems = %q; want %q", got, tt.refuse)
			}
			frames := framed(data)
			if len(frames) != 1 || frames[0].Flags&capture.EventStream == 0 {
				t.Fatalf("framed as %+v; want one event stream frame", frames)
			}
			if got := problems(frames[0].Flags); got != tt.refuse {
				t.Errorf("frame flags name %q; want %q", got, tt.refuse)
			}
			if tt.refuse != "" {
				return
			}
			if int(m.Total) != tt.total || int(m.HeadersLen) != tt.headers || string(m.Payload) != tt.payload {
				t.Errorf("total %d, headers %d, payload %q; want %d, %d, %q", m.Total, m.HeadersLen, m.Payload, tt.total, tt.headers, tt.payload)
			}
			if len(m.Headers) != len(tt.want) {
				t.Fatalf("%d headers; want %d", len(m.Headers), len(tt.want))
			}
			for i, w := range tt.want {
				h := m.Headers[i]
				if got := (hdr{string(h.Name), h.Type.String(), string(h.AppendText(nil))}); got != w {
					t.Errorf("header %d = %+v; want %+v", i, got, w)
				}
			}
			if frames[0].Data != tt.payload || frames[0].HasData != (tt.payload != "") {
				t.Errorf("frame data %q (has %v); want %q", frames[0].Data, frames[0].HasData, tt.payload)
			}
		})
	}
}

// frameOf is what the test reads of a frame, copied out of the framer.
type frameOf struct {
	Flags   capture.Flags
	Data    string
	HasData bool
}

// framed frames data whole.
func framed(data []byte) []frameOf {
	var out []frameOf
	fr := capture.NewFramer(capture.FormatAuto)
	keep := func(f *capture.Frame) { out = append(out, frameOf{f.Flags, string(f.Data), f.HasData}) }
	fr.Feed(data, 0, keep)
	fr.Finish(0, keep)
	return out
}

// problems names the event stream checks a frame failed.
func problems(fl capture.Flags) string {
	var out []string
	for _, p := range []struct {
		f    capture.Flags
		name string
	}{{capture.PreludeCRC, "prelude-crc"}, {capture.MessageCRC, "message-crc"}, {capture.BadLength, "length"}, {capture.Truncated, "truncated"}} {
		if fl&p.f != 0 {
			out = append(out, p.name)
		}
	}
	return strings.Join(out, ",")
}
