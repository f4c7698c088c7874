package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/streamtap/streamtap/internal/fixtures"
)

// TestProxyLegsE2E: the two legs of an app's turn through the built
// proxy, one listener in front of the app and one in front of its
// provider (a recording served by the built `streamtap replay`); the app,
// a tiny server of the test's, answers each request with an AI SDK UI
// message stream made of the provider's Chat stream (uiStream). The
// sessions list links the app's session with the provider's (its row says
// "legs #2", the provider's "s1 of #1"), and the selected line what
// linked them; `streamtap diff` of the recordings folder against the
// app's recording finds the provider's and says the legs agree.
func TestProxyLegsE2E(t *testing.T) {
	t.Parallel()
	bin := builtBinary(t)
	provAddr, replayAddr, appAddr := freeAddr(t), freeAddr(t), freeAddr(t)
	replay := exec.Command(bin, "replay", fixtures.Path("samples/chat-parallel-calls.sse"), "--listen", replayAddr)
	if err := replay.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { replay.Process.Kill(); replay.Wait() })
	waitListening(t, replayAddr)

	// The app: its provider's baseURL is the proxy's second listener.
	app := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		resp, err := http.Post("http://"+provAddr+"/v1/chat/completions", "application/json",
			strings.NewReader(`{"model":"gpt-4o","stream":true,"messages":[{"role":"user","content":"weather?"}]}`))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("X-Vercel-Ai-Ui-Message-Stream", "v1")
		uiStream(w, resp.Body)
	}))
	app.Start()
	t.Cleanup(app.Close)

	dir := t.TempDir()
	term := startTmux(t, 160, 30, shellQuote(bin)+" proxy --listen "+appAddr+" --upstream "+app.URL+
		" --listen "+provAddr+" --upstream http://"+replayAddr+" --record "+shellQuote(dir))
	term.waitFor("the proxy's two listeners", 10*time.Second, func(s string) bool {
		return strings.Contains(s, "proxy http://"+appAddr) && strings.Contains(s, "http://"+provAddr)
	})
	resp, err := http.Post("http://"+appAddr+"/api/chat", "application/json", strings.NewReader(`{"messages":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	screen := term.waitFor("the two sessions linked", 10*time.Second, func(s string) bool {
		return strings.Contains(s, "legs #2") && strings.Contains(s, "s1 of #1")
	})
	for _, want := range []string{"/api/chat", "/v1/chat/completions"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the sessions list lacks %q:\n%s", want, screen)
		}
	}
	term.send("g") // the app's session, #1
	term.waitFor("what linked them", 10*time.Second, func(s string) bool {
		return strings.Contains(s, "model calls #2 by call ids")
	})
	term.send("q")
	term.waitExit("the proxy to quit", 10*time.Second)
	apps, _ := filepath.Glob(filepath.Join(dir, "*-POST-api-chat.sse"))
	provs, _ := filepath.Glob(filepath.Join(dir, "*-POST-v1-chat-completions.sse"))
	if len(apps) != 1 || len(provs) != 1 {
		t.Fatalf("recordings %v, %v; want the app's and the provider's", apps, provs)
	}
	out, err := exec.Command(bin, "diff", dir, apps[0]).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "A  "+provs[0]+": openai-chat") ||
		!strings.Contains(string(out), "aisdk-ui") || !strings.Contains(string(out), "equivalent") {
		t.Errorf("streamtap diff DIR APP: %v\n%s", err, out)
	}
}

// uiStream writes the AI SDK UI message stream an app built on it sends
// its client for provider Chat stream r: one step, its text and calls (ids
// and argument fragments passed on as they came), finish.
func uiStream(w io.Writer, r io.Reader) {
	chunk := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	chunk(map[string]any{"type": "start"})
	chunk(map[string]any{"type": "start-step"})
	ids := map[int]string{}
	args, names := map[string]string{}, map[string]string{}
	var order []string
	text := false
	body, _ := io.ReadAll(r)
	for _, line := range strings.Split(string(body), "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var c struct {
			Choices []struct {
				Delta struct {
					Content   *string `json:"content"`
					ToolCalls []struct {
						Index    int    `json:"index"`
						ID       string `json:"id"`
						Function struct {
							Name      string `json:"name"`
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if json.Unmarshal([]byte(data), &c) != nil || len(c.Choices) == 0 {
			continue
		}
		d := c.Choices[0].Delta
		if d.Content != nil && *d.Content != "" {
			if !text {
				chunk(map[string]any{"type": "text-start", "id": "0"})
				text = true
			}
			chunk(map[string]any{"type": "text-delta", "id": "0", "delta": *d.Content})
		}
		for _, tc := range d.ToolCalls {
			if tc.ID != "" {
				ids[tc.Index], names[tc.ID] = tc.ID, tc.Function.Name
				order = append(order, tc.ID)
				chunk(map[string]any{"type": "tool-input-start", "toolCallId": tc.ID, "toolName": tc.Function.Name})
			}
			id := ids[tc.Index]
			if tc.Function.Arguments != "" {
				args[id] += tc.Function.Arguments
				chunk(map[string]any{"type": "tool-input-delta", "toolCallId": id, "inputTextDelta": tc.Function.Arguments})
			}
		}
	}
	if text {
		chunk(map[string]any{"type": "text-end", "id": "0"})
	}
	for _, id := range order {
		var input any
		_ = json.Unmarshal([]byte(args[id]), &input)
		chunk(map[string]any{"type": "tool-input-available", "toolCallId": id, "toolName": names[id], "input": input})
	}
	chunk(map[string]any{"type": "finish-step"})
	chunk(map[string]any{"type": "finish", "finishReason": "tool-calls"})
	fmt.Fprint(w, "data: [DONE]\n\n")
}
