package chat

import "github.com/streamtap/streamtap/model"

// The top-level members the dialect reads, recorded by the core's one
// scan of each event (see model.MemberOf).
var (
	mCreated = model.MemberOf("created")
	mChoices = model.MemberOf("choices")
	mError   = model.MemberOf("error")
	mID      = model.MemberOf("id")
	mModel   = model.MemberOf("model")
	mObject  = model.MemberOf("object")
)
