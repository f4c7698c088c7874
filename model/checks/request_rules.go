package checks

// Rule ids of the rules that need the request the stream answers (see
// Checker.SetRequest). They judge every dialect alike; without a request
// they stay silent.
const (
	qArgsSchema    = "request/args-schema"
	qSchemaInvalid = "request/schema-invalid"
	qUndeclared    = "request/tool-undeclared"
	qTypeMismatch  = "request/tool-type-mismatch"
	qChoice        = "request/tool-choice-violated"
	qParallel      = "request/parallel-disabled"
)

// requestRules are the rules that hold calls to the request's tools,
// tool_choice and parallel flag.
var requestRules = []Rule{
	NewRule(qArgsSchema, Error, Error, "a call's final arguments fail its tool's JSON Schema, or a custom tool's input its regex grammar (warning when the tool is not strict)"),
	NewRule(qSchemaInvalid, Info, Info, "a called tool's schema does not compile, so its calls are not validated"),
	NewRule(qUndeclared, Warning, Warning, "a call names a tool the request does not declare"),
	NewRule(qTypeMismatch, Warning, Warning, "a custom tool called as a function (function_call), or a function tool as a custom tool"),
	NewRule(qChoice, Error, Warning, `tool_choice violated: calls under "none", none under "required"/"any"/a named tool, or a call outside the named or allowed tools`),
	NewRule(qParallel, Error, Warning, "parallel calls disabled (parallel_tool_calls: false, disable_parallel_tool_use) but several calls in one response"),
}
