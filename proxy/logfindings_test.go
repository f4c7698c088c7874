package proxy

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/streamtap/streamtap/model/checks"
)

// TestLogLineFindings: the log line (--no-tui) counts the session's
// findings by severity and names the worst rule, as check grades them
// (strict), with the rules the user changed (Options.Rules) applied; a
// clean stream says nothing of findings.
func TestLogLineFindings(t *testing.T) {
	t.Parallel()
	var lowered checks.Config
	if err := lowered.SetSeverity("responses/text-done-mismatch", checks.Warning); err != nil {
		t.Fatal(err)
	}
	var off checks.Config
	if err := off.Disable("responses/*"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, sample string
		rules        checks.Config
		want         string // the findings and worst keys, or "" for none
	}{
		{"error and info", "broken-sequence-gap", checks.Config{}, "findings=1err,1info worst=responses/text-done-mismatch"},
		{"warning", "broken-cut-before-terminal", checks.Config{}, "findings=1err,1warn worst=responses/no-terminal"},
		{"regraded", "broken-sequence-gap", lowered, "findings=1warn,1info worst=responses/text-done-mismatch"},
		{"disabled", "broken-sequence-gap", off, ""},
		{"clean", "chat-single-call", checks.Config{}, ""},
	}
	up := slowUpstream(t, 1<<20, 0, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			proxyURL, done, logs := startProxy(t, up.URL, func(o *Options) { o.Rules = tt.rules })
			// No request body: the request rules would judge the calls
			// against a request that declares no tools.
			resp, err := rawClient.Post(proxyURL+"/v1/responses?sample="+tt.sample, "application/json", strings.NewReader(""))
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			waitSession(t, done)
			line := logs.String()
			got := strings.Join(regexp.MustCompile(`\b(findings|worst)=\S+`).FindAllString(line, -1), " ")
			if got != tt.want {
				t.Errorf("log line has %q; want %q:\n%s", got, tt.want, line)
			}
		})
	}
}

// TestLogLineFindingsFailedExchange: an exchange that got no response has
// no stream to check, so its line names no findings.
func TestLogLineFindingsFailedExchange(t *testing.T) {
	t.Parallel()
	proxyURL, done, logs := startProxy(t, "http://127.0.0.1:1", func(o *Options) { o.HeadTimeout = time.Second })
	resp, err := rawClient.Post(proxyURL+"/v1/responses", "application/json", strings.NewReader(`{}`))
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Fatalf("status %d from a dead upstream", resp.StatusCode)
		}
	}
	waitSession(t, done)
	if strings.Contains(logs.String(), "findings=") {
		t.Errorf("a failed exchange has findings:\n%s", logs.String())
	}
}
