package model

// NewExplanation builds one row of the explanations table.
func NewExplanation(d Dialect, typ, sub, does, fields, client, pitfalls string, rules ...string) Explanation {
	return Explanation{Shape: Shape{Dialect: d, Type: typ, Sub: sub},
		Does: does, Fields: fields, Client: client, Pitfalls: pitfalls, Rules: rules}
}

// anyD is the Dialect of the shapes every dialect shares.
const anyD = DialectUnknown

// explanations is the one table of event explanations: one row per shape
// of event, written from the protocol reference (the event tables of each
// dialect and the defect catalogue). Each dialect writes its own rows, in
// its <dialect>_explain.go beside the shapes they explain; the table is
// theirs in Dialect order, then the rows every dialect shares. Tests hold
// it to the model: every type, block type and delta type a dialect
// handler knows, and every shape of every sample and capture, has a row,
// and every rule cited exists.
var explanations, explainedByShape = indexExplanations()

// indexExplanations assembles the table and indexes it by shape.
func indexExplanations() ([]Explanation, map[Shape]int) {
	var all []Explanation
	for _, d := range AllDialects() {
		all = append(all, byDialect[d].Explanations()...)
	}
	all = append(all, sharedExplanations...)
	byShape := make(map[Shape]int, len(all))
	for i, e := range all {
		byShape[e.Shape] = i
	}
	return all, byShape
}

// sharedExplanations are the rows of the shapes every dialect shares.
var sharedExplanations = []Explanation{
	// What every dialect shares: the SSE transport and data that is no event.
	NewExplanation(anyD, TypeComment, "",
		"An SSE comment line (it starts with ':'): a keep-alive, or on a recorded WebSocket one of the client's messages.",
		"the text after ':'.",
		"Ignores it, as the SSE spec says.",
		"Gateways that re-wrap it as data:, and naive readers that JSON-parse it.",
		"framing/invalid-json"),
	NewExplanation(anyD, TypeRemainder, "",
		"Bytes after the last event that belong to no event: blank lines at the end of the stream.",
		"the bytes themselves.",
		"Skips them. Between JSON lines a blank line holds no JSON: a reader that parses every line (ollama-python) raises on it.",
		"An SSE event cut off at EOF is an event flagged truncated, not this; blank JSON lines break line-by-line parsers.",
		"ollama/blank-line"),
	NewExplanation(anyD, TypeHTTP, "",
		"The HTTP response head before the stream (curl -i, the proxy, a recording).",
		"status, content-type (text/event-stream), request id and rate-limit headers.",
		"Checks the status before reading events.",
		"A gateway that answers 200 with an error body, or buffers the stream.",
	),
	NewExplanation(anyD, TypeHTTP, "error",
		"An HTTP error status: what follows is an error body, not a stream.",
		"status, the body's error {type, message}.",
		"Raises the error with the status; reads no events.",
		"Clients that try to parse the body as SSE and report nothing.",
		"framing/error-payload"),
	NewExplanation(anyD, TypeBadFrame, "",
		"An AWS event stream message that fails a check of its framing (its prelude CRC, its message CRC, lengths no message can have), or that the input cut short.",
		"the flags name the check; the bytes themselves (a damaged prelude's run to the next valid one).",
		"The AWS SDKs raise a checksum error and stop reading; nothing of it is applied.",
		"A proxy that re-encodes, truncates or splices the binary body.",
		"framing/eventstream-prelude-crc", "framing/eventstream-message-crc", "framing/eventstream-length", "framing/unterminated-event"),
	NewExplanation(anyD, TypeInvalid, "",
		"Data that is neither JSON nor [DONE].",
		"the data line.",
		"Every SDK raises on it.",
		"A comment re-wrapped as data:, an event cut mid-way, one payload split into several events.",
		"framing/invalid-json", "framing/unterminated-event"),
	NewExplanation(anyD, TypeNoData, "",
		"An event with no data line (a bare event: name) or with empty data.",
		"the event: name, if any.",
		"A spec parser dispatches nothing, or an empty string that JSON parsing rejects.",
		"Heartbeats sent this way break strict clients.",
		"framing/empty-data"),
	NewExplanation(anyD, typeNotObject, "",
		"Data that is JSON but not an object: a string, a number or an array.",
		"the value.",
		"The SDKs expect an event object and fail.",
		"The wrong endpoint; Gemini without alt=sse answers one array (read here as chunks).",
		"framing/not-object"),
	NewExplanation(anyD, typeUntyped, "",
		"A JSON object no dialect claims: no type, object, choices or candidates of the four dialects.",
		"type, if it has one; whatever else it holds.",
		"Ignores it, or rejects the stream.",
		"A vendor extra, or a response from the wrong endpoint.",
	),
	NewExplanation(anyD, typeErrorBody, "",
		"An error payload outside any dialect's stream, often the body after an HTTP error status.",
		"error {message, type, code}.",
		"Raises the error.",
		"Clients that parse it as an event and report nothing.",
		"framing/error-payload"),
	NewExplanation(anyD, TypeDone, "",
		"A Chat-style end sentinel in a stream whose dialect does not use one.",
		"none: the data is the text [DONE].",
		"Stops reading.",
		"Clients of other dialects that JSON-parse it.",
	),
}
