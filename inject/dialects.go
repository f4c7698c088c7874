package inject

import "github.com/streamtap/streamtap/model"

// The dialects inject has defects for, named once: every other file
// says dResponses, not the model's constant, so that how model names a
// dialect is this file's concern alone.
var (
	dResponses = model.DialectResponses
	dChat      = model.DialectChat
	dAnthropic = model.DialectAnthropic
	dGemini    = model.DialectGemini
	dOllama    = model.DialectOllama
	dConverse  = model.DialectBedrockConverse
	dInvoke    = model.DialectBedrockInvoke
)

// typeInvokeChunk is the :event-type of every InvokeModel message.
const typeInvokeChunk = model.TypeInvokeChunk
