package streamdiff

// This file compares two streams that share no events: two dialects for
// one request (Chat and Responses), or the two legs of one turn of an
// application (the provider's stream the route read, and the UI message
// stream the route sent the browser). What is compared is what a client
// of each ends up with, model call by model call (a step): the calls, the
// text, the reasoning and how the call ended. One side may be several
// streams: an AI SDK route makes one provider request per step, and a
// proxy records each as a stream of its own.

import (
	"fmt"
	"sort"
	"strings"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

// CompareLegs compares what a client of each side ends up with, step by
// step: a and b are each one stream or more, in the order their model
// calls were made (the provider recordings of an app's steps, one each).
// The steps of a stream are its dialect's (model.Stepper: an AI SDK UI
// message stream's start-step…finish-step), else its responses, one step
// each. The steps of both sides are lined up in order, a step that shares
// a call id with the other side's anchoring the pairing; each pair is
// compared for its calls (matched by id, then by name and order; their
// arguments as JSON values), its text, its reasoning and its outcome.
// Events are not aligned. Compare calls it for two streams of different
// dialects.
func CompareLegs(a, b []*Side, o Options) *Result {
	c := &comparer{
		o: o, side: [2]*Side{a[0], b[0]},
		res:   &Result{Ignored: o.Ignore.Names(), Counts: map[string]int{}, Mode: "semantic"},
		links: newLinks(a[0].Len(), b[0].Len()),
	}
	legs := [2][]*Side{a, b}
	c.res.A, c.res.B = summarizeLeg(a), summarizeLeg(b)
	if len(a) > 1 {
		c.res.ASessions = summarizeEach(a)
	}
	if len(b) > 1 {
		c.res.BSessions = summarizeEach(b)
	}
	c.res.Note = legsNote(legs)
	lc := &legComparer{c: c, multi: [2]bool{len(a) > 1, len(b) > 1}}
	steps := [2][]*legStep{lc.steps(a), lc.steps(b)}
	for i, p := range alignSteps(steps[SideA], steps[SideB]) {
		lc.compareStep(i+1, p)
	}
	if len(a) == 1 && len(b) == 1 {
		c.compareTiming()
	}
	c.finish()
	return c.res
}

// legsNote says what a comparison of assembled results compares, and why
// events are not aligned.
func legsNote(legs [2][]*Side) string {
	var dialects []string
	for _, leg := range legs {
		for _, sd := range leg {
			if d := sd.S.Dialect().String(); !containsString(dialects, d) {
				dialects = append(dialects, d)
			}
		}
	}
	why := fmt.Sprintf("the streams speak different dialects (%s)", strings.Join(dialects, ", "))
	if len(dialects) == 1 {
		why = "one side is several streams"
	}
	return why + ": what a client of each ends up with is compared step by step (calls, text, reasoning, outcome), not event by event"
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// summarizeLeg describes a side of one stream or more: one stream as
// Compare does; several by their names, dialects and sums, and the
// outcome of the last.
func summarizeLeg(leg []*Side) Summary {
	if len(leg) == 1 {
		return summarize(leg[0])
	}
	each := summarizeEach(leg)
	out := Summary{Name: fmt.Sprintf("%d streams", len(leg)), Timed: true}
	var dialects []string
	for _, s := range each {
		if !containsString(dialects, s.Dialect) {
			dialects = append(dialects, s.Dialect)
		}
		out.Events += s.Events
		out.Responses += s.Responses
		out.Calls += s.Calls
		out.Timed = out.Timed && s.Timed
	}
	out.Dialect = strings.Join(dialects, ",")
	out.Outcome = each[len(each)-1].Outcome
	return out
}

func summarizeEach(leg []*Side) []Summary {
	out := make([]Summary, len(leg))
	for i, sd := range leg {
		out[i] = summarize(sd)
	}
	return out
}

// legComparer compares the steps of two legs.
type legComparer struct {
	c     *comparer
	multi [2]bool   // the side is several streams
	step  *StepPair // the step being compared, for its notes
}

// legStep is one model call as a client of one leg sees it.
type legStep struct {
	sess        int // the stream's index in its leg
	sd          *Side
	first, last int // its events, -1 when none
	// calls, messages and reasoning are its items of those roles, in
	// output order; others the rest (a provider's tool_search_call item
	// is a call of the app's).
	calls, messages, reasoning, others []*model.Item
	errors                             []model.ErrorInfo
	outcome                            model.Outcome
	// cut says why a client sees the step cut when its outcome does not
	// (its terminal event was never dispatched).
	cut string
}

// steps finds the steps of every stream of a leg, in order.
func (lc *legComparer) steps(leg []*Side) []*legStep {
	var out []*legStep
	for i, sd := range leg {
		out = append(out, stepsOf(i, sd)...)
	}
	return out
}

// stepSpan is a step's events, as stepsOf finds them.
type stepSpan struct{ first, last int }

// stepsOf finds the steps of one stream: its dialect's (model.Stepper),
// else its responses when it has several, else the whole stream as one.
func stepsOf(sess int, sd *Side) []*legStep {
	s := sd.S
	n := sd.Len()
	var spans []stepSpan
	for i, r := range s.Responses {
		rlast := n - 1
		if i+1 < len(s.Responses) {
			rlast = s.Responses[i+1].First - 1
		}
		steps := s.Steps(r)
		for k, st := range steps {
			last := st.End
			if last < 0 {
				last = rlast
				if k+1 < len(steps) {
					last = steps[k+1].Start - 1
				}
			}
			spans = append(spans, stepSpan{first: st.Start, last: last})
		}
		if len(steps) == 0 && len(s.Responses) > 1 {
			spans = append(spans, stepSpan{first: r.First, last: rlast})
		}
	}
	if len(spans) == 0 {
		spans = []stepSpan{{first: 0, last: n - 1}}
		if n == 0 {
			spans[0].first = -1
		}
	}
	steps := make([]*legStep, len(spans))
	for i, sp := range spans {
		steps[i] = &legStep{sess: sess, sd: sd, first: sp.first, last: sp.last}
	}
	// An item or error belongs to the step it opened (or first came) in;
	// one before the first step to the first, one between two steps (or
	// after the last) to the one before it.
	at := func(ord int) int {
		// The last step that starts at or before ord (the spans are in
		// stream order), else the first.
		i := sort.Search(len(spans), func(i int) bool { return spans[i].first > ord })
		return max(i-1, 0)
	}
	for _, it := range s.ItemsAsOf(-1) {
		ord := it.First
		if it.Opened >= 0 {
			ord = it.Opened
		}
		st := steps[at(ord)]
		switch it.Role {
		case model.RoleCall:
			st.calls = append(st.calls, it)
		case model.RoleMessage:
			st.messages = append(st.messages, it)
		case model.RoleReasoning:
			st.reasoning = append(st.reasoning, it)
		default:
			st.others = append(st.others, it)
		}
	}
	for _, e := range s.Errors {
		st := steps[at(e.Ordinal)]
		st.errors = append(st.errors, e)
	}
	whole := s.Outcome()
	for i, st := range steps {
		st.outcome = stepOutcome(st, whole, i == len(steps)-1)
	}
	if last := steps[len(steps)-1]; isFinished(last.outcome.State) {
		last.cut = undispatched(s, last.outcome)
	}
	return steps
}

// stepOutcome is how one step ended: an error in its span says it; the
// last step ends as the stream does (an application says how its model
// calls ended with its finish reasons, which its dialect maps: the AI
// SDK's "interrupted" is truncated); an earlier step, which another
// followed, completed.
func stepOutcome(st *legStep, whole model.Outcome, last bool) model.Outcome {
	if n := len(st.errors); n > 0 {
		e := st.errors[n-1]
		state := model.OutcomeError
		if last && whole.Ordinal == e.Ordinal {
			state = whole.State // failed, blocked: what the stream made of it
		}
		return model.Outcome{State: state, Detail: errorText(e), Ordinal: e.Ordinal}
	}
	if last && (whole.Ordinal < 0 || whole.Ordinal >= st.first || !isError(whole.State)) {
		return whole
	}
	return model.Outcome{State: model.OutcomeCompleted, Ordinal: st.last}
}

func errorText(e model.ErrorInfo) string {
	if e.Code != "" {
		return e.Code + ": " + e.Message
	}
	return e.Message
}

// undispatched says why a client never saw the stream's terminal event
// when the model took it as one: it was its last event and no blank line
// ended it, so an SSE client never dispatched it
// (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation:
// at the end of the stream an event not yet dispatched is discarded).
func undispatched(s *model.Session, o model.Outcome) string {
	if o.Ordinal < 0 || o.Ordinal != s.Len()-1 {
		return ""
	}
	if ev := s.Current(); ev.Frame&capture.Truncated != 0 && ev.Source == capture.FrameEvent {
		return "its terminal event has no blank line after it: an SSE client never dispatches it"
	}
	return ""
}

// Outcome classes: what a client of either leg can tell of how a model
// call ended, whatever the words of its dialect.
const (
	classFinished = "finished" // it ended normally (a stop, a tool call)
	classLimit    = "limit"    // it stopped at a limit
	classBlocked  = "blocked"  // a refusal or a filter
	classError    = "error"    // an error event or status
	classCut      = "cut"      // it never finished: cut, interrupted, aborted
)

func isFinished(state string) bool {
	return state == model.OutcomeCompleted || state == model.OutcomeIncomplete || state == model.OutcomeBlocked
}

func isError(state string) bool { return state == model.OutcomeError || state == model.OutcomeFailed }

// class is the outcome class of a step as its client sees it.
func (st *legStep) class() string {
	if st.cut != "" {
		return classCut
	}
	o := st.outcome
	switch o.State {
	case model.OutcomeCompleted:
		if st.refused() {
			return classBlocked
		}
		return classFinished
	case model.OutcomeIncomplete:
		return classLimit
	case model.OutcomeBlocked:
		return classBlocked
	case model.OutcomeError, model.OutcomeFailed:
		return classError
	}
	return classCut // truncated, empty, closed, aborted, interrupted…
}

// refused reports whether the step's answer is a refusal (Chat's
// delta.refusal): a block, which an application may say with its finish
// reason (the AI SDK's content-filter).
func (st *legStep) refused() bool {
	for _, it := range st.messages {
		if it.Refusal.Len() > 0 {
			return true
		}
	}
	return false
}

// stepPair is a step of A and its counterpart in B; nil on the side
// that lacks it.
type stepPair [2]*legStep

// alignSteps lines up the steps of both sides: in order, a pair that
// shares a call id (or, without calls, the same text) anchoring the rest,
// so that a recording missing from one side shifts nothing else.
func alignSteps(a, b []*legStep) []stepPair {
	same := func(x, y *legStep) bool {
		for _, ca := range x.calls {
			for _, cb := range y.calls {
				if ca.CallID != "" && ca.CallID == cb.CallID {
					return true
				}
			}
		}
		if len(x.calls) > 0 || len(y.calls) > 0 {
			return false
		}
		tx, ty := visibleText(x.messages, Text), visibleText(y.messages, Text)
		return len(tx) > 0 && string(tx) == string(ty)
	}
	var out []stepPair
	for _, p := range alignPairs(len(a), len(b), func(i, j int) bool { return same(a[i], b[j]) },
		func(i, j int) bool { return true }) {
		var sp stepPair
		if p[0] >= 0 {
			sp[SideA] = a[p[0]]
		}
		if p[1] >= 0 {
			sp[SideB] = b[p[1]]
		}
		out = append(out, sp)
	}
	return out
}
