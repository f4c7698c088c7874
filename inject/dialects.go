package inject

import (
	"sync"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/dialect/bedrock"
)

// The dialects inject has defects for, named once: every other file says
// dResponses, not how model names a dialect. model registers the dialects
// when a command starts (model/dialects), so their ids are looked up then,
// by name, the first time inject needs them (lookupDialects); a dialect
// not registered gets an id no event has.
var (
	dResponses, dChat, dAnthropic, dGemini, dOllama, dConverse, dInvoke model.Dialect
	dUI, dData, dMCP                                                    model.Dialect
	lookupOnce                                                          sync.Once
)

// notRegistered is the id of a dialect model does not know: no event has
// it (model has room for 16).
const notRegistered = model.Dialect(255)

// lookupDialects finds the dialects' ids, once.
func lookupDialects() {
	lookupOnce.Do(func() {
		for _, d := range []struct {
			id   *model.Dialect
			name string
		}{
			{&dResponses, "openai-responses"}, {&dChat, "openai-chat"}, {&dAnthropic, "anthropic"},
			{&dGemini, "gemini"}, {&dOllama, "ollama"}, {&dConverse, "bedrock-converse"}, {&dInvoke, "bedrock-invoke"},
			{&dUI, "aisdk-ui"}, {&dData, "aisdk-data"}, {&dMCP, "mcp"},
		} {
			*d.id = notRegistered
			if id, ok := model.Lookup(d.name); ok {
				*d.id = id
			}
		}
	})
}

// typeInvokeChunk is the :event-type of every InvokeModel message.
const typeInvokeChunk = bedrock.TypeInvokeChunk
