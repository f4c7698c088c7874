package aisdkui

import "github.com/streamtap/streamtap/model"

// The top-level members the dialect reads, recorded by the core's one
// scan of each chunk (see model.MemberOf).
var (
	mID               = model.MemberOf("id")
	mDelta            = model.MemberOf("delta")
	mToolCallID       = model.MemberOf("toolCallId")
	mToolName         = model.MemberOf("toolName")
	mInputTextDelta   = model.MemberOf("inputTextDelta")
	mInput            = model.MemberOf("input")
	mOutput           = model.MemberOf("output")
	mPreliminary      = model.MemberOf("preliminary")
	mProviderExecuted = model.MemberOf("providerExecuted")
	mDynamic          = model.MemberOf("dynamic")
	mErrorText        = model.MemberOf("errorText")
	mApprovalID       = model.MemberOf("approvalId")
	mApproved         = model.MemberOf("approved")
	mFinishReason     = model.MemberOf("finishReason")
	mMessageID        = model.MemberOf("messageId")
	mReason           = model.MemberOf("reason")
	mData             = model.MemberOf("data")
	mURL              = model.MemberOf("url")
	mMediaType        = model.MemberOf("mediaType")
	mSourceID         = model.MemberOf("sourceId")
	mTitle            = model.MemberOf("title")
	mKind             = model.MemberOf("kind")
	mProviderMetadata = model.MemberOf("providerMetadata")
)
