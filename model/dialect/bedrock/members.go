package bedrock

import "github.com/streamtap/streamtap/model"

// The top-level members the dialect reads, recorded by the core's one
// scan of each event (see model.MemberOf).
var (
	mBlockIndex   = model.MemberOf("contentBlockIndex")
	mBytes        = model.FirstMemberOf("bytes")
	mConverseStop = model.MemberOf("stopReason")
	mDelta        = model.MemberOf("delta")
	mMessage      = model.MemberOf("message")
	mStart        = model.MemberOf("start")
	mType         = model.MemberOf("type")
)
