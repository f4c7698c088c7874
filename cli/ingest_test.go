package cli

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/ingest"
	"github.com/streamtap/streamtap/internal/fixtures"
	"github.com/streamtap/streamtap/samples"
)

// hugeEventStream is a Responses call whose one delta is larger than
// ingest.LendAbove, so the pipelined reader hands it over without a copy.
func hugeEventStream() string {
	args := `{\"blob\":\"` + strings.Repeat("x", ingest.LendAbove+1000) + `\"}`
	return `data: {"type":"response.output_item.added","sequence_number":0,"output_index":0,"item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"put","arguments":""}}

data: {"type":"response.function_call_arguments.delta","sequence_number":1,"item_id":"fc_1","output_index":0,"delta":"` + args + `"}

data: {"type":"response.function_call_arguments.done","sequence_number":2,"item_id":"fc_1","output_index":0,"arguments":"` + args + `"}

data: {"type":"response.completed","sequence_number":3,"response":{"id":"r","status":"completed","output":[]}}

`
}

// TestPipelinedIngestMatchesSequential runs every headless command over
// every sample, every real capture and some bad input with the pipelined
// reader (two Ps) and the sequential one (one P), and wants the same bytes.
// -short leaves the real captures out (most of its time). It changes
// GOMAXPROCS, so it does not run in parallel.
func TestPipelinedIngestMatchesSequential(t *testing.T) {
	inputs := map[string]string{
		"huge event": hugeEventStream(),
		"chat":       chatStream,
		"bad input":  "data: {\"a\":\n\ndata: not json\n\n\x00\xff: x\n\ndata: [1,2]\n\ndata: {\"type\":\"response.created\"",
		"empty":      "",
		"http error": "HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\n\r\n{\"error\":{\"message\":\"bad key\"}}",
	}
	for _, s := range samples.List() {
		data, err := samples.Open(s.Name)
		if err != nil {
			t.Fatal(err)
		}
		inputs["sample "+s.Name] = string(data)
	}
	caps := fixtures.SharedGlob("captures/*.sse") // absent beside a bare checkout: the rest still runs
	if testing.Short() {
		caps = nil
	}
	for _, name := range caps {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		inputs["capture "+filepath.Base(name)] = string(data)
	}
	commands := [][]string{{"calls", "--json"}, {"calls"}, {"events"}, {"check", "--json"}, {}}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for name, content := range inputs {
		file := writeTemp(t, "in.sse", content)
		for _, cmd := range commands {
			args := append(append([]string{}, cmd...), file)
			runtime.GOMAXPROCS(1)
			wantCode, wantOut, wantErr := runCLI(t, nil, args...)
			runtime.GOMAXPROCS(2)
			code, out, errOut := runCLI(t, nil, args...)
			if code != wantCode || out != wantOut || errOut != wantErr {
				t.Errorf("%s: streamtap %s: pipelined gives %d %q %q; sequential %d %q %q", name, strings.Join(cmd, " "),
					code, clip(out), clip(errOut), wantCode, clip(wantOut), clip(wantErr))
			}
		}
	}
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}
