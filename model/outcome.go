package model

// This file holds the outcome vocabulary: the words Session.Outcome tells
// how a stream ended with, the same for every dialect, and how each
// dialect's finish or stop reasons map onto them.

// The outcomes of a stream (Outcome.State). A dialect's terminal event
// sets its response's status to one of the first four (Response.Status);
// a dialect whose terminal event carries a finish or stop reason instead
// maps the reason with an outcome hook (FinishOutcomer); the other words
// are decided by the session: an error, no terminal event, nothing at all.
const (
	// OutcomeCompleted: the model finished its answer (a natural stop, a
	// stop sequence, a tool call).
	OutcomeCompleted = "completed"
	// OutcomeIncomplete: the model stopped at a limit (max_tokens, the
	// context window) with its output so far delivered.
	OutcomeIncomplete = "incomplete"
	// OutcomeBlocked: a refusal or a safety or content filter withheld the
	// answer or the prompt; the reason is the detail.
	OutcomeBlocked = "blocked"
	// OutcomeFailed: the response says it failed (Responses'
	// response.failed).
	OutcomeFailed = "failed"
	// OutcomeError: an error payload or an HTTP error status.
	OutcomeError = "error"
	// OutcomeTruncated: the stream ended before the model finished:
	// without its terminal event, or cut mid-event.
	OutcomeTruncated = "truncated"
	// OutcomeEmpty: the stream ended without an event.
	OutcomeEmpty = "empty"
	// OutcomeClosed: a connection that switched protocols (a WebSocket)
	// and carried no response.
	OutcomeClosed = "closed"
	// OutcomeNotAStream: the input holds data, but no event of it is one
	// of a known dialect: not an LLM stream at all (a text file, an HTML
	// error page), which "truncated" misnamed.
	OutcomeNotAStream = "not-a-stream"
	// OutcomeStreaming: the stream has not ended yet.
	OutcomeStreaming = "streaming"
)

// Outcomes lists the outcomes a finished stream can have, in the order
// reports and help list them (OutcomeStreaming is not one: it is the
// state of a stream still being read).
func Outcomes() []string {
	return []string{OutcomeCompleted, OutcomeIncomplete, OutcomeBlocked, OutcomeFailed, OutcomeError,
		OutcomeTruncated, OutcomeEmpty, OutcomeClosed, OutcomeNotAStream}
}

// PromptChoice is the choice under which a response's Finish holds a
// reason the prompt itself was refused for (Gemini's
// promptFeedback.blockReason), which no candidate answers: a response
// blocked so has no candidate at all.
const PromptChoice = -1

// outcomeRank orders the outcomes a finish reason can lead to: the worst
// choice of a response tells its outcome. A reason may say the response
// was cut (the AI SDK's finish reason "interrupted": its provider's stream
// ended without its terminal event) or failed ("error"), though the
// terminal event that carries it came.
func outcomeRank(state string) int {
	switch state {
	case OutcomeError:
		return 4
	case OutcomeTruncated:
		return 3
	case OutcomeBlocked:
		return 2
	case OutcomeIncomplete:
		return 1
	}
	return 0
}

// finished returns the outcome of response r, ended by its terminal
// event (or complete without it) with status state, and its detail: its
// finish reasons, mapped by the dialect's hook, may tell a worse end than
// the status (a Chat completion "completed" at [DONE] whose finish_reason
// was "length" is incomplete). The detail is the reason that decided it,
// else choice 0's last reason.
func (r *Response) finished(state string) (string, string) {
	detail := r.FinishOf(0).Last()
	fo, _ := byDialect[r.Dialect].(FinishOutcomer)
	worst, why := "", ""
	for _, cf := range r.Finish {
		reason := cf.Reasons.Last()
		o := ""
		switch {
		case cf.Choice == PromptChoice:
			o, reason = OutcomeBlocked, "prompt: "+reason
		case fo != nil:
			o = fo.FinishOutcome(reason)
		}
		if outcomeRank(o) > outcomeRank(worst) {
			worst, why = o, reason
		}
	}
	if (state == OutcomeCompleted || state == OutcomeIncomplete) && outcomeRank(worst) > outcomeRank(state) {
		return worst, why
	}
	if state == OutcomeIncomplete && worst == OutcomeIncomplete {
		return state, why
	}
	return state, detail
}
