package responses

import "github.com/streamtap/streamtap/model"

// The top-level members the dialect reads, recorded by the core's one
// scan of each event (see model.MemberOf).
var (
	mArguments    = model.MemberOf("arguments")
	mContentIndex = model.MemberOf("content_index")
	mCode         = model.MemberOf("code")
	mDelta        = model.MemberOf("delta")
	mError        = model.MemberOf("error")
	mInput        = model.MemberOf("input")
	mItem         = model.MemberOf("item")
	mItemID       = model.MemberOf("item_id")
	mName         = model.MemberOf("name")
	mObject       = model.MemberOf("object")
	mOutputIndex  = model.MemberOf("output_index")
	mPart         = model.MemberOf("part")
	mRefusal      = model.MemberOf("refusal")
	mResponse     = model.MemberOf("response")
	mSeq          = model.MemberOf("sequence_number")
	mSummaryIndex = model.MemberOf("summary_index")
	mText         = model.MemberOf("text")
	mType         = model.MemberOf("type")
)
