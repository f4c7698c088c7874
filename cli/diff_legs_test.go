package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/streamtap/streamtap/samples"
)

// recordingOf writes sample as a timed recording started at start, its
// events at 10 ms apart from at (seconds after start).
func recordingOf(t *testing.T, dir, name, sample string, start time.Time, at float64) string {
	t.Helper()
	data, err := samples.Open(sample)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString(": streamtap-recording v1\n: started " + start.UTC().Format(time.RFC3339Nano) + "\n: request POST http://up/v1\n: response HTTP/1.1 200 OK\n: response-header Content-Type: text/event-stream\n\n")
	for i, ev := range strings.Split(strings.TrimSuffix(string(data), "\n\n"), "\n\n") {
		b.WriteString(ev + "\n: t=" + strconv.FormatFloat(at+float64(i)*0.01, 'f', 6, 64) + "\n\n")
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDiffLegs: the provider's side of `diff PROVIDER… APP` is files, a
// folder of recordings (the app's own recording and those that started
// outside its stream left out, the rest in the order they started) or an
// archive of several sessions; each stream is one step, and the report
// lists them.
func TestDiffLegs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	t0 := time.Date(2026, 12, 6, 5, 0, 0, 0, time.UTC)
	app := recordingOf(t, dir, "a-app.sse", "chat-parallel-calls", t0, 0.5) // streams from 0.5 s to about 0.8 s
	// Named against their order: the folder is read in the order they started.
	recordingOf(t, dir, "b-step2.sse", "chat-single-call", t0.Add(600*time.Millisecond), 0.1)
	recordingOf(t, dir, "c-step1.sse", "chat-parallel-calls", t0.Add(100*time.Millisecond), 0.1)
	recordingOf(t, dir, "d-later.sse", "responses-single-call", t0.Add(time.Minute), 0.1)
	code, out, errOut := runDiffArgs(t, nil, "--json", dir, app)
	if code != 1 || errOut != "" {
		t.Fatalf("diff DIR APP = %d, stderr %q; want 1 (a second step the app lacks)\n%s", code, errOut, out)
	}
	var res struct {
		Mode      string `json:"mode"`
		ASessions []struct {
			Name string `json:"name"`
		} `json:"a_sessions"`
		Steps []struct {
			Step int              `json:"step"`
			A    *json.RawMessage `json:"a"`
			B    *json.RawMessage `json:"b"`
		} `json:"steps"`
		Counts map[string]int `json:"counts"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.ASessions) != 2 || !strings.HasSuffix(res.ASessions[0].Name, "c-step1.sse") || !strings.HasSuffix(res.ASessions[1].Name, "b-step2.sse") {
		t.Errorf("a_sessions %+v; want c-step1.sse then b-step2.sse (the app's own file and d-later.sse left out)", res.ASessions)
	}
	if res.Mode != "semantic" || len(res.Steps) != 2 || res.Counts["step"] != 1 || len(res.Counts) != 1 {
		t.Errorf("mode %q, %d steps, counts %v; want semantic, 2 steps, the second only in A\n%s", res.Mode, len(res.Steps), res.Counts, out)
	}
	// The same as files, in the order given: equivalent for the one step.
	step1 := filepath.Join(dir, "c-step1.sse")
	if code, out, _ := runDiffArgs(t, nil, step1, app); code != 0 {
		t.Errorf("diff STEP1 APP = %d; want 0\n%s", code, out)
	}
	// The text report names each stream and the steps.
	code, out, _ = runDiffArgs(t, nil, step1, filepath.Join(dir, "b-step2.sse"), app)
	for _, want := range []string{"A  2 streams: openai-chat", "   A1  " + step1, "steps (one model call each", "step 2   A2#0–#", "step       A2#"} {
		if !strings.Contains(out, want) {
			t.Errorf("diff STEP1 STEP2 APP = %d; the report lacks %q:\n%s", code, want, out)
		}
	}
}

// TestDiffLegsArchive: an archive of several sessions before the app's
// stream is the provider's steps, one session each.
func TestDiffLegsArchive(t *testing.T) {
	t.Parallel()
	code, out, errOut := runDiffArgs(t, nil, archiveFixture, "sample:anthropic-text-then-tool")
	if code != 1 || errOut != "" || !strings.Contains(out, "A  2 streams: anthropic") || !strings.Contains(out, "session 2: anthropic") {
		t.Errorf("diff ARCHIVE APP = %d, stderr %q:\n%s", code, errOut, out)
	}
}

// TestDiffFolderLast: a folder is the provider's streams, before the
// app's one stream; as the last operand (or --diff's) it is refused in a
// line that says so.
func TestDiffFolderLast(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, _, errOut := runDiffArgs(t, nil, "sample:chat-single-call", dir)
	if code != 2 || !strings.Contains(errOut, "B: "+dir+" is a folder: compare it as the provider's streams of an app's turn, before the app's one stream") {
		t.Errorf("diff STREAM DIR = %d, stderr %q", code, errOut)
	}
}
