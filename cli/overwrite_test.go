package cli

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestSaveRefusesToOverwrite: every flag that writes a file (--save,
// --save-timed, --save-har, of the reading commands, request and the
// proxy) refuses a file that holds something, naming it and --force,
// before anything is read or sent, and leaves it as it was; --force
// overwrites it; an empty file and /dev/null are written without it; the
// input itself is refused even with --force. Before, each was
// overwritten without a word.
func TestSaveRefusesToOverwrite(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", sseType)
		io.WriteString(w, chatStream)
	}))
	defer srv.Close()
	in := writeTemp(t, "in.sse", chatStream)
	const old = "data: an earlier capture, worth keeping\n\n"
	type run struct {
		args func(out string) []string
		flag string
	}
	runs := []run{
		{func(out string) []string { return []string{"calls", in, "--save", out} }, "--save"},
		{func(out string) []string { return []string{"events", in, "--save-timed", out} }, "--save-timed"},
		{func(out string) []string { return []string{"timeline", in, "--save-har", out} }, "--save-har"},
		{func(out string) []string { return []string{"check", in, "--save-har", out} }, "--save-har"},
		{func(out string) []string { return []string{"request", srv.URL + "/v1/chat", "--save", out} }, "--save"},
		{func(out string) []string { return []string{"request", srv.URL + "/v1/chat", "--save-timed", out} }, "--save-timed"},
		{func(out string) []string {
			return []string{"proxy", "--no-tui", "--upstream", srv.URL, "--listen", "127.0.0.1:0", "--save-har", out}
		}, "--save-har"},
	}
	for _, r := range runs {
		name := strings.Join(r.args("OUT")[:1], " ") + " " + r.flag
		out := writeTemp(t, "out", old)
		before := hits.Load()
		code, _, errs := runCLI(t, nil, r.args(out)...)
		if code != 2 || !strings.Contains(errs, r.flag+" "+out+": the file exists") || !strings.Contains(errs, "add --force to overwrite it") {
			t.Errorf("%s over a file: exit %d, stderr %q; want 2 and the file and --force named", name, code, errs)
		}
		if data, _ := os.ReadFile(out); string(data) != old {
			t.Errorf("%s over a file: it now holds %q", name, data)
		}
		if hits.Load() != before {
			t.Errorf("%s over a file sent the request all the same", name)
		}
		if r.args("")[0] == "proxy" {
			continue // it would run until stopped: its refusal is what counts
		}
		code, _, errs = runCLI(t, nil, append(r.args(out), "--force")...)
		if data, _ := os.ReadFile(out); code != 0 || string(data) == old || len(data) == 0 {
			t.Errorf("%s --force: exit %d (%s), the file holds %.80q; want it overwritten", name, code, errs, data)
		}
		empty := filepath.Join(t.TempDir(), "empty")
		os.WriteFile(empty, nil, 0o644)
		for _, to := range []string{empty, os.DevNull} {
			if code, _, errs := runCLI(t, nil, r.args(to)...); code != 0 {
				t.Errorf("%s to %s: exit %d %s", name, to, code, errs)
			}
		}
	}
	for _, flag := range []string{"--save", "--save-timed", "--save-har"} {
		code, _, errs := runCLI(t, nil, "calls", in, flag, in, "--force")
		if code != 2 || !strings.Contains(errs, "is also the input: it would be overwritten") {
			t.Errorf("calls IN %s IN --force: exit %d, %q; want the input refused", flag, code, errs)
		}
		if data, _ := os.ReadFile(in); string(data) != chatStream {
			t.Fatalf("the input was overwritten by %s", flag)
		}
	}
}
