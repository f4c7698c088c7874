package mcp

import "github.com/streamtap/streamtap/model"

// The top-level members of a JSON-RPC message, recorded by the core's one
// scan of each event (see model.MemberOf).
var (
	mJSONRPC = model.MemberOf("jsonrpc")
	mMethod  = model.MemberOf("method")
	mID      = model.MemberOf("id")
	mParams  = model.MemberOf("params")
	mResult  = model.MemberOf("result")
	mError   = model.MemberOf("error")
)
