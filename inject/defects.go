package inject

import (
	"cmp"
	"slices"
	"strings"

	"github.com/streamtap/streamtap/model"
)

// Defect is one named protocol defect: what it does, and, for each
// dialect it applies to, the rule of model/checks that detects it there.
type Defect struct {
	// Name is what --inject takes ("args-differ").
	Name string
	// Summary says what the defect does to a stream, in one line.
	Summary string
	// Rewrites says the defect changes bytes of events it does not
	// otherwise touch: line endings are how every event is framed, so a
	// stream that mixes them rewrites the events from the chosen one on.
	// Every other defect keeps the bytes of the events it does not name.
	Rewrites bool
	// Variants are its forms, one per dialect, in dialect order.
	Variants []Variant
}

// Variant is a defect's form in one dialect.
type Variant struct {
	// Dialect is the dialect whose streams it applies to; an
	// InvokeModel stream's variant (dInvoke) acts on
	// the chunks or on the Anthropic events inside them.
	Dialect model.Dialect
	// Rule is the id of the rule that reports it, or "" for a defect
	// that is legal (a keep-alive flood) and so raises none.
	Rule string
	// Also lists rules check raises beside Rule because the defect does
	// that too on the wire: an InvokeModel stream cut inside its last
	// message loses the message, and with it the message_stop its chunk
	// carried.
	Also  []string
	apply func(e *edit) error
}

// variant is one line of a dialect's table of defects (see the tables
// of responses.go, chat.go, anthropic.go …).
type variant struct {
	defect string
	rule   string
	apply  func(e *edit) error
	also   []string // Variant.Also
}

