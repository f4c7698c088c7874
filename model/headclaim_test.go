package model

import (
	"slices"
	"testing"

	"github.com/streamtap/streamtap/capture"
)

// headDialect is a dialect for TestClaimHead: it claims a response whose
// head says X-Test-Stream: v1, and counts the events it is given.
type headDialect struct{ Base }

func (*headDialect) Info() DialectInfo {
	return DialectInfo{Name: "head-test", Short: "headtest"}
}

func (*headDialect) ClaimHead(h *Head) bool { return h.Get("x-test-stream") == "v1" }

func (*headDialect) NewAssembly() Assembly { return new(headState) }

type headState struct {
	events []int
	NoSentinel
}

func (st *headState) Event(_ *Session, ev *Event, _ string, _ []byte, ord int) {
	ev.Kind = KindLifecycle
	st.events = append(st.events, ord)
}

// registerForTest registers p for the rest of the test and removes it when
// the test ends, so that the registry is as before for every other test.
// It must not run in a parallel test: the registry is read by every
// session.
func registerForTest(t *testing.T, p Protocol) Dialect {
	t.Helper()
	regs, det, wr := slices.Clone(registered), slices.Clone(detection), slices.Clone(wrappers)
	id := Register(p, 0)
	t.Cleanup(func() {
		registered, detection, wrappers = regs, det, wr
		byDialect[id], infos[id] = nil, DialectInfo{Name: "unknown", Short: "unknown"}
		p.base().id = DialectUnknown
		explanations, explainedByShape = indexExplanations()
	})
	return id
}

// TestClaimHead holds the HeadClaimer hook: a head that names the
// dialect's protocol makes every event of its body the dialect's, even
// one another dialect claims by type (response.created is Responses'),
// and a later head that names none gives the body back to the claims by
// type and shape.
func TestClaimHead(t *testing.T) {
	hd := registerForTest(t, new(headDialect))
	responses := dialectOf("openai-responses")
	const body = "data: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"resp_1\",\"status\":\"in_progress\",\"output\":[]}}\n\n" +
		"data: {\"type\":\"start\"}\n\n"
	tests := []struct {
		name string
		in   string
		want []Dialect // the dialect of each event, head included
	}{
		{"claimed by its head", "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nX-Test-Stream: v1\r\n\r\n" + body,
			[]Dialect{DialectUnknown, hd, hd}},
		{"header name in any case", "HTTP/1.1 200 OK\r\nx-TEST-stream: v1\r\n\r\n" + body,
			[]Dialect{DialectUnknown, hd, hd}},
		{"another value", "HTTP/1.1 200 OK\r\nX-Test-Stream: v2\r\n\r\n" + body,
			[]Dialect{DialectUnknown, responses, DialectUnknown}},
		{"no head", body, []Dialect{responses, DialectUnknown}},
		{"a later head names none", "HTTP/1.1 100 Continue\r\nX-Test-Stream: v1\r\n\r\nHTTP/1.1 200 OK\r\n\r\n" + body,
			[]Dialect{DialectUnknown, DialectUnknown, responses, DialectUnknown}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Assemble([]byte(tt.in), capture.FormatAuto, Options{KeepEvents: true})
			var got []Dialect
			for i := range s.Events.All() {
				got = append(got, s.Events.At(i).Dialect)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("dialects of the events = %v; want %v", got, tt.want)
			}
			st, _ := s.Assembly(hd).(*headState)
			claimed := 0
			for _, d := range tt.want {
				if d == hd {
					claimed++
				}
			}
			if st == nil && claimed > 0 || st != nil && len(st.events) != claimed {
				t.Errorf("the dialect's assembly saw %v; want %d events", st, claimed)
			}
		})
	}
}

// TestHeadGet reads a head's headers by name, in any case.
func TestHeadGet(t *testing.T) {
	h := Head{Header: []capture.Field{{Name: []byte("Content-Type"), Value: []byte("text/plain")}, {Name: []byte("X-A"), Value: []byte("1")}, {Name: []byte("x-a"), Value: []byte("2")}}}
	for _, tt := range []struct{ name, want string }{{"content-type", "text/plain"}, {"X-A", "1"}, {"x-b", ""}} {
		if got := h.Get(tt.name); got != tt.want {
			t.Errorf("Get(%q) = %q; want %q", tt.name, got, tt.want)
		}
	}
}
