package checks

import (
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

// archiveSession is one exchange of a real cassette: its request and the
// stream that answered it, modelled with a Checker given the request.
type archiveSession struct {
	name string
	s    *model.Session
	c    *Checker
	req  *model.Request
}

// archiveSessions reads every cassette of testdata/requests and of
// capture/testdata/import whose exchanges carry a JSON request, and
// models each exchange against req(its request).
func archiveSessions(t *testing.T, req func(*model.Request) *model.Request) []archiveSession {
	t.Helper()
	root := projectRoot(t)
	files, _ := filepath.Glob(filepath.Join(root, "model", "checks", "testdata", "requests", "*.yaml"))
	more, _ := filepath.Glob(filepath.Join(root, "capture", "testdata", "import", "*.yaml"))
	var out []archiveSession
	for _, path := range append(files, more...) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		ar, err := capture.ReadArchive(data, capture.FormatAuto, capture.ArchiveOptions{})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
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
			opts, c := Attach(model.Options{})
			given := req(&r)
			c.SetRequest(given)
			s := model.NewSession(opts)
			err := e.Source("x").Read(t.Context(), capture.ReadOptions{}, func(f *capture.Frame) error {
				s.Add(f)
				return nil
			})
			s.End(err)
			out = append(out, archiveSession{name: filepath.Base(path) + " #" + strconv.Itoa(i+1), s: s, c: c, req: given})
		}
	}
	return out
}

// TestRequestRulesOnRealArchives runs the request rules over real
// request/stream pairs: none of them is a defect, so none may fire. The
// run is not vacuous: the calls are judged (validated against their
// schemas or grammars), and the same streams held to an empty request
// fire request/tool-undeclared for every client call.
func TestRequestRulesOnRealArchives(t *testing.T) {
	t.Parallel()
	sessions := archiveSessions(t, func(r *model.Request) *model.Request { return r })
	if len(sessions) < 8 {
		t.Fatalf("%d exchanges with requests; want the cassettes' (at least 8)", len(sessions))
	}
	validated, server := 0, 0
	for _, a := range sessions {
		for _, f := range a.c.Report(a.s, Strict).Findings {
			if strings.HasPrefix(f.Rule, "request/") {
				t.Errorf("%s: %s %v: %s; want no request finding on a real exchange", a.name, f.Rule, f.Events, f.Message)
			}
		}
		validated += len(a.c.req.verdicts)
		for _, it := range a.s.Calls() {
			if serverCall(it) {
				server++
			}
		}
	}
	t.Logf("%d exchanges, %d calls validated, %d server calls", len(sessions), validated, server)
	if validated < 5 {
		t.Errorf("%d calls validated; want the cassettes' function and custom calls (at least 5)", validated)
	}
	if server < 3 {
		t.Errorf("%d server calls seen; want the code execution and MCP ones (at least 3)", server)
	}

	undeclared := 0
	for _, a := range archiveSessions(t, func(*model.Request) *model.Request { return &model.Request{Parsed: true} }) {
		undeclared += len(findings(a.c.Report(a.s, Strict), qUndeclared))
	}
	if undeclared < 5 {
		t.Errorf("%d undeclared findings against an empty request; want one per client call (at least 5)", undeclared)
	}
}
