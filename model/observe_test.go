package model

import (
	"bytes"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model/internal/modeltest"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// fieldProbe holds Session.Field to a plain scan of the event's data, for
// every member the event has and a few it lacks.
type fieldProbe struct {
	t      *testing.T
	checks int
}

func (p *fieldProbe) Observe(s *Session, ord int, ev *Event, f *capture.Frame) {
	keys := []string{"absent", "modelVersion", "created", "model", "stop_reason"}
	jsonscan.Members(f.Data, func(k, _ []byte) bool { keys = append(keys, string(k)); return true })
	for _, k := range keys {
		got, want := s.Field(k), jsonscan.Get(f.Data, k)
		if !bytes.Equal(got, want) {
			p.t.Errorf("event %d: Field(%q) = %q; the data has %q", ord, k, got, want)
		}
		p.checks++
	}
}

func TestFieldMatchesScan(t *testing.T) {
	all := `data: {"type":"message","id":"m","model":"claude","created":1,"stop_reason":"tool_use","content":[],` +
		`"sequence_number":3,"item_id":"i","output_index":0,"content_index":0,"summary_index":0,"delta":"d","arguments":"{}",` +
		`"text":"t","item":{},"response":{},"error":null,"index":2,"content_block":{},"object":"x","choices":[],"message":{},` +
		`"name":"n","input":{},"code":"c","refusal":"r","part":{},"usage":{},"usageMetadata":{},"promptFeedback":{},"role":"assistant","responseId":"r1","modelVersion":"g"}` + "\n\n"
	streams := [][]byte{[]byte(all)}
	for _, d := range []string{"responses", "chat", "anthropic"} {
		data, _ := modeltest.GenStream(d, 32<<10)
		streams = append(streams, data)
	}
	for _, data := range streams {
		p := &fieldProbe{t: t}
		Assemble(data, capture.FormatAuto, Options{Observer: p})
		if p.checks == 0 {
			t.Fatal("the observer saw no events")
		}
	}
}

// TestSessionHoldsNoFrameBytes: once Add returns, nothing in the session
// points into the frame, whose bytes belong to the framer's buffer (64 MB
// after a huge event); the Index would otherwise keep that buffer alive.
func TestSessionHoldsNoFrameBytes(t *testing.T) {
	s := NewSession(Options{})
	fr := capture.NewFramer(capture.FormatAuto)
	fr.Feed([]byte(`data: {"type":"response.output_text.delta","item_id":"m","output_index":0,"delta":"hi","x":{"y":[1]}}`+"\n\n"), capture.NoTime,
		func(f *capture.Frame) { s.Add(f) })
	if s.Len() != 1 {
		t.Fatalf("%d events; want 1", s.Len())
	}
	if s.cur != nil || s.idx.Holds() {
		t.Fatalf("after Add the session still holds the frame: cur %d bytes, index %v", len(s.cur), s.idx.Holds())
	}
}

// countingObserver counts the events it sees, and the order they came in.
type countingObserver struct {
	name string
	seen *[]string
	n    int
}

func (c *countingObserver) Observe(s *Session, ord int, _ *Event, _ *capture.Frame) {
	if ord != c.n {
		panic("out of order")
	}
	c.n++
	*c.seen = append(*c.seen, c.name)
	if s.Field("type") == nil {
		*c.seen = append(*c.seen, "no field")
	}
}

// TestObserversEachSeeEveryEvent: two observers joined into one see every
// event, in the order they were joined, each while the event's fields can
// still be read; FindObserver finds either through the join.
func TestObserversEachSeeEveryEvent(t *testing.T) {
	data := []byte("data: {\"type\":\"response.created\",\"response\":{}}\n\ndata: {\"type\":\"response.completed\",\"response\":{}}\n\n")
	var seen []string
	first, second := &countingObserver{name: "first", seen: &seen}, &countingObserver{name: "second", seen: &seen}
	opts := Options{}.WithObserver(first).WithObserver(second)
	s := Assemble(data, capture.FormatAuto, opts)
	if first.n != 2 || second.n != 2 {
		t.Fatalf("observers saw %d and %d events; want 2 each", first.n, second.n)
	}
	if got, want := strings.Join(seen, ","), "first,second,first,second"; got != want {
		t.Errorf("order = %s; want %s", got, want)
	}
	if got, ok := FindObserver[*countingObserver](s); !ok || got != first {
		t.Errorf("FindObserver = %p, %v; want the first observer %p", got, ok, first)
	}
	if _, ok := FindObserver[*fieldProbe](s); ok {
		t.Error("FindObserver found an observer of a type never attached")
	}
	if _, ok := FindObserver[*countingObserver](NewSession(Options{})); ok {
		t.Error("FindObserver found an observer on a session without one")
	}
}

// TestWithObserverAlone: an observer added to options without one is the
// session's observer itself, not a list of one.
func TestWithObserverAlone(t *testing.T) {
	var seen []string
	o := &countingObserver{name: "only", seen: &seen}
	if got := (Options{}).WithObserver(o).Observer; got != Observer(o) {
		t.Errorf("WithObserver on empty options = %T; want the observer itself", got)
	}
	if got := (Options{}).WithObserver(nil).Observer; got != nil {
		t.Errorf("WithObserver(nil) = %T; want nil", got)
	}
}
