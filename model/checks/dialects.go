package checks

import (
	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

// dialects holds every dialect's rules, registered (Register) in the
// order of the dialects' ids, which is their report order.
var dialects []*DialectRules

// DialectRules is what a dialect gives the checks (Register): its rules'
// table, how they observe a stream, and what the checks that apply to
// every dialect (framing, request) must know of it.
type DialectRules struct {
	// Rules lists the dialect's rules, in report order (NewRule makes
	// one); their ids start with the dialect's short name
	// (model.DialectInfo.Short) and a slash.
	Rules []Rule
	// New returns what the rules remember of one stream, empty.
	New func() Judge
	// AfterDone is the rule for events after a data: [DONE] that ends the
	// dialect's stream; "" when [DONE] does not end its stream.
	AfterDone string
	// JudgesNames says the dialect's own rules judge an event: name that
	// differs from data.type (its SDKs dispatch on the name), so the
	// transport's framing/event-name-mismatch leaves its events alone.
	JudgesNames bool
	// ToolUse reports whether an item that is not a call is the model
	// using a tool anyway (a Responses built-in's web_search_call), which
	// tool_choice "required" counts; nil when none is.
	ToolUse func(it *model.Item) bool
	// CallKind says what kind of tool a call item calls, when its type
	// says (a Responses function_call calls a function, a
	// custom_tool_call a custom tool); nil when its calls do not say.
	CallKind func(it *model.Item) (model.ToolKind, bool)
	// EmptyArgsObject says a call with no arguments at all passes {}
	// (a Gemini functionCall without args; Anthropic's SDKs read an empty
	// tool input as {}), for the rules that validate arguments against
	// the declared schema.
	EmptyArgsObject bool

	dialect model.Dialect
}

// Register adds dialect d's rules, after those registered before: the
// order of registration is the order of reports and of `streamtap rules`.
// It must run before any Checker is made, from an init function (package
// model/dialects registers every dialect), and panics on a rule id
// registered twice, a programming error.
func Register(d model.Dialect, r *DialectRules) {
	r.dialect = d
	dialects = append(dialects, r)
	table, ruleByID = indexRules()
}

// Judge is what one dialect's rules remember while a stream is observed,
// and the findings they make. A Checker makes one per dialect the stream
// shows (DialectRules.New) and hands it the dialect's items and events.
// Embed Base for the hooks a dialect's rules do without.
type Judge interface {
	// NewItem sees an item that an event of the dialect created, as it
	// was when the event had been applied.
	NewItem(it *model.Item, ord int)
	// Observe judges one event of the dialect (a data: [DONE] counts as
	// the dialect of the events before it). The event's members are at
	// hand (model.Session.Member, Field, Memo) only now.
	Observe(c *Checker, s *model.Session, ord int, ev *model.Event, f *capture.Frame)
	// Unplaced sees an event that no dialect claimed, when the latest
	// event before it was the dialect's.
	Unplaced(c *Checker, s *model.Session, ord int, ev *model.Event)
	// Finish adds to out the findings that wait for the end of the stream
	// (or judge the stream so far); sse says some event was framed as
	// SSE. It must leave what it remembers unchanged: Report may run
	// again as more events arrive.
	Finish(out *Checker, s *model.Session, sse bool)
}

// Base gives a Judge the hooks it does without: embed it.
type Base struct{}

// NewItem ignores the item.
func (Base) NewItem(*model.Item, int) {}

// Unplaced ignores the event.
func (Base) Unplaced(*Checker, *model.Session, int, *model.Event) {}

// ObserveAs hands an event to dialect d's rules as though it were d's: a
// dialect whose events carry another's (Bedrock InvokeModel chunks carry
// Anthropic's) has them judged by that dialect's rules so.
func (c *Checker) ObserveAs(d model.Dialect, s *model.Session, ord int, ev *model.Event, f *capture.Frame) {
	if dc := c.of(d); dc != nil {
		dc.Observe(c, s, ord, ev, f)
	}
}

// SSE reports whether some event observed so far was framed as SSE (not
// as JSON lines or a JSON body): rules about SSE fields apply only then.
func (c *Checker) SSE() bool { return c.sse }

// RequestForced reports whether the request the stream answers, when
// known, forced a call (tool_choice "required", a named tool, Anthropic
// "any"): a dialect's rule may then grade what only a forced call makes
// legal lower.
func (c *Checker) RequestForced() bool { return c.req.forced() }

// RequestNamed reports whether the request forced a call of one tool it
// names (Chat's {"type": "function", "function": {"name": …}}), which
// OpenAI answers with finish_reason "stop", not "tool_calls".
func (c *Checker) RequestNamed() bool { return c.req.named() }

// RuleOf returns the registered rule of id id.
func RuleOf(id string) (Rule, bool) {
	if r := ruleByID[id]; r != nil {
		return *r, true
	}
	return Rule{}, false
}

// rulesOf returns the registered rules of dialect d, or nil.
func rulesOf(d model.Dialect) *DialectRules {
	for _, r := range dialects {
		if r.dialect == d {
			return r
		}
	}
	return nil
}

// of returns what dialect d's rules remember of the stream, making it at
// the dialect's first item or event; nil for a dialect without rules.
func (c *Checker) of(d model.Dialect) Judge {
	if int(d) < len(c.byDialect) && c.byDialect[d] != nil {
		return c.byDialect[d]
	}
	return c.start(d)
}

// start makes what dialect d's rules remember: kept apart so that of is
// inlined.
func (c *Checker) start(d model.Dialect) Judge {
	r := rulesOf(d)
	if r == nil || d == model.DialectUnknown {
		return nil
	}
	for int(d) >= len(c.byDialect) {
		c.byDialect = append(c.byDialect, nil)
	}
	c.byDialect[d] = r.New()
	return c.byDialect[d]
}

// seen returns what dialect d's rules remember, or nil when the stream has
// shown nothing of d.
func (c *Checker) seen(d model.Dialect) Judge {
	if int(d) < len(c.byDialect) {
		return c.byDialect[d]
	}
	return nil
}
