package mcp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/checks"
)

// oracle is what the SDK's own client saw of each exchange of one server
// mode (../shared/captures-app/oracle/mcp__MODE.json): the request it
// sent, the messages it decoded, and what each step of the run returned.
type oracle struct {
	Exchanges []struct {
		Recording *string `json:"recording"`
		Request   struct {
			Method  string            `json:"method"`
			Headers map[string]string `json:"headers"`
			Body    json.RawMessage   `json:"body"`
		} `json:"request"`
		Response struct {
			Status   int               `json:"status"`
			Messages []json.RawMessage `json:"messages"`
		} `json:"response"`
	} `json:"exchanges"`
	ClientResults []struct {
		Step  string `json:"step"`
		Error string `json:"error"`
	} `json:"client_results"`
}

// TestOracle holds each recorded exchange to what the SDK's client
// decoded of it (oracle/): the request is the recording's, the messages
// the dialect read are the client's, in order (a message that is no
// JSON-RPC is one too, and is reported), each call ends as its response
// says; and where the oracle says more than one exchange does: the
// client's cancel and its answer to the server's elicitation are linked
// to the exchanges they act on, as the proxy links them.
func TestOracle(t *testing.T) {
	dir := appDir(t)
	links := 0
	for _, mode := range []string{"stateful", "resumable", "stateless-json"} {
		t.Run(mode, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, "oracle", "mcp__"+mode+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var o oracle
			if err := json.Unmarshal(data, &o); err != nil {
				t.Fatal(err)
			}
			all := readMode(t, dir, mode)
			checked := 0
			for _, x := range o.Exchanges {
				if x.Recording == nil {
					continue
				}
				name := strings.Split(*x.Recording, ".rec.")[0]
				i := slices.IndexFunc(all, func(e *exchange) bool { return e.name == name })
				if i < 0 {
					continue // one of the exchanges held out of ../shared
				}
				e := all[i]
				checked++
				body := x.Request.Body
				if string(body) == "null" {
					body = nil // a GET's, a DELETE's
				}
				if !strings.EqualFold(e.x.Method, x.Request.Method) || !sameJSON(e.x.RequestBody, body) {
					t.Errorf("%s: request %s %s; the client sent %s %s", name, e.x.Method, e.x.RequestBody, x.Request.Method, x.Request.Body)
				}
				msgs, ords := messages(t, dir, e)
				if len(msgs) != len(x.Response.Messages) {
					t.Errorf("%s: the dialect read %d messages; the client decoded %d", name, len(msgs), len(x.Response.Messages))
					continue
				}
				rep := e.c.Report(e.s, checks.Strict)
				for j, m := range x.Response.Messages {
					if !sameJSON(msgs[j], m) {
						t.Errorf("%s: message %d is %s; the client decoded %s", name, j, msgs[j], m)
					}
					var v struct {
						JSONRPC string `json:"jsonrpc"`
					}
					if _ = json.Unmarshal(m, &v); v.JSONRPC != "2.0" && !slices.ContainsFunc(rep.Findings, func(f checks.Finding) bool {
						return f.Rule == "mcp/jsonrpc-invalid" && slices.Contains(f.Events, ords[j])
					}) {
						t.Errorf("%s: message %d (%s), which the client rejects, has no mcp/jsonrpc-invalid finding: %v", name, j, m, rep.Findings)
					}
				}
				sameCallEnds(t, name, e, x.Response.Messages)
			}
			if checked == 0 {
				t.Fatal("no exchange of the oracle has a recording here")
			}
			links += sameLinks(t, all, &o)
		})
	}
	if links < 2 {
		t.Errorf("%d links held to the oracle; want the cancel and the elicitation's answer at least", links)
	}
}

// messages returns the data of every MCP message event of e's session,
// the priming events left out, and their ordinals.
func messages(t *testing.T, dir string, e *exchange) ([][]byte, []int) {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(dir, "recordings", e.name+".rec.*"))
	data, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	s := model.Assemble(data, capture.FormatAuto, model.Options{KeepEvents: true, Exchange: &e.x, Earlier: e.link.Earlier})
	var out [][]byte
	var ords []int
	fr := capture.NewFramer(capture.FormatAuto)
	ord := 0
	emit := func(f *capture.Frame) {
		ev := s.Events.At(ord)
		if ev.Dialect.String() == "mcp" && f.Kind == capture.FrameEvent && len(f.Data) > 0 {
			out = append(out, bytes.Clone(f.Data))
			ords = append(ords, ord)
		}
		ord++
	}
	fr.Feed(data, capture.NoTime, emit)
	fr.Finish(capture.NoTime, emit)
	return out, ords
}