// catalogue names every defect and says what it does; the dialects' tables
// give its forms. Its order is --list's.
var catalogue = []struct {
	name, summary string
	rewrites      bool
}{
	// Framing: how events are cut and encoded.
	{"crlf", "line endings switch to CRLF from the chosen event on (to LF in a CRLF stream): the stream mixes them", true},
	{"cr", "line endings switch to a bare CR from the chosen event on: the stream mixes them", true},
	{"unterminated", "the last event loses the blank line (or newline) that ends it; a cut event stream message loses its tail", false},
	{"comment-as-data", "a keep-alive comment re-wrapped as data (data: : OPENROUTER PROCESSING) before the chosen event", false},
	{"not-object", "a JSON string where an event object belongs (data: \"keepalive\") before the chosen event", false},
	{"empty-data", "a heartbeat event with empty data (data:) before the chosen event", false},
	{"leading-space", "the chosen event sent again as \" data: …\", a field name with a leading space that spec parsers ignore", false},
	{"event-name-mismatch", "the chosen event's event: name names another type than its data.type (an MCP message's: not message)", false},
	{"event-name-drop", "the chosen event loses its event: line", false},
	{"utf8-split", "a multi-byte UTF-8 character split across two deltas: each holds half of it", false},
	{"invalid-utf8", "a Latin-1 byte (0xE9, é) in the chosen text delta: not UTF-8", false},
	{"keepalive-flood", "100 keep-alives (comments, pings) before the chosen event: legal, so no rule reports it", false},
	{"midstream-error", "the stream is cut after the chosen event and ends with the vendor's error (overloaded_error, response.failed, an error chunk, a Bedrock exception; the AI SDK's error chunk or 3: part with its default text; a JSON-RPC error answering an MCP tools/call)", false},
	{"crc", "the chosen event stream message's CRC no longer matches its bytes", false},
	{"prelude-crc", "the chosen event stream message's prelude CRC no longer matches its lengths", false},
	{"bad-length", "the chosen event stream message's headers length runs past the message (the prelude CRC still holds)", false},
	// Lifecycle: how a stream starts and ends.
	{"start-late", "response.created comes after response.in_progress (they trade numbers too)", false},
	{"start-drop", "the opening event (message_start) is cut: the stream starts with a content block", false},
	{"start-twice", "the opening event is sent a second time", false},
	{"step-twice", "a step's start (the AI SDK's start-step, f:) is sent a second time: the steps no longer pair", false},
	{"cut-terminal", "the terminal event (response.completed, message_stop, [DONE], done: true, messageStop, the AI SDK's finish or d:, an MCP request's response) and what follows it are cut", false},
	{"terminal-twice", "the terminal event is sent twice (an MCP response: twice to one id)", false},
	{"after-terminal", "an event after the terminal one (a ping, a keepalive, the done line again, a chunk after the AI SDK's finish)", false},
	{"done-doubled", "data: [DONE] sent twice", false},
	{"done-drop", "data: [DONE] is cut; the terminal event before it stays", false},
	{"done-sentinel", "data: [DONE] after the terminal event, which the dialect does not have", false},
	{"done-before-terminal", "data: [DONE] before the terminal event", false},
	{"status-mismatch", "the terminal event's response.status disagrees with its type", false},
	{"status-regress", "a snapshot's status goes back (response.in_progress says queued)", false},
	{"response-id-switch", "the terminal snapshot's response id differs from response.created's", false},
	{"output-empty", "the terminal snapshot's output[] is empty", false},
	{"output-drop", "the terminal snapshot's output[] loses its last item", false},
	{"unknown-event", "an event of a type outside the documented stream before the chosen event", false},
	{"member-drop", "the chosen chunk or message loses a member its schema requires (a text-delta its delta, a v4 tool call its args, a JSON-RPC message its \"jsonrpc\": \"2.0\")", false},
	{"metadata-drop", "the metadata event after messageStop is cut (usage and latency lost)", false},
	// Sequence numbers.
	{"seq-drop", "the chosen event loses its sequence_number", false},
	{"seq-swap", "two neighbouring events trade sequence numbers: the numbers go backwards", false},
	{"seq-gap", "the last event's sequence_number jumps ahead: a gap before it", false},
	// Items and calls: identity.
	{"added-drop", "the last item's output_item.added is cut: its events name an item never opened", false},
	{"delta-before-start", "a call's start and its first argument delta trade places (tool-input-start, b:): the delta names a call not started yet", false},
	{"call-start-drop", "a call's start (tool-input-start, b:) is cut: its argument deltas name a call never started", false},
	{"index-negative", "the chosen delta's content_index (or output_index) is -1", false},
	{"output-order", "two items trade their output_index: the second is added first, out of output_index order", false},
	{"item-id-switch", "a call's item id switches mid-call: output_item.done names it otherwise", false},
	{"item-id-drop", "the chosen delta loses its item_id", false},
	{"item-status", "output_item.done says the item is still in_progress", false},
	{"item-done-drop", "an item's output_item.done is cut", false},
	{"item-done-twice", "an item's output_item.done is sent twice", false},
	{"call-id-drop", "a call's id (call_id, tool_calls[].id) never appears", false},
	{"call-id-switch", "a call's call_id differs in output_item.done", false},
	{"output-unknown-call", "a tool's output (tool-output-available, a: tool_result) names a call id no call has", false},
	{"name-drop", "a call's name never appears", false},
	{"name-late", "a call's name is empty when it opens and comes only later", false},
	{"name-switch", "a later event names the call differently", false},
	{"index-missing", "a tool_calls[] fragment loses its index", false},
	{"index-collision", "a second call takes the first one's tool_calls index", false},
	{"index-gap", "call or block indices start at 1 instead of 0", false},
	{"id-repeated", "the call's id and name repeated on every continuation fragment", false},
	{"id-empty", "continuation fragments carry \"id\":\"\" and \"name\":\"\"", false},
	{"identity-switch", "one chunk carries another completion id", false},
	{"created-switch", "one chunk carries another created timestamp", false},
	{"message-beside-delta", "a chunk carries its delta again as a whole message", false},
	// Arguments and text.
	{"args-differ", ".done (and the final snapshots; the AI SDK's tool-input-available input, a v4 9: call's args) state other arguments than the deltas spell", false},
	{"text-differ", "output_text.done states another text than the deltas spell", false},
	{"args-truncated", "a call's arguments lose their last character in every place they are stated: not JSON", false},
	{"args-null", "a tool-call fragment carries \"arguments\": null", false},
	{"args-object", "a call's arguments are JSON of the wrong type (an object where a string belongs, a string where an object does)", false},
	{"args-resent", "the whole arguments are sent again after the deltas", false},
	{"args-missing", "a call's arguments never arrive", false},
	{"args-done-only", "a call's argument deltas are cut: they arrive only in .done", false},
	{"args-in-added", "output_item.added already carries the whole arguments", false},
	{"call-split", "a call continued on a second tool_calls entry", false},
	// Blocks (Anthropic, Bedrock).
	{"delta-unknown-block", "a delta for a block that was never started", false},
	{"delta-wrong-type", "a delta whose type does not fit its block (text on a tool block)", false},
	{"blocks-overlap", "a block starts before the one before it stopped", false},
	{"block-stop-drop", "a block's stop event is cut", false},
	{"empty-block-start", "a contentBlockStart with an empty start union before a text block, which takes none", false},
	{"signature-drop", "a thinking block's signature_delta is cut", false},
	// Outcome.
	{"finish-missing", "the finish or stop reason is null", false},
	{"finish-twice", "a second finishing chunk with another reason", false},
	{"finish-nonstandard", "the finish reason is a value outside the documented ones", false},
	{"stop-not-tool", "the finish reason says stop although tool calls were sent", false},
	{"delta-after-finish", "a delta after the choice's finish_reason", false},
	{"blank-line", "a blank line between two JSON lines", false},
	{"chunk-invalid", "an InvokeModel chunk whose bytes is not base64", false},
	// MCP: requests and their responses.
	{"stray-response", "a response to an id no request of the stream sent comes before the real response (a gateway that mixes up two clients' streams)", false},
	{"progress-token-switch", "a progress notification carries a progressToken its request did not send", false},
	{"progress-late", "the last progress notification is sent again after the response", false},
	{"server-request-twice", "the server's own request (elicitation/create, sampling/createMessage) is sent twice with one id", false},
	{"tool-error", "a tools/call result says isError: true, its text kept: the tool failed (legal: a tool error the model reads)", false},
}

