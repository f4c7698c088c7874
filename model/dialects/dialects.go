// Package dialects registers every dialect streamtap reads, with the core
// (model.Register) and with the checks (checks.Register): importing it,
// as the commands do, is what makes a session recognise any dialect at
// all. Adding a dialect is its folder under model/dialect and one line
// below. It holds no logic of its own.
package dialects

import (
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/model/dialect/aisdkdata"
	"github.com/streamtap/streamtap/model/dialect/aisdkui"
	"github.com/streamtap/streamtap/model/dialect/anthropic"
	"github.com/streamtap/streamtap/model/dialect/bedrock"
	"github.com/streamtap/streamtap/model/dialect/chat"
	"github.com/streamtap/streamtap/model/dialect/gemini"
	"github.com/streamtap/streamtap/model/dialect/mcp"
	"github.com/streamtap/streamtap/model/dialect/ollama"
	"github.com/streamtap/streamtap/model/dialect/responses"
)

// all lists the dialects in the order of their ids, which is the order
// reports, `streamtap rules` and the docs list them in: a new dialect goes
// last. Beside each is its rank for shape claims (model.Register): when
// two dialects' ClaimShape take one payload, ranks 1, 2, 3 are asked
// first, then the dialects of rank 0 in this order. A whole Anthropic
// message (typed "message") is Anthropic's before its choices could make
// it a Chat completion, and a payload with choices is Chat's before its
// object could make it a Responses body.
var all = []struct {
	protocol model.Protocol
	rank     int
	rules    *checks.DialectRules
}{
	{responses.Protocol, 3, &responses.Rules},
	{chat.Protocol, 2, &chat.Rules},
	{anthropic.Protocol, 1, &anthropic.Rules},
	{gemini.Protocol, 0, &gemini.Rules},
	{ollama.Protocol, 0, &ollama.Rules},
	{bedrock.Converse, 0, &bedrock.ConverseRules},
	{bedrock.Invoke, 0, &bedrock.InvokeRules},
	{aisdkui.Protocol, 0, &aisdkui.Rules},
	{aisdkdata.Protocol, 0, &aisdkdata.Rules},
	{mcp.Protocol, 0, &mcp.Rules},
}

func init() {
	for _, d := range all {
		checks.Register(model.Register(d.protocol, d.rank), d.rules)
	}
}
