package ollama

import "github.com/streamtap/streamtap/model"

// The top-level members the dialect reads, recorded by the core's one
// scan of each event (see model.MemberOf).
var (
	mDone     = model.MemberOf("done")
	mMessage  = model.MemberOf("message")
	mModel    = model.MemberOf("model")
	mResponse = model.MemberOf("response")
)
