package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/internal/fixtures"
	"github.com/streamtap/streamtap/samples"
	"github.com/streamtap/streamtap/ui"
)

// findingInputs lists every input the inspector and check must agree on:
// each sample (as "sample:NAME"), each shared capture, and the bad inputs
// scripts/outputs.sh makes (empty, binary, an HTTP 401 body, a cut
// stream, invalid UTF-8, CR-only line ends).
func findingInputs(t *testing.T) []string {
	t.Helper()
	var in []string
	for _, s := range samples.List() {
		in = append(in, "sample:"+s.Name)
	}
	caps := fixtures.SharedGlob("captures/*.sse") // absent beside a bare checkout: the rest still runs
	in = append(in, caps...)
	binary := make([]byte, 4096)
	for i := range binary {
		binary[i] = byte(i*7 + i/13)
	}
	dir := t.TempDir()
	for name, data := range map[string]string{
		"empty.sse":     "",
		"binary.bin":    string(binary),
		"http-401.txt":  "HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\n\r\n{\"error\":{\"message\":\"bad key\",\"type\":\"invalid_request_error\"}}",
		"cut.sse":       "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"r\",\"status\":\"in_progress\"}}\n\nevent: response.output_text.delta\ndata: {\"type\":\"resp",
		"bad-utf8.sse":  "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\xff\xfe ok\"}}]}\n\n",
		"cr-only.sse":   "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\r\rdata: [DONE]\r\r",
		"no-done.sse":   chatStream[:strings.Index(chatStream, "data: [DONE]")],
		"anth-noev.sse": "data: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[]}}\n\ndata: {\"type\":\"message_stop\"}\n\n",
		"over-cap.sse":  overCapStream,
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		in = append(in, p)
	}
	return in
}

// inputArgs is how a command names an input of findingInputs.
func inputArgs(in string) []string {
	if name, ok := strings.CutPrefix(in, "sample:"); ok {
		return []string{"--sample", name}
	}
	return []string{in}
}

// findingKey is a finding as both reports state it.
type findingKey struct {
	Rule, Severity, Message string
	Events                  string
}

func (k findingKey) String() string {
	return fmt.Sprintf("%s %s %s: %s", k.Severity, k.Rule, k.Events, k.Message)
}

// checkFindings runs `streamtap check --json` on the input, with the
// extra flags given.
func checkFindings(t *testing.T, in string, extra ...string) []findingKey {
	t.Helper()
	keys, _ := checkReport(t, in, extra...)
	return keys
}

// checkReport is checkFindings, and whether check found the input holds
// no LLM stream (and withheld its findings).
func checkReport(t *testing.T, in string, extra ...string) ([]findingKey, bool) {
	t.Helper()
	var out, errb bytes.Buffer
	run(t.Context(), append(append([]string{"check", "--json"}, extra...), inputArgs(in)...), nil, &out, &errb)
	var rep struct {
		Findings []struct {
			Rule, Severity, Message string
			Events                  []int
		}
		NotAStream bool `json:"not_a_stream"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("check --json %s: %v\n%s%s", in, err, out.String(), errb.String())
	}
	keys := []findingKey{}
	for _, f := range rep.Findings {
		keys = append(keys, findingKey{f.Rule, f.Severity, f.Message, fmt.Sprint(f.Events)})
	}
	return keys, rep.NotAStream
}

// inspectorFindings reads the input into the inspector the way runView
// does (with the extra flags given), with the program's message loop
// played by the test, and returns what its findings pane lists once the
// source ended.
func inspectorFindings(t *testing.T, in string, extra ...string) []findingKey {
	t.Helper()
	opts, err := parseFlags(inspectorReader(), append(extra, inputArgs(in)...))
	if err == nil {
		err = opts.loadRequest()
	}
	if err != nil {
		t.Fatal(err)
	}
	src, err := openSource(t.Context(), opts, nil, &bytes.Buffer{}, true)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	msgs := make(chan tea.Msg, 16)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	insp := newInspector(src, opts, nil, func(m tea.Msg) { msgs <- m }, newModel)
	go insp.read(ctx)
	defer insp.stop()
	insp.m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	for {
		msg := <-msgs
		insp.m.Update(msg)
		if fmt.Sprintf("%T", msg) == fmt.Sprintf("%T", ui.SourceDone(nil)) {
			break
		}
	}
	keys := []findingKey{}
	for _, f := range insp.m.Findings() {
		keys = append(keys, findingKey{f.Rule, f.Severity.String(), f.Message, fmt.Sprint(f.Events)})
	}
	return keys
}

// TestInspectorFindingsMatchCheck holds the inspector's findings pane to
// `streamtap check --json` on every sample, capture and bad input, in the
// same order (a stream with a rule over its cap among them): the
// frames reach the pane through the same hand-over the program uses, so
// a rule that needs a frame's bytes (an SSE [DONE], an event: line) must
// see them there too.
func TestInspectorFindingsMatchCheck(t *testing.T) {
	t.Parallel()
	for _, in := range findingInputs(t) {
		t.Run(filepath.Base(in), func(t *testing.T) {
			want, notAStream := checkReport(t, in)
			got := inspectorFindings(t, in)
			if notAStream {
				// check withholds the findings of what holds no LLM
				// stream (they would quote it into a CI log); the
				// inspector, on the user's own terminal, lists them.
				if len(want) != 0 || len(got) == 0 {
					t.Errorf("not a stream: check lists %v, the inspector %v; want none and some", want, got)
				}
				return
			}
			if !slices.Equal(got, want) {
				t.Errorf("the inspector's findings differ from check --json:\ninspector: %v\ncheck:     %v", got, want)
			}
		})
	}
}

// overCapStream is an Anthropic message whose tool_use block gets 120
// text deltas: 120 anthropic/delta-type-mismatch findings that all cite
// the block's start, past MaxPerRule, beside a missing stop_reason.
var overCapStream = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[]}}\n\n" +
	"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"f\",\"input\":{}}}\n\n" +
	strings.Repeat("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}\n\n", 120) +
	"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