// tables lists every dialect's table of defects, in dialect order: the
// providers' and the app leg's (the AI SDK's UI message stream, its v4
// data stream, MCP), each in a file of its own.
func tables() map[model.Dialect][]variant {
	lookupDialects()
	t := map[model.Dialect][]variant{
		dResponses: responsesDefects,
		dChat:      chatDefects,
		dAnthropic: anthropicDefects,
		dGemini:    geminiDefects,
		dOllama:    ollamaDefects,
		dConverse:  converseDefects,
		dInvoke:    invokeDefects,
		dUI:        uiDefects,
		dData:      dataDefects,
		dMCP:       mcpDefects,
	}
	delete(t, notRegistered)
	return t
}

// Defects lists every defect with its forms, in --list's order.
func Defects() []Defect {
	byName := map[string]*Defect{}
	out := make([]Defect, len(catalogue))
	for i, c := range catalogue {
		out[i] = Defect{Name: c.name, Summary: c.summary, Rewrites: c.rewrites}
		byName[c.name] = &out[i]
	}
	for d, tab := range tables() {
		for _, v := range tab {
			if def := byName[v.defect]; def != nil {
				def.Variants = append(def.Variants, Variant{Dialect: d, Rule: v.rule, Also: v.also, apply: v.apply})
			}
		}
	}
	for i := range out {
		slices.SortFunc(out[i].Variants, func(a, b Variant) int { return cmp.Compare(a.Dialect, b.Dialect) })
	}
	return slices.DeleteFunc(out, func(d Defect) bool { return len(d.Variants) == 0 })
}

// Lookup returns the defect named name.
func Lookup(name string) (Defect, bool) {
	for _, d := range Defects() {
		if d.Name == name {
			return d, true
		}
	}
	return Defect{}, false
}

// Variant returns the defect's form for dialect d.
func (d Defect) Variant(dl model.Dialect) (Variant, bool) {
	for _, v := range d.Variants {
		if v.Dialect == dl {
			return v, true
		}
	}
	return Variant{}, false
}

// Dialects names the dialects the defect applies to.
func (d Defect) Dialects() []string {
	var out []string
	for _, v := range d.Variants {
		out = append(out, v.Dialect.String())
	}
	return out
}

// Rules lists the distinct rules that report the defect, in dialect
// order.
func (d Defect) Rules() []string {
	var out []string
	for _, v := range d.Variants {
		if v.Rule != "" && !slices.Contains(out, v.Rule) {
			out = append(out, v.Rule)
		}
	}
	return out
}

// ParseList reads a comma-separated list of defect names.
func ParseList(s string) ([]Defect, error) {
	var out []Defect
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		d, ok := Lookup(name)
		if !ok {
			return nil, &UnknownError{Name: name}
		}
		out = append(out, d)
	}
	if len(out) == 0 {
		return nil, &UnknownError{}
	}
	return out, nil
}

// UnknownError is a defect name no defect has.
type UnknownError struct{ Name string }

func (e *UnknownError) Error() string {
	if e.Name == "" {
		return "no defect named ('streamtap inject --list' lists them)"
	}
	return "unknown defect " + strconvQuote(e.Name) + " ('streamtap inject --list' lists them)"
}

func strconvQuote(s string) string { return string(quote(s)) }
