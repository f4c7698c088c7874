package mcp

import (
	"strconv"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// This file reads one JSON-RPC 2.0 message, whichever side sent it: the
// client's in a request body, the server's in an SSE event or a JSON body.
// https://www.jsonrpc.org/specification#request_object
// https://modelcontextprotocol.io/specification/2025-11-25/basic#messages

// Kind is what a JSON-RPC message is.
type Kind uint8

const (
	// Invalid is no JSON-RPC 2.0 message: "jsonrpc" is not "2.0", or the
	// members fit no kind (a method and a result, a response with both
	// result and error, an id that is neither a string nor a number).
	// The TypeScript SDK's client rejects it (a schema error) and reads on.
	Invalid Kind = iota
	// Request has a method and an id: it expects a response.
	Request
	// Notification has a method and no id: nothing answers it.
	Notification
	// Result answers a request, by id, with a result.
	Result
	// Error answers a request, by id (null when the server could not read
	// it), with an error {code, message, data}.
	Error
)

var kindNames = [...]string{"invalid", "request", "notification", "result", "error"}

func (k Kind) String() string { return kindNames[k] }

// Message is the members of one JSON-RPC message, raw JSON each, nil when
// absent.
type Message struct {
	Kind                                  Kind
	JSONRPC, Method, ID, Params, Res, Err []byte
	// Why says what makes an Invalid message invalid.
	Why string
	// Raw is the whole message, when ParseMessage read it.
	Raw []byte
}

// message reads msg, a JSON object (its members read by each).
func message(each func(fn func(k, v []byte) bool)) Message {
	var m Message
	each(func(k, v []byte) bool {
		switch string(k) {
		case "jsonrpc":
			m.JSONRPC = v
		case "method":
			m.Method = v
		case "id":
			m.ID = v
		case "params":
			m.Params = v
		case "result":
			m.Res = v
		case "error":
			m.Err = v
		}
		return true
	})
	m.classify()
	return m
}

// readMessage reads the JSON object data with the session's index.
func readMessage(s *model.Session, data []byte) Message {
	return message(func(fn func(k, v []byte) bool) { s.JSON().Members(data, fn) })
}

// topMessage reads the event being added from the members the core
// recorded (MemberOf): no walk over it.
func topMessage(s *model.Session) Message {
	m := Message{JSONRPC: s.Member(mJSONRPC), Method: s.Member(mMethod), ID: s.Member(mID),
		Params: s.Member(mParams), Res: s.Member(mResult), Err: s.Member(mError)}
	m.classify()
	return m
}

// ParseMessage reads a JSON-RPC message held in memory, validated or not
// (a request body): a body that is not a JSON object is Invalid.
func ParseMessage(data []byte) Message {
	if jsonscan.Validate(data) != nil || jsonscan.Kind(data) != '{' {
		return Message{Why: "not a JSON object"}
	}
	m := message(func(fn func(k, v []byte) bool) { jsonscan.Members(data, fn) })
	m.Raw = data
	return m
}

// classify sets Kind (and Why) from the members.
func (m *Message) classify() {
	m.Kind = Invalid
	hasID := m.ID != nil
	idOK := jsonscan.Kind(m.ID) == '"' || isNumber(m.ID)
	switch {
	case m.JSONRPC == nil:
		m.Why = `no "jsonrpc" member`
	case !jsonscan.Equal(m.JSONRPC, "2.0"):
		m.Why = `"jsonrpc" is ` + string(m.JSONRPC) + `, not "2.0"`
	case m.Method != nil && jsonscan.Kind(m.Method) != '"':
		m.Why = `"method" is not a string`
	case m.Method != nil && (m.Res != nil || m.Err != nil):
		m.Why = `a "method" beside a "result" or "error"`
	case m.Method != nil && hasID && !idOK:
		m.Why = `a request's "id" is ` + string(m.ID) + `, neither a string nor a number`
	case m.Method != nil && hasID:
		m.Kind = Request
	case m.Method != nil:
		m.Kind = Notification
	case m.Res != nil && m.Err != nil:
		m.Why = `both "result" and "error"`
	case !hasID && (m.Res != nil || m.Err != nil):
		m.Why = `a response without "id"`
	case m.Res != nil && !idOK:
		m.Why = `a result's "id" is ` + string(m.ID) + `, neither a string nor a number`
	case m.Res != nil:
		m.Kind = Result
	case m.Err != nil && (idOK || jsonscan.IsNull(m.ID)):
		m.Kind = Error
	case m.Err != nil:
		m.Why = `an error's "id" is ` + string(m.ID) + `, neither a string, a number nor null`
	default:
		m.Why = `no "method", "result" or "error"`
	}
}

// isNumber reports whether v is a JSON number.
func isNumber(v []byte) bool {
	if len(v) == 0 {
		return false
	}
	c := v[0]
	return c == '-' || (c >= '0' && c <= '9')
}

// IDKey is the key an id is matched by: a string id and a number id are
// different ids even when they read alike ("1" and 1), as JSON-RPC has
// them. "" for no id, or null.
func IDKey(id []byte) string {
	switch {
	case jsonscan.Kind(id) == '"':
		s, _ := jsonscan.String(id)
		return "s" + s
	case isNumber(id):
		if n, err := strconv.ParseFloat(string(id), 64); err == nil && n == float64(int64(n)) {
			return "n" + strconv.FormatInt(int64(n), 10) // 1, 1.0 and 1e0 are one id
		}
		return "n" + string(id)
	}
	return ""
}

// IDText is an id as a report shows it: a string id unquoted, a number as
// it was written; "" for no id.
func IDText(id []byte) string {
	if s, ok := jsonscan.String(id); ok {
		return s
	}
	if isNumber(id) {
		return string(id)
	}
	return ""
}

// MethodOf is a message's method, "" when it has none.
func (m *Message) MethodOf() string { return model.StringOf(m.Method) }
