package anthropic

import "github.com/streamtap/streamtap/model"

// The top-level members the dialect reads, recorded by the core's one
// scan of each event (see model.MemberOf).
var (
	mContent      = model.MemberOf("content")
	mContentBlock = model.MemberOf("content_block")
	mDelta        = model.MemberOf("delta")
	mError        = model.MemberOf("error")
	mID           = model.MemberOf("id")
	mIndex        = model.MemberOf("index")
	mMessage      = model.MemberOf("message")
	mModel        = model.MemberOf("model")
	mSeq          = model.MemberOf("sequence_number")
	mType         = model.MemberOf("type")
	mStopReason   = model.MemberOf("stop_reason")
)
