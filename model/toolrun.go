package model

import "sort"

// This file holds what an application's stream says beyond a provider's:
// the steps of an answer (one model call each) and what became of each
// tool call once the model made it. A provider's stream says neither: its
// client runs the calls and makes the next request. The AI SDK's UI
// message stream and data stream relay several provider responses as one
// message, step by step, with the tools' outputs between them.

// Step is one step of a response made of several model calls: the events
// from its start (the AI SDK's start-step, f:) to its end (finish-step,
// e:). Each step is one provider request.
type Step struct {
	Response int // index in Session.Responses
	Start    int // ordinal of the event that started it
	End      int // ordinal of the event that ended it, or -1 while open
}

// Stepper is the optional method of an Assembly whose responses are made
// of steps: Steps returns the steps of response r (an index in
// Session.Responses) in stream order, nil when it has none. The slice is
// the assembly's: do not modify it.
type Stepper interface {
	Steps(r int) []Step
}

// Steps returns the steps of response r in stream order, or nil when its
// dialect has no steps.
func (s *Session) Steps(r *Response) []Step {
	if r == nil {
		return nil
	}
	if st, ok := s.Assembly(r.Dialect).(Stepper); ok {
		return st.Steps(r.Index)
	}
	return nil
}

// StepOf returns the number (from 1) of the step of its response that
// item it started in, or 0 when it started in none (its dialect has no
// steps, or it came before the first).
func (s *Session) StepOf(it *Item) int {
	if it.Response < 0 || it.Response >= len(s.Responses) {
		return 0
	}
	steps := s.Steps(s.Responses[it.Response])
	at := it.First
	if it.Opened >= 0 {
		at = it.Opened
	}
	i := sort.Search(len(steps), func(i int) bool { return steps[i].Start > at })
	if i == 0 {
		return 0
	}
	if st := steps[i-1]; st.End >= 0 && st.End < at {
		return 0 // between two steps
	}
	return i
}

// The states of a call after the model made it, as the AI SDK names them
// (its UI part states): a call's Status takes them in turn.
const (
	ToolInputAvailable    = "input-available"    // the arguments are whole and valid: the call may run
	ToolInputError        = "input-error"        // the arguments are invalid (or the tool unknown): it does not run
	ToolApprovalRequested = "approval-requested" // it waits for the user's approval
	ToolApprovalResponded = "approval-responded" // the user approved it: it may run
	ToolOutputAvailable   = "output-available"   // it ran and returned an output
	ToolOutputError       = "output-error"       // it ran and failed
	ToolOutputDenied      = "output-denied"      // the user refused it
)

// ToolRun is what became of a call once the model made it, as an
// application's stream tells: who ran it, whether it waited for approval,
// and what it returned. A call's Status says where it stands (the Tool*
// states); a ToolRun holds the values.
type ToolRun struct {
	// ProviderExecuted says the provider ran the tool itself (a web
	// search, code execution, an MCP connector): its output comes in the
	// stream, and the application runs nothing.
	ProviderExecuted bool
	// Dynamic says the tool was not declared with a schema the
	// application knows (the AI SDK's dynamicTool, or a tool the route did
	// not declare).
	Dynamic bool
	// Output is the latest output's JSON value, as the stream carried it
	// (a copy), and OutputAt the event that carried it, or -1.
	Output   []byte
	OutputAt int
	// Preliminary counts the outputs marked preliminary before the final
	// one (an async generator's yields).
	Preliminary int
	// Error is the error text of an invalid input or a failed run.
	Error string
	// ApprovalID names the approval the call waits for.
	ApprovalID string
}

// Run returns the call's ToolRun, or nil when its stream told nothing of
// what became of it.
func (it *Item) Run() *ToolRun {
	if it.ext == nil {
		return nil
	}
	return it.ext.run
}

// RunOf returns the call's ToolRun, making it on first use.
func (it *Item) RunOf() *ToolRun {
	x := it.extra()
	if x.run == nil {
		x.run = &ToolRun{OutputAt: -1}
	}
	return x.run
}

// SetOutput records the call's output v (a JSON value), carried by event
// ord; preliminary says more will follow.
func (r *ToolRun) SetOutput(v []byte, ord int, preliminary bool) {
	r.Output = append(r.Output[:0], v...)
	r.OutputAt = ord
	if preliminary {
		r.Preliminary++
	}
}
