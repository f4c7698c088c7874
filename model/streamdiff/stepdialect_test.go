package streamdiff_test

// A dialect for the tests of CompareLegs alone: an application's stream
// made of steps, as an AI SDK route's UI message stream is, in JSON lines
// whose types start with "tst.", so that the comparison of the two legs
// of a turn is tested whatever the real application dialects do.
//
//	{"type":"tst.step-start"}
//	{"type":"tst.text","choice":0,"delta":"…"}
//	{"type":"tst.reasoning","delta":"…"}
//	{"type":"tst.call","id":"…","name":"…","delta":"…"}   (the first of an id opens the call)
//	{"type":"tst.step-end"}
//	{"type":"tst.error","error":{"message":"…"}}
//	{"type":"tst.finish","reason":"stop"}                  (length, content-filter, interrupted…)

import (
	"strings"

	"github.com/streamtap/streamtap/model"
)

type stepDialect struct{ model.Base }

var stepProtocol = new(stepDialect)

func init() { model.Register(stepProtocol, 0) }

func (*stepDialect) Info() model.DialectInfo {
	return model.DialectInfo{Name: "steps-test", Short: "tst", TypePrefix: "tst."}
}

func (*stepDialect) ClaimType(typ string) bool { return strings.HasPrefix(typ, "tst.") }

func (*stepDialect) NewAssembly() model.Assembly {
	return &stepState{calls: map[string]*model.Item{}, texts: map[int]*model.Item{}}
}

func (*stepDialect) FinishOutcome(reason string) string {
	switch reason {
	case "length":
		return model.OutcomeIncomplete
	case "content-filter":
		return model.OutcomeBlocked
	case "interrupted":
		return model.OutcomeTruncated
	}
	return ""
}

type stepState struct {
	model.NoSentinel
	steps     []model.Step
	resp      *model.Response
	calls     map[string]*model.Item
	texts     map[int]*model.Item
	reasoning *model.Item
	n         int
}

// Steps implements model.Stepper.
func (st *stepState) Steps(r int) []model.Step {
	if r != 0 {
		return nil
	}
	return st.steps
}

func (st *stepState) Event(s *model.Session, ev *model.Event, typ string, data []byte, ord int) {
	if st.resp == nil {
		st.resp = s.NewResponse(stepProtocol.ID(), ord)
	}
	r := st.resp
	str := func(name string) string { return model.StringOf(s.Field(name)) }
	ev.Kind = model.KindLifecycle
	switch typ {
	case "tst.step-start":
		st.texts, st.reasoning = map[int]*model.Item{}, nil
		st.steps = append(st.steps, model.Step{Response: r.Index, Start: ord, End: -1})
	case "tst.step-end":
		if n := len(st.steps); n > 0 && st.steps[n-1].End < 0 {
			st.steps[n-1].End = ord
		}
	case "tst.text":
		ch := model.IntOr(s.Field("choice"), 0)
		it := st.texts[ch]
		if it == nil {
			it = s.NewItem(stepProtocol.ID(), model.RoleMessage, "text", ord)
			it.Response, it.Choice, it.Position, it.Opened = r.Index, ch, st.n, ord
			st.n++
			st.texts[ch] = it
		}
		it.Touch(ord)
		it.Text.AddString(ord, s.Field("delta"))
		ev.Item, ev.Kind = int32(it.Index), model.KindTextDelta
	case "tst.reasoning":
		if st.reasoning == nil {
			st.reasoning = s.NewItem(stepProtocol.ID(), model.RoleReasoning, "reasoning", ord)
			st.reasoning.Response, st.reasoning.Position = r.Index, st.n
			st.n++
		}
		st.reasoning.Touch(ord)
		st.reasoning.Text.AddString(ord, s.Field("delta"))
		ev.Item, ev.Kind = int32(st.reasoning.Index), model.KindTextDelta
	case "tst.call":
		id := str("id")
		it := st.calls[id]
		if it == nil {
			it = s.NewItem(stepProtocol.ID(), model.RoleCall, "tool", ord)
			it.Response, it.Position, it.Opened, it.CallID, it.Name = r.Index, st.n, ord, id, str("name")
			st.n++
			st.calls[id] = it
			ev.Kind = model.KindItemOpen
		} else {
			ev.Kind = model.KindArgsDelta
		}
		it.Touch(ord)
		if d := s.Field("delta"); d != nil {
			it.Args.AddString(ord, d)
			it.Deltas++
		}
		ev.Item = int32(it.Index)
	case "tst.error":
		s.ErrorEvent(ev, s.Field("error"), ord)
	case "tst.finish":
		r.AddFinish(0, ord, str("reason"))
		r.Terminal = ord
		r.Status.Set(ord, model.OutcomeCompleted)
		ev.Kind = model.KindTerminal
	}
}
