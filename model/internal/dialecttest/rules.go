package dialecttest

import (
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
)

// Case is one stream for one rule: a trigger (Hit) or a near miss that
// must not fire it (Miss).
type Case struct {
	Rule   string
	Name   string
	Stream string
	Hit    bool
	Events []int            // for a hit, when set: the events of the rule's first finding
	Sev    *checks.Severity // for a hit, when set: its severity under the strict profile
	// Request, when set, is the body of the request the stream answers
	// (Checker.SetRequest).
	Request string
	// Earlier, when set, is the exchange the stream continues
	// (model.Session.SetEarlier: an MCP GET that resumes a stream).
	Earlier *model.Earlier
}

// Hit is a case whose stream fires rule, its first finding citing
// events when they are given.
func Hit(rule, name, stream string, events ...int) Case {
	return Case{Rule: rule, Name: name, Stream: stream, Hit: true, Events: events}
}

// Miss is a case whose stream must not fire rule.
func Miss(rule, name, stream string) Case {
	return Case{Rule: rule, Name: name, Stream: stream}
}

// WithRequest gives a case the request its stream answers.
func WithRequest(tc Case, req string) Case {
	tc.Request = req
	return tc
}

// Sev is a pointer to s, for Case.Sev.
func Sev(s checks.Severity) *checks.Severity { return &s }

// Check checks a case's stream under the strict profile, with its request
// when it has one, and returns the report and the stream's events.
func Check(tc Case) (rep checks.Report, events int) {
	var mo model.Options
	if tc.Earlier != nil {
		mo.Earlier = *tc.Earlier
	}
	opts, c := checks.Attach(mo)
	if tc.Request != "" {
		r := model.ParseRequest([]byte(tc.Request), "/")
		c.SetRequest(&r)
	}
	s := model.Assemble([]byte(tc.Stream), capture.FormatAuto, opts)
	return c.Report(s, checks.Strict), s.Len()
}

// CheckWithRequest checks a stream against the request body req.
func CheckWithRequest(stream, req string, p checks.Profile) checks.Report {
	opts, c := checks.Attach(model.Options{})
	r := model.ParseRequest([]byte(req), "/")
	c.SetRequest(&r)
	s := model.Assemble([]byte(stream), capture.FormatAuto, opts)
	return c.Report(s, p)
}

// CheckOrder holds a report of a stream of n events to what every report
// keeps (the checks' FuzzCheck holds any input to the same): each finding
// has a message and at most checks.MaxEvents events, in order, inside the
// stream, its key among them, and findings come in order of severity.
func CheckOrder(t *testing.T, rep checks.Report, n int) {
	t.Helper()
	for i, x := range rep.Findings {
		if x.Message == "" || !slices.IsSorted(x.Events) || len(x.Events) > checks.MaxEvents {
			t.Fatalf("finding %d %v: want a message and at most %d events in order", i, x, checks.MaxEvents)
		}
		if len(x.Events) > 0 && (x.Events[0] < 0 || x.Events[len(x.Events)-1] >= n) {
			t.Fatalf("finding %d %v cites an event outside the stream's %d", i, x, n)
		}
		if k := x.Key(); len(x.Events) > 0 && !slices.Contains(x.Events, k) {
			t.Fatalf("finding %d %v: key %d is not one of its events", i, x, k)
		}
		if i > 0 && x.Severity > rep.Findings[i-1].Severity {
			t.Fatalf("finding %d (%s) after a %s one", i, x.Severity, rep.Findings[i-1].Severity)
		}
	}
}

// Findings are the findings of rule in r.
func Findings(r checks.Report, rule string) []checks.Finding {
	var out []checks.Finding
	for _, f := range r.Findings {
		if f.Rule == rule {
			out = append(out, f)
		}
	}
	return out
}

