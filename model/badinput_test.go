package model_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/internal/dialecttest"
)

// smallResponses is a short, complete Responses stream with LF endings.
var smallResponses = "event: response.created\n" + sse(`{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","status":"in_progress"}}`) +
	"event: response.output_item.added\n" + sse(`{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"f","arguments":""}}`) +
	": keepalive\n\n" +
	"event: response.function_call_arguments.delta\n" + sse(`{"type":"response.function_call_arguments.delta","sequence_number":2,"item_id":"fc_1","output_index":0,"delta":"{\"a\":"}`) +
	"event: response.function_call_arguments.delta\n" + sse(`{"type":"response.function_call_arguments.delta","sequence_number":3,"item_id":"fc_1","output_index":0,"delta":"1}"}`) +
	"event: response.output_item.done\n" + sse(`{"type":"response.output_item.done","sequence_number":4,"output_index":0,"item":{"id":"fc_1","type":"function_call","status":"completed","call_id":"call_1","name":"f","arguments":"{\"a\":1}"}}`) +
	"event: response.completed\n" + sse(`{"type":"response.completed","sequence_number":5,"response":{"id":"resp_1","status":"completed"}}`)

const http401Body = `{"error":{"message":"Incorrect API key","type":"invalid_request_error","code":"invalid_api_key"}}`

// hugeDelta is the size of the delta in the "50 MB delta" case.
const hugeDelta = 50 << 20

