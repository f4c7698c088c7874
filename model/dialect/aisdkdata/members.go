package aisdkdata

import "github.com/streamtap/streamtap/model"

// The members of the parts' object values the dialect reads, recorded by
// the core's one scan of each line (see model.MemberOf); the core records
// them only for an object value.
var (
	mToolCallID    = model.MemberOf("toolCallId")
	mToolName      = model.MemberOf("toolName")
	mArgsTextDelta = model.MemberOf("argsTextDelta")
	mArgs          = model.MemberOf("args")
	mResult        = model.MemberOf("result")
	mFinishReason  = model.MemberOf("finishReason")
	mMessageID     = model.MemberOf("messageId")
	mSignature     = model.MemberOf("signature")
	mData          = model.MemberOf("data")
	mMimeType      = model.MemberOf("mimeType")
	mURL           = model.MemberOf("url")
)