// Run runs every case as a subtest named rule/hit|miss/name: a hit must
// fire its rule (citing its events, at its severity, when the case says),
// with a message and the events that prove it (unless the stream has
// none: framing/no-data of an empty one); a miss must not. Every report
// is held to CheckOrder.
func Run(t *testing.T, cases []Case) {
	t.Helper()
	for _, tc := range cases {
		kind := "miss"
		if tc.Hit {
			kind = "hit"
		}
		t.Run(tc.Rule+"/"+kind+"/"+tc.Name, func(t *testing.T) {
			t.Parallel()
			rep, n := Check(tc)
			CheckOrder(t, rep, n)
			got := Findings(rep, tc.Rule)
			if !tc.Hit {
				if len(got) > 0 {
					t.Fatalf("Check(%s) = %v; want no %s finding", tc.Name, got, tc.Rule)
				}
				return
			}
			if len(got) == 0 {
				t.Fatalf("Check(%s) has no %s finding; got %v\nstream:\n%s", tc.Name, tc.Rule, rep.Findings, tc.Stream)
			}
			if tc.Events != nil && !slices.Equal(got[0].Events, tc.Events) {
				t.Errorf("Check(%s) %s events = %v; want %v (%s)", tc.Name, tc.Rule, got[0].Events, tc.Events, got[0].Message)
			}
			if tc.Sev != nil && got[0].Severity != *tc.Sev {
				t.Errorf("Check(%s) %s severity = %s; want %s", tc.Name, tc.Rule, got[0].Severity, *tc.Sev)
			}
			if got[0].Message == "" {
				t.Errorf("Check(%s) %s has an empty message", tc.Name, tc.Rule)
			}
			if len(got[0].Events) == 0 && n > 0 {
				t.Errorf("Check(%s) %s names no event", tc.Name, tc.Rule)
			}
		})
	}
}

// EveryRuleTested holds a dialect's cases to the promise that every one
// of its rules has a stream that triggers it and a near miss that does
// not, and that every case names a registered rule.
func EveryRuleTested(t *testing.T, rules []checks.Rule, cases []Case) {
	t.Helper()
	hits, misses := map[string]int{}, map[string]int{}
	for _, tc := range cases {
		if _, ok := checks.RuleOf(tc.Rule); !ok {
			t.Errorf("case %s names unknown rule %s", tc.Name, tc.Rule)
		}
		if tc.Hit {
			hits[tc.Rule]++
		} else {
			misses[tc.Rule]++
		}
	}
	for _, r := range rules {
		if hits[r.ID] == 0 {
			t.Errorf("rule %s has no triggering test stream", r.ID)
		}
		if misses[r.ID] == 0 {
			t.Errorf("rule %s has no near-miss test stream", r.ID)
		}
	}
}

// Exchange is one exchange of a real cassette: its request and the
// stream that answered it, modelled with a Checker given the request.
type Exchange struct {
	Name string
	S    *model.Session
	C    *checks.Checker
	Req  *model.Request
}

// Exchanges reads the archive at path and models each of its exchanges
// that carries a JSON request against req(its request), named as
// "file #n".
func Exchanges(t *testing.T, path string, req func(*model.Request) *model.Request) []Exchange {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ar, err := capture.ReadArchive(data, capture.FormatAuto, capture.ArchiveOptions{})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []Exchange
	for i := range ar.Entries {
		e := &ar.Entries[i]
		p := ""
		if u, err := url.Parse(e.URL); err == nil {
			p = u.Path
		}
		r := model.ParseRequest(e.RequestBody, p)
		if !r.Parsed {
			continue
		}
		opts, c := checks.Attach(model.Options{})
		given := req(&r)
		c.SetRequest(given)
		s := model.NewSession(opts)
		err := e.Source("x").Read(t.Context(), capture.ReadOptions{}, func(f *capture.Frame) error {
			s.Add(f)
			return nil
		})
		s.End(err)
		out = append(out, Exchange{Name: filepath.Base(path) + " #" + strconv.Itoa(i+1), S: s, C: c, Req: given})
	}
	return out
}