func garbage(n int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// diagnosed reports whether an event says what is wrong with it, or is a
// frame that carries no meaning by design.
func diagnosed(ev *model.Event) bool {
	const frameDiag = capture.Truncated | capture.LeadingSpaceField | capture.UnknownField |
		capture.InvalidUTF8 | capture.IDHasNUL | capture.BadRetry | capture.NULByte | capture.NoData
	return ev.Flags&(model.DecodeError|model.NotObject|model.NonStandard|model.Orphan) != 0 || ev.Frame&frameDiag != 0 ||
		ev.Kind == model.KindError || ev.Source == capture.FrameComment || ev.Source == capture.FrameRemainder
}

func only(t *testing.T, s *model.Session) *model.Event {
	t.Helper()
	if s.Events.Len() != 1 {
		t.Fatalf("%d events; want 1: %+v", s.Events.Len(), s.Events)
	}
	return s.Events.At(0)
}

func hasError(s *model.Session, status int, msg string) bool {
	for _, e := range s.Errors {
		if e.Status == status && e.Message == msg {
			return true
		}
	}
	return false
}

// TestBadInput feeds inputs that are broken in one way each. Every one must
// assemble without losing a byte (events tile the input and read back) and
// carry a diagnosis on the event that is wrong.
func TestBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   []byte
		want func(t *testing.T, s *model.Session)
	}{
		{
			name: "data that is not JSON",
			in:   []byte("data: hello\n\n"),
			want: func(t *testing.T, s *model.Session) {
				ev := only(t, s)
				if ev.Flags&model.DecodeError == 0 || s.TypeName(ev.Type) != model.TypeInvalid {
					t.Errorf("event flags %b type %q; want DecodeError, %q", ev.Flags, s.TypeName(ev.Type), model.TypeInvalid)
				}
			},
		},
		{
			name: "invalid UTF-8 in data",
			in:   []byte("data: {\"type\":\"response.output_text.delta\",\"item_id\":\"m\",\"delta\":\"ok\xff\xfe\"}\n\n"),
			want: func(t *testing.T, s *model.Session) {
				ev := only(t, s)
				if ev.Frame&capture.InvalidUTF8 == 0 || ev.Kind != model.KindTextDelta {
					t.Errorf("event frame flags %b kind %v; want InvalidUTF8 and a text delta", ev.Frame, ev.Kind)
				}
				if got := s.Texts(); len(got) != 1 || got[0] != "ok\ufffd\ufffd" {
					t.Errorf("Texts() = %q; want the text with U+FFFD for the bad bytes", got)
				}
			},
		},
		{
			name: "NUL byte inside a JSON string",
			in:   []byte("data: {\"type\":\"response.output_text.delta\",\"delta\":\"a\x00b\"}\n\n"),
			want: func(t *testing.T, s *model.Session) {
				ev := only(t, s)
				if ev.Frame&capture.NULByte == 0 || ev.Flags&model.DecodeError == 0 {
					t.Errorf("event frame flags %b flags %b; want NULByte and DecodeError", ev.Frame, ev.Flags)
				}
			},
		},
		{
			name: "binary garbage",
			in:   garbage(64 << 10),
			want: func(t *testing.T, s *model.Session) {
				if s.Len() == 0 {
					t.Fatal("no events")
				}
				for i := range s.Events.All() {
					if ev := s.Events.At(i); !diagnosed(ev) {
						t.Errorf("event %d (%s, frame flags %b, flags %b) carries no diagnosis", i, s.TypeName(ev.Type), ev.Frame, ev.Flags)
					}
				}
				if o := s.Outcome(); o.State != model.OutcomeNotAStream {
					t.Errorf("Outcome() = %+v; want not-a-stream: no event of it is an LLM stream's", o)
				}
			},
		},
		{
			name: "HTTP 401 with a JSON body",
			in:   []byte("HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\n\r\n" + http401Body),
			want: func(t *testing.T, s *model.Session) {
				if s.Events.Len() != 2 || s.Events.At(0).Source != capture.FrameHead {
					t.Fatalf("events = %+v; want the head and the body", s.Events)
				}
				if s.Events.At(0).Kind != model.KindError || s.Events.At(1).Kind != model.KindError {
					t.Errorf("kinds = %v, %v; want error, error", s.Events.At(0).Kind, s.Events.At(1).Kind)
				}
				if !hasError(s, 401, "Incorrect API key") {
					t.Errorf("Errors = %+v; want status 401 with the body's message", s.Errors)
				}
				if o := s.Outcome(); o.State != "error" || !strings.Contains(o.Detail, "Incorrect API key") {
					t.Errorf("Outcome() = %+v; want error with the message", o)
				}
			},
		},
		{
			name: "401 body without headers",
			in:   []byte(http401Body),
			want: func(t *testing.T, s *model.Session) {
				ev := only(t, s)
				if ev.Kind != model.KindError {
					t.Errorf("kind = %v; want error", ev.Kind)
				}
				if len(s.Errors) != 1 || s.Errors[0].Message != "Incorrect API key" || s.Errors[0].Code != "invalid_api_key" {
					t.Errorf("Errors = %+v; want the body's message and code", s.Errors)
				}
			},
		},
		{
			name: "empty input",
			in:   nil,
			want: func(t *testing.T, s *model.Session) {
				if s.Len() != 0 {
					t.Errorf("%d events; want none", s.Len())
				}
				if o := s.Outcome(); o.State != "empty" {
					t.Errorf("Outcome() = %+v; want empty", o)
				}
			},
		},
		{
			name: "stream cut mid-event",
			in:   []byte(smallResponses[:strings.Index(smallResponses, `"delta":"1}"`)+5]),
			want: func(t *testing.T, s *model.Session) {
				ev := s.Events.At(s.Events.Len() - 1)
				if ev.Frame&capture.Truncated == 0 || ev.Flags&model.DecodeError == 0 {
					t.Errorf("last event frame flags %b flags %b; want Truncated and DecodeError", ev.Frame, ev.Flags)
				}
				for i := range s.Events.Len() - 1 {
					if s.Events.At(i).Frame&capture.Truncated != 0 {
						t.Errorf("event %d is marked truncated", i)
					}
				}
				if o := s.Outcome(); o.State != "truncated" {
					t.Errorf("Outcome() = %+v; want truncated", o)
				}
			},
		},
		{
			name: "CR-only line endings",
			in:   []byte(strings.ReplaceAll(smallResponses, "\n", "\r")),
			want: func(t *testing.T, s *model.Session) {
				lf := model.Assemble([]byte(smallResponses), capture.FormatAuto, model.Options{KeepEvents: true})
				if s.Len() != lf.Len() {
					t.Fatalf("%d events; the LF version has %d", s.Len(), lf.Len())
				}
				for i := range s.Events.All() {
					cr, want := *s.Events.At(i), *lf.Events.At(i)
					if cr.Frame&capture.EndsCR == 0 || cr.Type != want.Type || cr.Kind != want.Kind || cr.Item != want.Item || cr.Flags != want.Flags {
						t.Errorf("event %d = %+v; LF version %+v", i, cr, want)
					}
				}
				if got, want := mustJSON(s.Report()), mustJSON(lf.Report()); got != want {
					t.Errorf("Report() = %s; LF version %s", got, want)
				}
			},
		},
		{
			name: "50 MB delta on one data line",
			in: func() []byte {
				var b bytes.Buffer
				b.WriteString(smallResponses[:strings.Index(smallResponses, ": keepalive")])
				b.WriteString(`data: {"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":0,"delta":"`)
				b.Write(bytes.Repeat([]byte("x"), hugeDelta))
				b.WriteString("\"}\n\n")
				return b.Bytes()
			}(),
			want: func(t *testing.T, s *model.Session) {
				ev := s.Events.At(s.Events.Len() - 1)
				if ev.Kind != model.KindArgsDelta || ev.Frame&capture.TooLarge == 0 {
					t.Errorf("last event kind %v frame flags %b; want an args delta flagged TooLarge", ev.Kind, ev.Frame)
				}
				c := onlyCall(t, s)
				if c.Args.Len() != hugeDelta || c.ArgsAsOf(s.Len()-1) == nil {
					t.Errorf("args length = %d; want %d", c.Args.Len(), hugeDelta)
				}
			},
		},
		{
			name: "JSON array",
			in:   []byte("data: [1,2]\n\n"),
			want: func(t *testing.T, s *model.Session) {
				if ev := only(t, s); ev.Flags&model.NotObject == 0 {
					t.Errorf("flags %b; want NotObject", ev.Flags)
				}
			},
		},
		{
			name: "JSON number",
			in:   []byte("data: 42\n\n"),
			want: func(t *testing.T, s *model.Session) {
				if ev := only(t, s); ev.Flags&model.NotObject == 0 {
					t.Errorf("flags %b; want NotObject", ev.Flags)
				}
			},
		},
		{
			name: "JSON string and null",
			in:   []byte("data: \"x\"\n\ndata: null\n\n"),
			want: func(t *testing.T, s *model.Session) {
				for i, ev := range s.Events.All() {
					if ev.Flags&model.NotObject == 0 {
						t.Errorf("event %d flags %b; want NotObject", i, ev.Flags)
					}
				}
			},
		},
		{
			name: "BOM before JSON lines",
			in:   []byte("\xEF\xBB\xBF{\"type\":\"response.output_text.delta\",\"delta\":\"a\"}\n{\"type\":\"response.output_text.delta\",\"delta\":\"b\"}\n"),
			want: func(t *testing.T, s *model.Session) {
				if s.Events.Len() != 2 || s.Events.At(0).Frame&capture.BOM == 0 {
					t.Fatalf("events = %+v; want two, the first flagged BOM", s.Events)
				}
				if got := s.Texts(); len(got) != 1 || got[0] != "ab" {
					t.Errorf("Texts() = %q; want [\"ab\"]: the BOM must not spoil the first line", got)
				}
			},
		},
		{
			name: "blank space before an HTTP head",
			in:   []byte(" HTTP/1.1 401 Unauthorized\r\n\r\n" + http401Body),
			want: func(t *testing.T, s *model.Session) {
				// Not a head at the first byte: framed as SSE, with the lines
				// shown as fields the spec does not know.
				if s.Len() == 0 || s.Events.At(0).Frame&capture.UnknownField == 0 {
					t.Errorf("events = %+v; want the head line flagged UnknownField", s.Events)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := model.Assemble(tt.in, capture.FormatAuto, model.Options{KeepEvents: true, Raw: bytes.NewReader(tt.in)})
			dialecttest.CheckTiling(t, s, tt.in)
			if _, err := json.Marshal(s.Report()); err != nil {
				t.Fatalf("json.Marshal(Report()) = %v", err)
			}
			tt.want(t, s)
		})
	}
}
