package mcp_test

// Registers every dialect for the package's tests (see model/dialects).
import _ "github.com/streamtap/streamtap/model/dialects"
