package checks

// This file holds the rules that need the request the stream answers:
// each call against its tool's declaration (the name, the kind, the
// arguments' schema), and the response's calls against tool_choice and the
// parallel flag. The request comes from Checker.SetRequest, or from the
// header of a timed recording (its request-body line).

import (
	"bytes"
	"cmp"
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

// requestChecks is what the request rules remember: the request, each
// called tool made ready once, and each complete call's verdict.
type requestChecks struct {
	req *model.Request
	// explicit says SetRequest gave the request; a recording's header
	// does not replace it.
	explicit bool
	tools    map[string]*toolCheck // by tool name, made on its first complete call
	verdicts map[*model.Item]argsVerdict
}

// argsVerdict is a call's schema failures, valid while the item's
// arguments are what they were when judged.
type argsVerdict struct {
	last, size int
	problems   []string
	invalid    string // the schema failed while validating them
}

// SetRequest gives the Checker the request the stream answers, for the
// request/… rules; without one those rules stay silent. It may be called
// at any point before Report, and is preferred to a request a timed
// recording's header carries. r is kept: do not modify it afterwards. A
// nil r forgets the request.
func (c *Checker) SetRequest(r *model.Request) {
	if r == nil {
		c.req = nil
		return
	}
	c.req = &requestChecks{req: r, explicit: true}
}

// forced reports whether the request forced a call (tool_choice
// "required", a named tool, Anthropic "any"): a dialect's rule may then
// grade what only a forced call makes legal lower.
func (rc *requestChecks) forced() bool {
	return rc != nil && rc.req.Choice.Mode == model.ChoiceRequired
}

// named reports whether the request forced a call of one tool it names
// (Chat's {"type": "function", "function": {"name": …}}), which OpenAI
// answers with finish_reason "stop", not "tool_calls"
// (vllm-project/vllm#25054 tabulates it).
func (rc *requestChecks) named() bool {
	return rc.forced() && len(rc.req.Choice.Names) == 1
}

// learnRecording reads the request a timed recording's header carries
// (its first frame), unless SetRequest gave one.
func (c *Checker) learnRecording(ord int, f *capture.Frame) {
	if ord != 0 || c.req != nil || f.Kind == capture.FrameEvent || !bytes.HasPrefix(f.Raw, []byte(capture.RecordingMagic)) {
		return
	}
	rec, err := capture.ParseRecording(f.Raw)
	if err != nil || len(rec.RequestBody) == 0 {
		return
	}
	path := ""
	if u, err := url.Parse(rec.URL); err == nil {
		path = u.Path
	}
	if r := model.ParseRequest(rec.RequestBody, path); r.Parsed {
		c.req = &requestChecks{req: &r}
	}
}

// learnWebSocket reads the request of a Responses WebSocket session: the
// first response.create the client sent, which the proxy and its
// recordings keep as a comment block (`: ws client text utf8 {…}`), so
// that a recording's check judges what the proxy judged live. A request
// given with SetRequest, or a header's, stays.
func (c *Checker) learnWebSocket(s *model.Session, f *capture.Frame) {
	if c.req != nil || f.Kind != capture.FrameComment || !s.Upgraded() || !bytes.Contains(f.Raw, []byte(": ws client text ")) {
		return
	}
	m, err := capture.ParseWSBlock(f.Raw)
	if err != nil || !bytes.Contains(m.Payload, []byte(`"response.create"`)) {
		return
	}
	var head struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(m.Payload, &head) != nil || head.Type != "response.create" {
		return
	}
	if r := model.ParseRequest(m.Payload, ""); r.Parsed {
		c.req = &requestChecks{req: &r}
	}
}

// finishRequest adds the request rules' findings to out. A WebSocket
// session carries a request per response, and the one known is the
// first's: only the first response is judged.
func (c *Checker) finishRequest(out *Checker, s *model.Session) {
	rc := c.req
	if rc == nil || !rc.req.Parsed {
		return
	}
	last := len(s.Responses) - 1
	if s.Upgraded() {
		last = min(last, 0)
	}
	invalid := map[string]bool{} // tools whose schema failed, reported once
	for r := -1; r <= last; r++ {
		for _, g := range choiceGroups(s, r) {
			rc.judge(out, s, g, invalid)
		}
	}
}

// group is the items of one response's choice (Chat) or candidate
// (Gemini); the other dialects have one per response.
type group struct {
	resp   *model.Response // nil for items of no response
	choice int
	many   bool // the response has several choices
	items  []*model.Item
}

// choiceGroups splits response r's items by choice, including choices
// that finished without an item.
func choiceGroups(s *model.Session, r int) []group {
	var resp *model.Response
	if r >= 0 {
		resp = s.Responses[r]
	}
	var choices []int
	items := s.ResponseItems(r)
	for _, it := range items {
		if !slices.Contains(choices, it.Choice) {
			choices = append(choices, it.Choice)
		}
	}
	if resp != nil {
		for _, f := range resp.Finish {
			if !slices.Contains(choices, f.Choice) {
				choices = append(choices, f.Choice)
			}
		}
		if len(choices) == 0 {
			choices = append(choices, 0)
		}
	}
	slices.Sort(choices)
	out := make([]group, 0, len(choices))
	for _, ci := range choices {
		g := group{resp: resp, choice: ci, many: len(choices) > 1}
		for _, it := range items {
			if it.Choice == ci {
				g.items = append(g.items, it)
			}
		}
		out = append(out, g)
	}
	return out
}

// judge applies the request rules to one group.
func (rc *requestChecks) judge(out *Checker, s *model.Session, g group, invalid map[string]bool) {
	var uses, client []*model.Item
	for _, it := range g.items {
		if toolUse(it) {
			uses = append(uses, it)
		}
		if it.IsCall() && !serverCall(it) {
			client = append(client, it)
		}
	}
	for _, it := range client {
		rc.judgeCall(out, g, it, invalid)
	}
	rc.judgeChoice(out, s, g, uses, client)
	if rc.req.Serial && len(client) > 1 {
		out.Add(qParallel, opened(client), "the request disables parallel tool calls, but %s made %s: %s",
			where(g), Plural(len(client), "call"), listCalls(client))
	}
}

// toolUse reports whether an item is the model using a tool: a call, or
// what its dialect counts as one (DialectRules.ToolUse: a Responses
// built-in's item). tool_choice "required" counts them all.
func toolUse(it *model.Item) bool {
	if it.IsCall() {
		return true
	}
	r := rulesOf(it.Dialect)
	return r != nil && r.ToolUse != nil && r.ToolUse(it)
}

// serverCall reports whether a call is run by the provider (an MCP call,
// an Anthropic server tool): the request declares those differently, and
// its client never answers them.
func serverCall(it *model.Item) bool {
	switch it.Type {
	case "mcp_call", "server_tool_use", "mcp_tool_use":
		return true
	}
	return false
}

// judgeCall holds a client call to its tool's declaration.
func (rc *requestChecks) judgeCall(out *Checker, g group, it *model.Item, invalid map[string]bool) {
	if it.Name == "" {
		return // the dialect's rules report a call without a name
	}
	d := rc.req.Decl(it.Name)
	if d == nil {
		if !rc.req.ToolsElsewhere {
			out.Add(qUndeclared, []int{openedAt(it)}, "%s at event %d names a tool the request does not declare; it declares %s%s",
				callSubject(it), openedAt(it), declared(rc.req), IDs("id", it.CallID))
		}
		return
	}
	if kind, ok := callKind(it); ok && d.Kind != model.ToolBuiltin && kind != d.Kind {
		out.Add(qTypeMismatch, []int{openedAt(it)}, "%s at event %d is a %s, but the request declares %s as a %s tool%s",
			callSubject(it), openedAt(it), label(it.Type), label(d.Name), d.Kind, IDs("id", it.CallID))
		return
	}
	at, done := completed(g, it)
	if !done || (d.Kind != model.ToolFunction && d.Kind != model.ToolCustom) {
		return
	}
	tc := rc.tool(d)
	if tc.schema == nil && tc.re == nil && tc.err == "" {
		return
	}
	var v argsVerdict
	if tc.err == "" {
		v = rc.verdict(it, tc)
	}
	if why := cmp.Or(tc.err, v.invalid); why != "" {
		if !invalid[d.Name] {
			invalid[d.Name] = true
			out.Add(qSchemaInvalid, []int{at}, "the schema of %s does not compile, so %s is not validated: %s",
				label(d.Name), callLabel(it), cut(why, 240))
		}
		return
	}
	problems := v.problems
	if len(problems) == 0 {
		return
	}
	sev := Warning
	if d.Strict || tc.re != nil {
		sev = Error // constrained decoding promised a match
	}
	if len(problems) > maxProblems {
		problems = append(problems[:maxProblems:maxProblems], Plural(len(problems)-maxProblems, "more failure"))
	}
	out.AddAt(qArgsSchema, sev, []int{at}, "the arguments of %s, complete at event %d, break its schema: %s%s", callSubject(it), at,
		strings.Join(problems, "; "), IDs("id", it.CallID))
}

// callKind is the kind of tool a call item is of, when its dialect says
// (DialectRules.CallKind).
func callKind(it *model.Item) (model.ToolKind, bool) {
	if r := rulesOf(it.Dialect); r != nil && r.CallKind != nil {
		return r.CallKind(it)
	}
	return 0, false
}

// completed reports whether a call's arguments are final, and the event
// that made them so: the call's closing event, or its response's
// terminal event.
func completed(g group, it *model.Item) (int, bool) {
	if it.Closed >= 0 {
		return it.Closed, true
	}
	if g.resp != nil && g.resp.Terminal >= 0 {
		return g.resp.Terminal, true
	}
	return 0, false
}

// tool returns the tool's declaration made ready, compiling it on first
// use: once per request, never per event.
func (rc *requestChecks) tool(d *model.ToolDecl) *toolCheck {
	if tc := rc.tools[d.Name]; tc != nil {
		return tc
	}
	if rc.tools == nil {
		rc.tools = map[string]*toolCheck{}
	}
	tc := compileTool(d)
	rc.tools[d.Name] = &tc
	return &tc
}

// verdict validates a complete call's arguments once, and again only if
// they changed since (a late fragment).
func (rc *requestChecks) verdict(it *model.Item, tc *toolCheck) argsVerdict {
	if v, ok := rc.verdicts[it]; ok && v.last == it.Last && v.size == it.Args.Len() {
		return v
	}
	args := it.FinalArgs()
	v := argsVerdict{last: it.Last, size: it.Args.Len()}
	switch {
	case len(args) > maxValidatedArgs:
	case tc.re != nil:
		if !tc.re.MatchString(args) {
			v.problems = []string{"input " + Quote(args) + " does not match the regex grammar " + Quote(strings.TrimSuffix(strings.TrimPrefix(tc.re.String(), "^(?:"), ")$")) + " [grammar]"}
		}
	default:
		if r := rulesOf(it.Dialect); args == "" && r != nil && r.EmptyArgsObject {
			args = "{}" // see DialectRules.EmptyArgsObject
		}
		v.problems, v.invalid = validateArgs(tc.schema, args)
	}
	if rc.verdicts == nil {
		rc.verdicts = map[*model.Item]argsVerdict{}
	}
	rc.verdicts[it] = v
	return v
}

// judgeChoice holds a group's calls to tool_choice.
func (rc *requestChecks) judgeChoice(out *Checker, s *model.Session, g group, uses, client []*model.Item) {
	ch := rc.req.Choice
	switch ch.Mode {
	case model.ChoiceNone:
		if len(uses) > 0 {
			out.Add(qChoice, opened(uses), `tool_choice is "none", but %s made %s: %s`, where(g), Plural(len(uses), "call"), listCalls(uses))
		}
		return
	case model.ChoiceRequired:
		if at, ok := endedNormally(s, g); ok && len(uses) == 0 {
			out.Add(qChoice, []int{at}, "tool_choice requires %s, but %s ended at event %d without one", required(ch), where(g), at)
		}
	}
	if ch.Names == nil {
		return
	}
	for _, it := range client {
		if it.Name != "" && !slices.Contains(ch.Names, it.Name) {
			ev := openedAt(it)
			out.Add(qChoice, []int{ev}, "tool_choice allows only %s, but %s at event %d is another tool%s", names(ch.Names), callSubject(it), ev, IDs("id", it.CallID))
		}
	}
}

// required says what a required choice asks for.
func required(ch model.ToolChoice) string {
	switch len(ch.Names) {
	case 0:
		return "a call"
	case 1:
		return "a call of " + label(ch.Names[0])
	}
	return "a call of one of " + names(ch.Names)
}

// endedNormally reports whether a group's response ended as a conforming
// one that honoured tool_choice would: completed, or stopped for a reason
// that is not a limit, a filter or an error. It returns the event that
// ended it.
func endedNormally(s *model.Session, g group) (int, bool) {
	if g.resp == nil || Errored(s) {
		return 0, false
	}
	if reasons := g.resp.FinishOf(g.choice); len(reasons) > 0 {
		last := reasons[len(reasons)-1]
		switch last.Value {
		case "stop", "tool_calls", "function_call", "end_turn", "tool_use", "stop_sequence", "STOP":
			return last.Ordinal, true
		}
		return 0, false
	}
	if g.resp.Terminal >= 0 && g.resp.Status.Last() == "completed" {
		return g.resp.Terminal, true
	}
	return 0, false
}

// opened returns the event that opened each item.
func opened(items []*model.Item) []int {
	out := make([]int, 0, len(items))
	for _, it := range items {
		out = append(out, openedAt(it))
	}
	return out
}

// openedAt is the event that opened an item, or its first when none did.
func openedAt(it *model.Item) int {
	if it.Opened >= 0 {
		return it.Opened
	}
	return it.First
}

// where names a group: `response "resp_1"`, with its choice when the
// response has several.
func where(g group) string {
	w := "the stream"
	if g.resp != nil {
		w = "the response"
		if g.resp.ID != "" {
			w = "response " + label(g.resp.ID)
		}
	}
	if g.many {
		w += " (choice " + strconv.Itoa(g.choice) + ")"
	}
	return w
}

// listCalls names calls and where they start, the first few of them.
func listCalls(items []*model.Item) string {
	const shown = 5
	var parts []string
	for i, it := range items {
		if i == shown {
			parts = append(parts, Plural(len(items)-shown, "more"))
			break
		}
		parts = append(parts, callLabel(it)+" at event "+strconv.Itoa(openedAt(it)))
	}
	return strings.Join(parts, ", ")
}

// callSubject names a call as a sentence's subject, by its tool:
// `call get_weather`; its id goes after the sentence (IDs).
func callSubject(it *model.Item) string {
	if it.Name == "" {
		return "call " + label(it.Type)
	}
	return "call " + label(it.Name)
}

// callLabel names a call in a list of calls: its tool and call id,
// `get_weather (call_1)`.
func callLabel(it *model.Item) string {
	name := label(it.Name)
	if it.Name == "" {
		name = label(it.Type)
	}
	if it.CallID != "" {
		return name + " (" + label(it.CallID) + ")"
	}
	return name
}

// declared lists the names a request declares, the first few of them.
func declared(r *model.Request) string {
	if len(r.Decls) == 0 {
		return "no tool"
	}
	var ns []string
	for _, d := range r.Decls {
		ns = append(ns, d.Name)
	}
	return names(ns)
}

// names lists tool names, the first few of them.
func names(ns []string) string {
	const shown = 8
	var parts []string
	for i, n := range ns {
		if i == shown {
			parts = append(parts, Plural(len(ns)-shown, "more"))
			break
		}
		parts = append(parts, label(n))
	}
	return strings.Join(parts, ", ")
}

// label writes a name or id from the stream or the request as it is when
// it is a plain identifier, and quoted (control characters escaped) when
// it is anything else.
func label(s string) string {
	if s == "" || len(s) > 64 {
		return Quote(s)
	}
	for _, r := range s {
		plain := r == '_' || r == '-' || r == '.' || r == ':' || r == '/' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
		if !plain {
			return Quote(s)
		}
	}
	return s
}
