package cli

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/samples"
	"github.com/streamtap/streamtap/ui"
)

// TestRequestInspectorHasRequestPane: the inspector of `streamtap
// request` has the `7 request` pane the proxy's sessions have, showing
// the tools, tool_choice and tool outputs the request sent and its
// headers with the key redacted. Before, it had six panes and no way to
// see what was sent.
func TestRequestInspectorHasRequestPane(t *testing.T) {
	body := []byte(`{"model":"gpt-4.1","stream":true,"tool_choice":"auto","tools":[{"type":"function","name":"get_weather"}],` +
		`"input":[{"type":"function_call_output","call_id":"call_9","output":"{\"temp\":21}"}]}`)
	data, err := samples.Open("responses-single-call")
	if err != nil {
		t.Fatal(err)
	}
	src := capture.FromReader("POST http://api.test/v1/responses", capture.SourceHTTP, bytes.NewReader(data), true)
	src.Exchange = &capture.Exchange{Method: "POST", URL: "http://api.test/v1/responses?key=sk-in-query", Status: 200,
		RequestHeader: http.Header{"Authorization": {"Bearer sk-secret-1"}}, RequestBody: body, HeadAt: capture.NoTime, Started: time.Now()}
	msgs := make(chan tea.Msg, 16)
	insp := newInspector(src, options{}, nil, func(m tea.Msg) { msgs <- m }, newModel)
	go insp.read(t.Context())
	defer insp.stop()
	insp.m.Update(tea.WindowSizeMsg{Width: 140, Height: 40})
	for {
		msg := <-msgs
		insp.m.Update(msg)
		if fmt.Sprintf("%T", msg) == fmt.Sprintf("%T", ui.SourceDone(nil)) {
			break
		}
	}
	insp.m.Update(tea.KeyPressMsg{Code: '7', Text: "7"})
	v := ansi.Strip(insp.m.View().Content)
	for _, want := range []string{"7 request", "POST /v1/responses", "get_weather", "tool_choice", "auto", "call_9", "Authorization: [redacted]"} {
		if !strings.Contains(v, want) {
			t.Errorf("the request pane lacks %q:\n%s", want, v)
		}
	}
	for _, secret := range []string{"sk-secret-1", "sk-in-query"} {
		if strings.Contains(v, secret) {
			t.Errorf("the view holds the secret %q:\n%s", secret, v)
		}
	}
}
