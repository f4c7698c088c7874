package mcp

import (
	"fmt"
	"strings"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
)

// mcpChecks judges an MCP exchange. What the assembly finds as it matches
// responses to requests (an unknown id, a second response, progress out
// of place, a message that is no JSON-RPC) it leaves as notes, reported
// here; what waits for the end (a request with no response) is judged from
// the assembly's requests.
type mcpChecks struct {
	checks.Base
	last int // the latest MCP event
}

// state returns the session's MCP assembly.
func state(s *model.Session) *mcpState {
	st, _ := s.Assembly(Protocol.ID()).(*mcpState)
	return st
}

func (mc *mcpChecks) Observe(c *checks.Checker, s *model.Session, ord int, ev *model.Event, f *capture.Frame) {
	st := state(s)
	if st == nil {
		return
	}
	mc.last = ord
	for _, n := range st.notes {
		c.Add(n.rule, n.ords, "%s", n.msg)
	}
	st.notes = st.notes[:0]
	if f.Kind == capture.FrameEvent && f.HasEvent && string(f.Event) != "message" && checks.IsSSE(f) {
		c.Add(ruleEventName, []int{ord}, "event %d is named %s; MCP clients read only \"message\" events and drop it unread", ord, checks.QuoteBytes(f.Event))
	}
	switch sub := st.subs[ord]; {
	case sub == subToolError:
		p := st.answeredAt(ord)
		c.Add(ruleToolError, []int{ord}, "event %d: tools/call %s (id %s) failed in the tool: isError with %s; the model is meant to read it (a tool error, not a protocol error)",
			ord, checks.Quote(p.callName()), p.id, checks.Quote(p.resultText()))
	case sub == methodToolsCall && ev.Kind == model.KindError:
		p := st.answeredAt(ord)
		code, msg := errorOf(s, f.Data)
		doubled := ""
		if strings.HasPrefix(msg, "MCP error ") {
			doubled = fmt.Sprintf(" (the TypeScript SDK's client prefixes it again: \"MCP error %s: %s\")", code, cut(msg, 60))
		}
		c.Add(ruleRPCError, []int{ord}, "event %d: tools/call %s (id %s) answered by JSON-RPC error %s %s: a protocol error the client raises; the model sees nothing of it unless the agent passes it on%s",
			ord, checks.Quote(p.callName()), p.id, code, checks.Quote(msg), doubled)
	}
}

// Unplaced sees an event no dialect claimed after an MCP one.
func (mc *mcpChecks) Unplaced(_ *checks.Checker, _ *model.Session, ord int, _ *model.Event) {
	mc.last = ord
}

// Finish reports each request the stream carried that has no response at
// its end, unless an error ended it (the outcome says so).
func (mc *mcpChecks) Finish(out *checks.Checker, s *model.Session, _ bool) {
	st := state(s)
	if ended, _ := s.Ended(); !ended || st == nil || checks.Errored(s) {
		return
	}
	last := max(s.Len()-1, 0)
	for _, p := range st.reqs {
		if p.answered >= 0 || p.resp.Resumed {
			continue
		}
		what := p.method
		if p.call != nil {
			what += " " + checks.Quote(p.call.Name)
		}
		if st.ids > 0 {
			out.AddAt(ruleNoResponse, checks.Info, []int{p.ord, last},
				"request %s (%s) has no response when the stream ends at event %d; its events carry ids, so the client resumes it with GET and Last-Event-ID %s",
				p.id, what, last, checks.Quote(st.lastID))
			continue
		}
		out.Add(ruleNoResponse, []int{p.ord, last},
			"request %s (%s) has no response when the stream ends at event %d, and no event id to resume from; the client waits until its timeout",
			p.id, what, last)
	}
}

// answeredAt returns the request that event ord answered.
func (st *mcpState) answeredAt(ord int) *pending {
	if p := st.answers[ord]; p != nil {
		return p
	}
	return &pending{}
}

func (p *pending) callName() string {
	if p.call == nil {
		return ""
	}
	return p.call.Name
}

func (p *pending) resultText() string {
	if p.text == nil {
		return ""
	}
	return p.text.Text.String()
}

// errorOf reads a JSON-RPC error response's code and message.
func errorOf(s *model.Session, data []byte) (code, msg string) {
	e := s.JSON().Get(data, "error")
	return string(s.JSON().Get(e, "code")), model.StringOf(s.JSON().Get(e, "message"))
}

// quoteCut quotes a raw JSON value for a message, shortened.
func quoteCut(v []byte) string {
	if v == nil {
		return "(none)"
	}
	return cut(string(v), 60)
}

// cut shortens s to about n bytes, at a rune start.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// idList lists request ids for a message: "3", "3, 4", or "none".
func idList(ids []string) string {
	if len(ids) == 0 {
		return "it carried none"
	}
	return "it carried " + strings.Join(ids, ", ")
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
