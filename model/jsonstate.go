package model

import (
	"errors"
	"fmt"

	"github.com/streamtap/streamtap/model/jsonscan"
)

// JSONState says how far assembled arguments are from being JSON.
type JSONState struct {
	// Complete: the text is one valid JSON value.
	Complete bool
	// Empty: nothing assembled (a tool with no parameters, or nothing yet).
	Empty bool
	// Incomplete: the text is a valid prefix that more fragments could
	// complete (only reported while the call is still open).
	Incomplete bool
	// Offset of the first byte that no continuation could make valid, when
	// neither complete nor incomplete.
	Offset int
	Msg    string
}

// ArgsState judges assembled arguments. final says whether more
// fragments can still come: a valid prefix of a finished call is invalid.
func ArgsState(b []byte, final bool) JSONState {
	if len(b) == 0 {
		return JSONState{Empty: true}
	}
	err := jsonscan.Validate(b)
	if err == nil {
		return JSONState{Complete: true}
	}
	var se *jsonscan.SyntaxError
	if errors.As(err, &se) {
		if se.EOF && !final {
			return JSONState{Incomplete: true, Offset: se.Offset}
		}
		return JSONState{Offset: se.Offset, Msg: se.Msg}
	}
	return JSONState{Msg: err.Error()}
}

func (j JSONState) String() string {
	switch {
	case j.Complete:
		return "complete"
	case j.Empty:
		return "empty"
	case j.Incomplete:
		return "incomplete"
	}
	return fmt.Sprintf("invalid at offset %d", j.Offset)
}
