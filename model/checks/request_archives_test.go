package checks_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/internal/fixtures"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
	"github.com/streamtap/streamtap/model/internal/dialecttest"
)

// exchanges reads every cassette of testdata/requests and of
// capture/testdata/import whose exchanges carry a JSON request, and
// models each exchange against req(its request).
func exchanges(t *testing.T, req func(*model.Request) *model.Request) []dialecttest.Exchange {
	t.Helper()
	files, _ := filepath.Glob(fixtures.Path("model/checks/testdata/requests/*.yaml"))
	more, _ := filepath.Glob(fixtures.Path("capture/testdata/import/*.yaml"))
	var out []dialecttest.Exchange
	for _, path := range append(files, more...) {
		out = append(out, dialecttest.Exchanges(t, path, req)...)
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
	sessions := exchanges(t, func(r *model.Request) *model.Request { return r })
	if len(sessions) < 8 {
		t.Fatalf("%d exchanges with requests; want the cassettes' (at least 8)", len(sessions))
	}
	validated, server := 0, 0
	for _, a := range sessions {
		for _, f := range a.C.Report(a.S, checks.Strict).Findings {
			if strings.HasPrefix(f.Rule, "request/") {
				t.Errorf("%s: %s %v: %s; want no request finding on a real exchange", a.Name, f.Rule, f.Events, f.Message)
			}
		}
		validated += checks.Validated(a.C)
		for _, it := range a.S.Calls() {
			if checks.ServerCall(it) {
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
	for _, a := range exchanges(t, func(*model.Request) *model.Request { return &model.Request{Parsed: true} }) {
		undeclared += len(dialecttest.Findings(a.C.Report(a.S, checks.Strict), checks.QUndeclared))
	}
	if undeclared < 5 {
		t.Errorf("%d undeclared findings against an empty request; want one per client call (at least 5)", undeclared)
	}
}
