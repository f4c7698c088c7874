package model

// CallsReport is the `streamtap calls --json` document. Scripts rely on its
// shape: fields may be added, never renamed or removed.
type CallsReport struct {
	Dialect  string        `json:"dialect"`
	Dialects []string      `json:"dialects,omitempty"` // when the stream mixes several
	Calls    []CallReport  `json:"calls"`
	Text     any           `json:"text"` // a string, or one string per choice
	Outcome  OutcomeReport `json:"outcome"`
}

// CallReport is one assembled call.
type CallReport struct {
	// ID is the id a client answers with: Responses call_id, Chat tool-call
	// id, Anthropic tool_use id, Gemini functionCall id; null when absent.
	ID        *string `json:"id"`
	Name      string  `json:"name"`
	Arguments string  `json:"arguments"`
	Kind      string  `json:"kind"`
	Status    string  `json:"status"`
	ItemID    string  `json:"item_id,omitempty"`
	Choice    int     `json:"choice"`
	Index     int     `json:"index"`
	// Sources lists every statement of the final arguments, only when they
	// disagree: item_done, arguments_done, terminal, deltas.
	Sources map[string]string `json:"sources,omitempty"`
	// ArgumentsJSON is "complete", "empty", or "invalid at offset N".
	ArgumentsJSON string `json:"arguments_json"`
}

// OutcomeReport is how the stream ended.
type OutcomeReport struct {
	State  string `json:"state"`
	Detail string `json:"detail,omitempty"`
}

// Report builds the calls report of the session as it stands.
func (s *Session) Report() CallsReport {
	rep := CallsReport{Dialect: s.Dialect().String(), Calls: []CallReport{}}
	if ds := s.Dialects(); len(ds) > 1 {
		for _, d := range ds {
			rep.Dialects = append(rep.Dialects, d.String())
		}
	}
	for _, it := range s.Calls() {
		c := CallReport{
			Name: it.Name, Arguments: it.FinalArgs(), Kind: it.Type, Status: s.CallStatus(it),
			ItemID: it.ItemID, Choice: it.Choice, Index: it.Position,
		}
		if it.CallID != "" {
			id := it.CallID
			c.ID = &id
		}
		if src, differ := it.SourcesDisagree(); differ {
			c.Sources = src
		}
		c.ArgumentsJSON = ArgsState([]byte(c.Arguments), true).String()
		rep.Calls = append(rep.Calls, c)
	}
	texts := s.Texts()
	if len(texts) == 1 {
		rep.Text = texts[0]
	} else {
		rep.Text = texts
	}
	o := s.Outcome()
	rep.Outcome = OutcomeReport{State: o.State, Detail: o.Detail}
	return rep
}
