package model

// This file holds steps: the model calls one answer of an application's
// own stream spans. An AI SDK route answers the browser with one UI
// message stream (or v4 data stream) while it makes one provider request
// per step, and says where each step starts and ends (start-step …
// finish-step; f: … e:). Comparing the two legs of one turn (streamdiff)
// lines the provider's recordings up with those steps.

// StepEdge is what an event does to the steps of an answer.
type StepEdge int8

const (
	StepNone  StepEdge = iota // the event neither opens nor closes a step
	StepStart                 // it opens a step (start-step, v4's f:)
	StepEnd                   // it closes the step open (finish-step, v4's e:)
)

// Stepper is the optional hook of a dialect whose one answer spans several
// model calls, each a step (an AI SDK route's UI message stream, v4 data
// stream): StepEdge says what an event of type typ does to them. It judges
// the type alone, so a caller asks it once per type. A dialect without it
// answers one model call per response: each of its responses is a step.
type Stepper interface {
	StepEdge(typ string) StepEdge
}

// Step is one model call of an answer: the events from the one that
// opened it to the one that closed it.
type Step struct {
	First, Last int  // the ordinals of its first and last events
	Closed      bool // an event closed it (else the stream ended, or another step opened, first)
}

// HasSteps reports whether the dialect's answers are made of steps
// (its Protocol is a Stepper).
func (d Dialect) HasSteps() bool {
	_, ok := d.Protocol().(Stepper)
	return ok
}

// StepsOf finds the steps of a stream of n events of dialect d, typeAt
// naming the type of each event (in order, each asked once): a step runs
// from an event that opens one to the one that closes it, or to the event
// before the next opening, or to the end. It returns nil when d has no
// steps (no Stepper) or the stream opens none.
func StepsOf(d Dialect, n int, typeAt func(ord int) string) []Step {
	st, ok := d.Protocol().(Stepper)
	if !ok {
		return nil
	}
	var out []Step
	open := false
	edges := map[string]StepEdge{}
	for ord := range n {
		typ := typeAt(ord)
		e, seen := edges[typ]
		if !seen {
			e = st.StepEdge(typ)
			edges[typ] = e
		}
		switch e {
		case StepStart:
			if open {
				out[len(out)-1].Last = ord - 1
			}
			out = append(out, Step{First: ord, Last: ord})
			open = true
		case StepEnd:
			if open {
				out[len(out)-1].Last, out[len(out)-1].Closed = ord, true
				open = false
			}
		default:
			if open {
				out[len(out)-1].Last = ord
			}
		}
	}
	return out
}