// sameCallEnds holds each call of e to the response the client decoded
// for it: a result completes it, isError fails it, an error errs it; and
// calls --json says what the client got: the result as the call's
// output, isError's text or the error's code and message as its error.
func sameCallEnds(t *testing.T, name string, e *exchange, msgs []json.RawMessage) {
	t.Helper()
	rep := e.s.Report()
	for k, c := range e.s.Calls() {
		want, wantOut, wantErr := "incomplete", "", ""
		for _, m := range msgs {
			var r struct {
				ID     json.RawMessage `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  *struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if json.Unmarshal(m, &r) != nil || string(r.ID) != c.CallID {
				continue
			}
			var res struct {
				IsError bool `json:"isError"`
				Content []struct {
					Type, Text string
				} `json:"content"`
			}
			switch {
			case r.Error != nil:
				want, wantErr = "error", fmt.Sprintf("%d: %s", r.Error.Code, r.Error.Message)
			case r.Result != nil && json.Unmarshal(r.Result, &res) == nil:
				want, wantOut = "completed", string(r.Result)
				if res.IsError {
					want = "failed"
					for _, b := range res.Content {
						if b.Type == "text" {
							wantErr += b.Text
						}
					}
				}
			}
		}
		if got := e.s.CallStatus(c); got != want {
			t.Errorf("%s: call %s %s is %s; the client's response says %s", name, c.CallID, c.Name, got, want)
		}
		rc := rep.Calls[k]
		if out := rc.Output; (out == nil) != (wantOut == "") || (out != nil && !sameJSON([]byte(*out), []byte(wantOut))) || rc.Error != wantErr {
			got := "none"
			if out != nil {
				got = *out
			}
			t.Errorf("%s: call %s %s: output %s, error %q; the client got output %s, error %q", name, c.CallID, c.Name, got, rc.Error, wantOut, wantErr)
		}
	}
}

// sameLinks holds the links to what the client did: its cancel of a
// request (a step that ends with the cancel's reason) cancels the
// exchange that carried it, and its answer to the server's elicitation
// answers the exchange whose stream asked. Only exchanges whose both ends
// are here are held to it; it returns how many were.
func sameLinks(t *testing.T, all []*exchange, o *oracle) (held int) {
	t.Helper()
	cancelled := slices.ContainsFunc(o.ClientResults, func(r struct {
		Step  string `json:"step"`
		Error string `json:"error"`
	}) bool {
		return strings.HasSuffix(r.Step, "cancelled") && strings.Contains(r.Error, "user pressed stop")
	})
	for i, e := range all {
		var want, verb string
		switch {
		case strings.Contains(e.name, "notifications-cancelled") && cancelled:
			var body struct {
				Params struct {
					RequestID json.RawMessage `json:"requestId"`
				} `json:"params"`
			}
			if json.Unmarshal(e.x.RequestBody, &body) != nil {
				t.Fatalf("%s: the cancel's body: %s", e.name, e.x.RequestBody)
			}
			want, verb = requestOf(all[:i], string(body.Params.RequestID)), "cancels"
		case strings.Contains(e.name, "response-to-"):
			want, verb = elicitationOf(all[:i]), "answers"
		default:
			continue
		}
		if want == "" {
			continue // the exchange it acts on is held out of ../shared
		}
		got := ""
		if e.link.Prev > 0 {
			got = all[e.link.Prev-1].name
		}
		if got != want || e.link.Verb != verb {
			t.Errorf("%s links to %q (%s); want %s %s", e.name, got, e.link.Verb, verb, want)
		}
		held++
	}
	return held
}

// requestOf names the latest exchange whose request body has id id.
func requestOf(before []*exchange, id string) string {
	for _, e := range slices.Backward(before) {
		var body struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(e.x.RequestBody, &body) == nil && string(body.ID) == id {
			return e.name
		}
	}
	return ""
}

// elicitationOf names the latest exchange whose stream carried an
// elicitation/create.
func elicitationOf(before []*exchange) string {
	for i := len(before) - 1; i >= 0; i-- {
		s := before[i].s
		for j := range s.Len() {
			if s.TypeName(s.Events.At(j).Type) == "elicitation/create" {
				return before[i].name
			}
		}
	}
	return ""
}

// sameJSON reports whether two JSON documents hold the same value.
func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(bytes.TrimSpace(a), bytes.TrimSpace(b))
	}
	return reflect.DeepEqual(x, y)
}
