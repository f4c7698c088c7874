package gemini

import "github.com/streamtap/streamtap/model"

// The top-level members the dialect reads, recorded by the core's one
// scan of each event (see model.MemberOf).
var (
	mCandidates     = model.MemberOf("candidates")
	mPromptFeedback = model.MemberOf("promptFeedback")
	mUsageMeta      = model.MemberOf("usageMetadata")
)
