package fault

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/streamtap/streamtap/inject"
)

// Step is what one request gets: transport faults, and protocol defects
// applied to the stream it is served.
type Step struct {
	Faults []Fault
	// Inject names protocol defects (package inject), in order.
	Inject []string
}

// IsZero reports whether the step changes nothing.
func (s Step) IsZero() bool { return len(s.Faults) == 0 && len(s.Inject) == 0 }

// status returns the step's Status fault, if any.
func (s Step) status() (Fault, bool) {
	for _, f := range s.Faults {
		if f.Kind == Status {
			return f, true
		}
	}
	return Fault{}, false
}

// Key names the step's defects, so that a server prepares each distinct
// set of defects once.
func (s Step) Key() string { return strings.Join(s.Inject, ",") }

// Plan is what each request gets: request n (from 1) the nth of
// Requests, every request after them Then.
type Plan struct {
	Requests []Step
	Then     Step
}

// For returns request n's step.
func (p Plan) For(n int) Step {
	if n >= 1 && n <= len(p.Requests) {
		return p.Requests[n-1]
	}
	return p.Then
}

// Steps lists the plan's steps that differ in their defects, each once:
// a server prepares one stream for each.
func (p Plan) Steps() []Step {
	out := []Step{p.Then}
	for _, s := range p.Requests {
		if !slices.ContainsFunc(out, func(o Step) bool { return o.Key() == s.Key() }) {
			out = append(out, s)
		}
	}
	return out
}

// IsZero reports whether the plan changes nothing.
func (p Plan) IsZero() bool {
	if !p.Then.IsZero() {
		return false
	}
	for _, s := range p.Requests {
		if !s.IsZero() {
			return false
		}
	}
	return true
}

// PlanOf makes the plan of faults and defects every request gets: a
// status:CODE:K answers the first K requests, which then get nothing
// else (there is no stream to break), and the requests after them get
// the stream with the rest.
func PlanOf(faults []Fault, defects []string) Plan {
	p := Plan{Then: Step{Inject: defects}}
	first := 0
	for _, f := range faults {
		switch f.Kind {
		case Status:
			first = max(first, f.First)
			continue
		case RetryAfter:
			continue // a header of the status answers
		}
		p.Then.Faults = append(p.Then.Faults, f)
	}
	for n := 1; n <= first; n++ {
		var s Step
		for _, f := range faults {
			if f.Kind == Status && f.First >= n || f.Kind == RetryAfter {
				s.Faults = append(s.Faults, f)
			}
		}
		p.Requests = append(p.Requests, s)
	}
	return p
}

// scenarioFile is a scenario as written: YAML, or JSON (which YAML
// reads).
type scenarioFile struct {
	Requests []stepFile `yaml:"requests"`
	Then     stepFile   `yaml:"then"`
}

type stepFile struct {
	Faults []string `yaml:"faults"`
	Inject []string `yaml:"inject"`
}

// ParseScenario reads a scenario file (YAML or JSON):
//
//	requests:            # request 1, 2, … in order
//	  - faults: [status:429, retry-after:2]
//	  - faults: [cut:5]
//	  - inject: [midstream-error]
//	then:                # every request after the list (default: none)
//	  faults: [drip:200]
//
// A status fault in a scenario answers the one request its step is for.
func ParseScenario(data []byte) (Plan, error) {
	var sf scenarioFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&sf); err != nil && !errors.Is(err, io.EOF) {
		return Plan{}, fmt.Errorf("scenario: %w", err)
	}
	var p Plan
	var err error
	for i, s := range sf.Requests {
		st, e := s.step()
		if e != nil {
			return p, fmt.Errorf("scenario: request %d: %w", i+1, e)
		}
		p.Requests = append(p.Requests, st)
	}
	if p.Then, err = sf.Then.step(); err != nil {
		return p, fmt.Errorf("scenario: then: %w", err)
	}
	return p, nil
}

func (s stepFile) step() (Step, error) {
	var st Step
	for _, f := range s.Faults {
		fa, err := Parse(f)
		if err != nil {
			return st, err
		}
		if fa.Kind == Status && fa.First > 1 {
			return st, fmt.Errorf("%s: K is for the command line; a scenario gives each request its own step", f)
		}
		st.Faults = append(st.Faults, fa)
	}
	if len(s.Inject) > 0 {
		if _, err := inject.ParseList(strings.Join(s.Inject, ",")); err != nil {
			return st, err
		}
		st.Inject = s.Inject
	}
	return st, nil
}
