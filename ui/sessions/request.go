package sessions

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/termtext"
	"github.com/streamtap/streamtap/ui/app"
	"github.com/streamtap/streamtap/ui/cell"
	"github.com/streamtap/streamtap/ui/inspector"
	"github.com/streamtap/streamtap/ui/keys"
	"github.com/streamtap/streamtap/ui/pane"
	"github.com/streamtap/streamtap/ui/plain"
	"github.com/streamtap/streamtap/ui/theme"
)

// requestPane shows what a proxied session's request sent: the tools it
// declared, tool_choice, parallel_tool_calls, previous_response_id, the
// tool outputs it sent back, the turn it answers and its headers (secret
// ones redacted). Every string from the request goes through Safe.
type requestPane struct {
	pane.Base
	st          *theme.Styles
	keys        *keys.Map
	keepSecrets bool
	w, h        int
	info        model.Exchange
	has         bool
	scroll      int

	lines []string // laid out for (info, w)
	key   requestKey
}

type requestKey struct {
	req  *model.Request
	w    int
	turn int
	n    int // unanswered calls
}

// ShowRequest gives the inspector in a request pane showing x's request:
// `streamtap request` shows what it sent as the proxy's sessions do.
func ShowRequest(e *app.Env, in *inspector.Page, x model.Exchange) {
	p := inspector.Register(in, newRequestPane(&e.Styles, &e.Keys, e.Opts.KeepSecrets))
	p.setExchange(x)
}

// newRequestPane returns the request pane, showing no exchange yet.
func newRequestPane(st *theme.Styles, keys *keys.Map, keepSecrets bool) *requestPane {
	return &requestPane{st: st, keys: keys, keepSecrets: keepSecrets}
}

func (p *requestPane) Title() string { return "request" }

// Attach changes nothing: the pane shows the exchange setExchange gave,
// not the session.
func (p *requestPane) Attach(*model.Session) {}

func (p *requestPane) SetSize(w, h int) { p.w, p.h = w, max(h, 1) }

func (p *requestPane) Restyle() { p.key = requestKey{w: -1} }

func (p *requestPane) ShortHelp() []key.Binding {
	return []key.Binding{p.keys.Nav.Down, p.keys.Nav.Up}
}

// Update scrolls on a navigation key.
func (p *requestPane) Update(msg tea.Msg) tea.Cmd {
	if msg, ok := msg.(tea.KeyPressMsg); ok {
		if delta, ok := keys.NavDelta(p.keys, msg, p.h); ok {
			p.scrollBy(delta)
		}
	}
	return nil
}

func (p *requestPane) Wheel(delta int) { p.scrollBy(delta) }

// setExchange shows an exchange's request and turn links.
func (p *requestPane) setExchange(in model.Exchange) {
	p.info, p.has = in, true
}

func (p *requestPane) scrollBy(n int) {
	p.scroll = cell.Clamp(p.scroll+n, 0, max(len(p.lines)-p.h, 0))
}

func (p *requestPane) prepare() {
	k := requestKey{req: p.info.Request, w: p.w, turn: p.info.TurnOf, n: len(p.info.Unanswered)}
	if k == p.key && p.lines != nil {
		return
	}
	p.key = k
	p.lines = p.layout()
	p.scroll = cell.Clamp(p.scroll, 0, max(len(p.lines)-p.h, 0))
}

// layout builds every line of the pane, wrapped to the pane's width.
func (p *requestPane) layout() []string {
	st := p.st
	in := &p.info
	var out []string
	add := func(style func(...string) string, text string) {
		for _, l := range strings.Split(ansi.Hardwrap(text, max(p.w-2, 8), true), "\n") {
			out = append(out, style(l))
		}
	}
	field := func(name, value string) {
		if value == "" {
			return
		}
		out = append(out, st.Calls.Header.Render(cell.Fit(name, 22))+st.Base.Render(termtext.Safe(value)))
	}
	path := in.Path
	if !p.keepSecrets {
		path = capture.RedactURL(path)
	}
	add(st.Accent.Render, termtext.Safe(in.Method+" "+path))
	r := in.Request
	if r == nil {
		add(st.Muted.Render, "the request body is empty or not JSON")
		return out
	}
	out = append(out, st.Muted.Render(plain.Bytes(int64(r.Size))+" body"), "")
	field("model", in.Model)
	field("rpc", r.RPC)
	field("previous_response_id", r.Previous)
	field("tool_choice", r.ToolChoice)
	field("parallel_tool_calls", r.Parallel)
	switch {
	case in.TurnOf > 0 && in.Link != "":
		field(in.Link, fmt.Sprintf("#%d", in.TurnOf)) // an MCP GET resumes, a cancel cancels
	case in.TurnOf > 0:
		field("answers turn of", fmt.Sprintf("#%d", in.TurnOf))
	}
	if len(in.Unanswered) > 0 {
		add(st.Warn.Render, termtext.Safe(fmt.Sprintf("%s no tool output for %s of #%d: %s",
			theme.GlyphFailed, plain.CountOf(len(in.Unanswered), "call"), in.TurnOf, strings.Join(in.Unanswered, ", "))))
	}
	out = append(out, "", st.Calls.Header.Render(fmt.Sprintf("tools declared (%d)", len(r.Tools))))
	for _, t := range r.Tools {
		add(st.Calls.Name.Render, "  "+termtext.Safe(t))
	}
	out = append(out, "", st.Calls.Header.Render(fmt.Sprintf("tool outputs sent back (%d)", len(r.Outputs))))
	for _, o := range r.Outputs {
		add(st.Calls.ID.Render, "  "+termtext.Safe(o.Kind+" "+o.CallID))
		add(st.JSON[theme.TokString].Render, "    "+termtext.Safe(o.Output))
	}
	if len(r.Header) > 0 {
		out = append(out, "", st.Calls.Header.Render("headers"))
		h := r.Header
		if !p.keepSecrets {
			h = capture.RedactHeaders(h)
		}
		names := make([]string, 0, len(h))
		for k := range h {
			names = append(names, k)
		}
		slices.Sort(names)
		for _, k := range names {
			for _, v := range h[k] {
				add(st.Muted.Render, "  "+termtext.Safe(k+": "+v))
			}
		}
	}
	return out
}

func (p *requestPane) View(int, bool) string {
	if !p.has {
		return strings.Join(cell.Block([]string{p.st.Muted.Render("no request: open a proxied session")}, p.w, p.h), "\n")
	}
	p.prepare()
	end := min(p.scroll+p.h, len(p.lines))
	return strings.Join(cell.Block(p.lines[p.scroll:end], p.w, p.h), "\n")
}
