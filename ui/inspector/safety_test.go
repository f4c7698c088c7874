package inspector

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
)

// hostile streams try to retitle the window (OSC 0) and clear the screen
// (CSI 2J) from every place stream text can reach: raw bytes inside JSON
// strings, escaped ones that decode to control characters, comments, event
// names, ids, tool names, HTTP headers and trailing garbage.
var hostile = []struct{ name, data string }{
	{"sse", ": keepalive \x1b]0;pwned\x07 \x1b[2J\n\n" +
		"event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"resp_\\u001b]0;pwned\\u0007\",\"status\":\"in_progress\",\"output\":[]}}\n\n" +
		"event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"sequence_number\":1,\"output_index\":0,\"item\":{\"id\":\"fc_\\u001b[2J\",\"type\":\"function_call\",\"status\":\"in_progress\",\"arguments\":\"\",\"call_id\":\"call_\\u001b]0;pwned\\u0007\",\"name\":\"tool\\u001b[2J\"}}\n\n" +
		"event: response.function_call_arguments.delta\ndata: {\"type\":\"response.function_call_arguments.delta\",\"sequence_number\":2,\"item_id\":\"fc_\\u001b[2J\",\"output_index\":0,\"delta\":\"{\\\"a\\\": \\\"\\u001b]0;pwned\\u0007\\u001b[2J\"}\n\n" +
		"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"sequence_number\":3,\"item_id\":\"m\",\"output_index\":1,\"delta\":\"raw \x1b]0;pwned\x07 \x1b[2J\"}\n\n" +
		"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"sequence_number\":4,\"item_id\":\"m\",\"output_index\":1,\"delta\":\"esc \\u001b]0;pwned\\u0007 \\u001b[2J\"}\n\n" +
		"event: \x1b[2J\x1b]0;pwned\x07\ndata: not json \x1b]0;pwned\x07\x1b[2J\n: inner \x1b[2J comment\n\n" +
		"data: {\"type\":\"response.\\u001b[2J\",\"sequence_number\":9}\n\n" +
		"\x1b]0;pwned\x07\x1b[2J trailing"},
	{"http", "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nX-Evil: \x1b]0;pwned\x07\x1b[2J\r\nAuthorization: Bearer sk-secret-123\r\n\r\n" +
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\\u001b]0;pwned\\u0007\\u001b[2J\"}}],\"object\":\"chat.completion.chunk\"}\n\n" +
		"data: [DONE]\n\n"},
}

func TestHostileStreamNeverReachesTheTerminal(t *testing.T) {
	t.Parallel()
	bad := []string{"\x1b]0;", "\x07", "\x1b[2J", "sk-secret-123"}
	for _, tc := range hostile {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(tc.data)
			for _, size := range [][2]int{{80, 24}, {140, 50}} {
				m := newProgram(newSession(data), Options{Source: "evil \x1b]0;pwned\x07", Checks: func(s *model.Session) []checks.Finding {
					return []checks.Finding{{Severity: checks.Error, Rule: "x\x1b[2J", Message: "m\x1b]0;pwned\x07", Events: []int{0}}}
				}})
				m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
				if m.insp.s.Len() < 3 {
					t.Fatalf("stream framed into %d events", m.insp.s.Len())
				}
				check := func(where string) {
					t.Helper()
					v := viewOf(m)
					for _, b := range bad {
						if strings.Contains(v, b) {
							t.Fatalf("%s at %dx%d: view contains %q", where, size[0], size[1], b)
						}
					}
				}
				for ord := range m.insp.s.Len() {
					m.insp.tl.SelectOrd(ord)
					for _, pane := range []string{"1", "2", "3", "4", "5", "6"} {
						press(m, pane)
						check("pane " + pane)
					}
					press(m, "z")
					check("lanes zoomed")
					press(m, "z")
					press(m, "2", "r")
					check("raw detail")
					press(m, "r")
				}
				press(m, "/")
				typeText(m, "\x1b]0;pwned\x07")
				check("search prompt")
				press(m, "esc", "?")
				check("help")
			}
		})
	}
}
