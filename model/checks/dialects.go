package checks

import (
	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

// dialects registers every dialect's rules, in report order. A dialect's
// rules are its own files (chat.go and chat_rules.go, …): the rules file
// defines its dialectRules, and one line here lists it.
var dialects = []*dialectRules{
	&responsesDialect,
	&chatDialect,
	&anthropicDialect,
	&geminiDialect,
	&ollamaDialect,
	&converseDialect,
	&invokeDialect,
}

// dialectRules is one dialect's rules: their table, and how they observe a
// stream.
type dialectRules struct {
	dialect model.Dialect
	// rules lists the dialect's rules, in report order; their ids start
	// with the dialect's short name (model.DialectInfo.Short) and a slash.
	rules []Rule
	// new returns what the rules remember of one stream, empty.
	new func() dialectChecks
	// afterDone is the rule for events after a data: [DONE] that ends the
	// dialect's stream; "" when [DONE] does not end its stream.
	afterDone string
	// judgesNames says the dialect's own rules judge an event: name that
	// differs from data.type (its SDKs dispatch on the name), so the
	// transport's framing/event-name-mismatch leaves its events alone.
	judgesNames bool
}

// dialectChecks is what one dialect's rules remember while a stream is
// observed, and the findings they make.
type dialectChecks interface {
	// newItem sees an item that an event of the dialect created, as it
	// was when the event had been applied.
	newItem(it *model.Item, ord int)
	// observe judges one event of the dialect (a data: [DONE] counts as
	// the dialect of the events before it).
	observe(c *Checker, s *model.Session, ord int, ev *model.Event, f *capture.Frame)
	// unplaced sees an event that no dialect claimed, when the latest
	// event before it was the dialect's.
	unplaced(c *Checker, s *model.Session, ord int, ev *model.Event)
	// finish adds to out the findings that wait for the end of the stream
	// (or judge the stream so far); sse says some event was framed as
	// SSE. It must leave what it remembers unchanged: Report may run
	// again as more events arrive.
	finish(out *Checker, s *model.Session, sse bool)
}

// noChecks gives a dialect's checks the hooks they do without.
type noChecks struct{}

func (noChecks) newItem(*model.Item, int)                             {}
func (noChecks) unplaced(*Checker, *model.Session, int, *model.Event) {}

// rulesOf returns the registered rules of dialect d, or nil.
func rulesOf(d model.Dialect) *dialectRules {
	for _, r := range dialects {
		if r.dialect == d {
			return r
		}
	}
	return nil
}

// of returns what dialect d's rules remember of the stream, making it at
// the dialect's first item or event; nil for a dialect without rules.
func (c *Checker) of(d model.Dialect) dialectChecks {
	if int(d) < len(c.byDialect) && c.byDialect[d] != nil {
		return c.byDialect[d]
	}
	return c.start(d)
}

// start makes what dialect d's rules remember: kept apart so that of is
// inlined.
func (c *Checker) start(d model.Dialect) dialectChecks {
	r := rulesOf(d)
	if r == nil || d == model.DialectUnknown {
		return nil
	}
	for int(d) >= len(c.byDialect) {
		c.byDialect = append(c.byDialect, nil)
	}
	c.byDialect[d] = r.new()
	return c.byDialect[d]
}

// seen returns what dialect d's rules remember, or nil when the stream has
// shown nothing of d.
func (c *Checker) seen(d model.Dialect) dialectChecks {
	if int(d) < len(c.byDialect) {
		return c.byDialect[d]
	}
	return nil
}
