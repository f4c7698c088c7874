package checks

import (
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

// otherObserver stands for another analysis watching the same session (the
// inspector's --diff records each event for the comparison too).
type otherObserver struct{ n int }

func (o *otherObserver) Observe(*model.Session, int, *model.Event, *capture.Frame) { o.n++ }

// TestCheckFindsItsCheckerAmongObservers: a session that a Checker observes
// beside another observer is judged from that Checker, even without the
// bytes a fresh modelling would need: the sequence gap is still found.
func TestCheckFindsItsCheckerAmongObservers(t *testing.T) {
	data := []byte("data: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"r\",\"status\":\"in_progress\",\"output\":[]}}\n\n" +
		"data: {\"type\":\"response.in_progress\",\"sequence_number\":5,\"response\":{\"id\":\"r\",\"status\":\"in_progress\",\"output\":[]}}\n\n" +
		"data: {\"type\":\"response.completed\",\"sequence_number\":6,\"response\":{\"id\":\"r\",\"status\":\"completed\",\"output\":[]}}\n\n")
	alone := CheckBytes(data, capture.FormatAuto, Strict)
	if !hasRule(alone, "responses/seq-gap") {
		t.Fatalf("the stream does not trip responses/seq-gap on its own: %+v", alone.Findings)
	}
	opts, c := Attach(model.Options{}) // no Raw: the session cannot be read back
	other := &otherObserver{}
	s := model.Assemble(data, capture.FormatAuto, opts.WithObserver(other))
	if other.n != 3 {
		t.Fatalf("the other observer saw %d events; want 3", other.n)
	}
	if got := Check(s, Strict); !hasRule(got, "responses/seq-gap") {
		t.Errorf("Check with its Checker beside another observer found %+v; want responses/seq-gap (from checker %p)", got.Findings, c)
	}
}

func hasRule(r Report, rule string) bool {
	for _, f := range r.Findings {
		if f.Rule == rule {
			return true
		}
	}
	return false
}
