package checks

import "slices"

// Rule describes one check. IDs are stable: scripts and CI configurations
// name them, so a rule may be reworded but never renamed.
type Rule struct {
	ID string
	// Dialect is the id's prefix: framing (the transport, SSE or an AWS
	// event stream, every dialect's), request (the calls against the request, every
	// dialect's), or the short name of the dialect whose rule it is
	// (model.DialectInfo.Short: responses, chat, anthropic, gemini).
	Dialect string
	// Severity is the grade under the strict profile. A few rules grade
	// one documented case lower (the summary says which).
	Severity Severity
	// Tolerant is the highest grade under the tolerant profile: lower than
	// Severity for legal variations and common vendor habits.
	Tolerant Severity
	Summary  string
	// Refs are the ids of the matching defects in the protocol defect
	// catalogue; docs/rules.md cites the evidence behind each.
	Refs []string
}

// Rule ids of the transport, whatever the dialect.
const (
	fNoData       = "framing/no-data"
	fUnterminated = "framing/unterminated-event"
	fLeadingSpace = "framing/leading-space-field"
	fInvalidJSON  = "framing/invalid-json"
	fNotObject    = "framing/not-object"
	fEmptyData    = "framing/empty-data"
	fNameMismatch = "framing/event-name-mismatch"
	fErrorPayload = "framing/error-payload"
	fMixedEndings = "framing/mixed-line-endings"
	fInvalidUTF8  = "framing/invalid-utf8"
	// The AWS event stream's (eventstream.go).
	fESPreludeCRC = "framing/eventstream-prelude-crc"
	fESMessageCRC = "framing/eventstream-message-crc"
	fESLength     = "framing/eventstream-length"
	fESException  = "framing/eventstream-exception"
)

func NewRule(id string, sev, tolerant Severity, summary string, refs ...string) Rule {
	d := id
	for i := range id {
		if id[i] == '/' {
			d = id[:i]
			break
		}
	}
	return Rule{ID: id, Dialect: d, Severity: sev, Tolerant: tolerant, Summary: summary, Refs: refs}
}

// framingRules are the rules of the transport (SSE, and the AWS event
// stream's), every dialect's.
var framingRules = []Rule{
	NewRule(fNoData, Error, Error, "the stream carries no data event: it is empty, or only comments and pings"),
	NewRule(fUnterminated, Warning, Warning, "the last event is not ended by a blank line (SSE) or a newline (JSON lines); spec parsers discard it at EOF (info for a whole JSON line)",
		"sse-unterminated-final-event"),
	NewRule(fLeadingSpace, Error, Error, `a field line starts with a space (" data: …"); spec parsers ignore it as an unknown field`),
	NewRule(fInvalidJSON, Error, Error, "data is neither JSON nor [DONE] (includes a comment re-wrapped as data: \": PROCESSING\")",
		"sse-invalid-json", "sse-comment-rewrapped-as-data"),
	NewRule(fNotObject, Error, Error, "data is JSON but not an object (a string, number or array where an event object belongs)",
		"sse-invalid-json"),
	NewRule(fEmptyData, Warning, Warning, "an event with empty data or no data line (heartbeats such as \"data:\" or a bare \"event: x\")",
		"sse-empty-data"),
	NewRule(fNameMismatch, Info, Info, "OpenAI: the event: name differs from data.type (the SDK dispatches on data.type)",
		"sse-event-name-mismatch"),
	NewRule(fErrorPayload, Info, Info, "a JSON error payload in the stream; the outcome reports the failure",
		"cc-midstream-error-chunk", "an-midstream-error", "resp-error-shape"),
	NewRule(fMixedEndings, Info, Info, "the stream mixes line endings (LF, CRLF, CR); legal, but LF-only splitters mis-frame it",
		"sse-crlf"),
	NewRule(fInvalidUTF8, Warning, Warning, "an event's bytes are not valid UTF-8; decoders replace or reject them"),
	NewRule(fESPreludeCRC, Error, Error, "an event stream message's prelude CRC fails: its lengths cannot be trusted; the AWS SDKs raise and stop"),
	NewRule(fESMessageCRC, Error, Error, "an event stream message's CRC fails: its headers or payload were damaged; the AWS SDKs raise and stop"),
	NewRule(fESLength, Error, Error, "an event stream prelude with lengths no message can have (under 16 bytes, headers past the message, over 16 MiB), or headers that overrun them"),
	NewRule(fESException, Info, Info, "an event stream exception (:message-type exception): the service failed mid-stream; the outcome reports it"),
}

// table lists every rule, in the order reports and docs use: the
// transport's, each registered dialect's, then the request's.
var table, ruleByID = indexRules()

func indexRules() ([]Rule, map[string]*Rule) {
	t := slices.Clone(framingRules)
	for _, d := range dialects {
		t = append(t, d.Rules...)
	}
	t = append(t, requestRules...)
	m := map[string]*Rule{}
	for i := range t {
		if m[t[i].ID] != nil {
			panic("checks: rule " + t[i].ID + " registered twice")
		}
		m[t[i].ID] = &t[i]
	}
	return t, m
}

// Rules returns every rule, in report order. The slice is a copy.
func Rules() []Rule {
	out := make([]Rule, len(table))
	copy(out, table)
	return out
}
