package checks

import "github.com/streamtap/streamtap/model"

// OutcomeFails reports whether a stream that ended with outcome state
// fails `streamtap check` by default: it gave no usable answer. An error,
// a failed response, a refusal or a filter (blocked), a stream cut before
// the model finished (truncated) and one with no event fail; a completed
// answer, one the model stopped at a limit (incomplete: its output so far
// arrived, and the limit is the client's setting) and a WebSocket that
// carried no response pass. --allow-outcome lets a failing one pass.
func OutcomeFails(state string) bool {
	switch state {
	case model.OutcomeError, model.OutcomeFailed, model.OutcomeBlocked, model.OutcomeTruncated, model.OutcomeEmpty, model.OutcomeNotAStream:
		return true
	}
	return false
}
