// Package ollama is the Ollama dialect: /api/chat and /api/generate JSON
// lines ending with done:true. It holds the dialect's detection and
// assembly, its explanations and its rules (the ollama/ rule ids). It
// imports no other dialect; model/dialects registers it.
package ollama

import (
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// Types given to Ollama's lines, which name none: what the line answers,
// told by the member that carries its text (message for /api/chat,
// response for /api/generate).
const (
	TypeOllamaChat     = "(ollama chat)"
	TypeOllamaGenerate = "(ollama generate)"
)

// Ollama's done_reason values (server/routes.go, llm/server.go): stop and
// length end a generation; load and unload answer a request with an empty
// prompt or messages (loading or unloading the model).
const (
	OllamaStop   = "stop"
	OllamaLength = "length"
	OllamaLoad   = "load"
	OllamaUnload = "unload"
)

// Protocol is the Ollama dialect, for model.Register.
var Protocol = new(ollamaDialect)

// ollamaDialect is Ollama's native streaming API, /api/chat and
// /api/generate: NDJSON lines (application/x-ndjson), each a whole JSON
// object, the last one done:true with done_reason and the counters. A
// tool call comes whole, its arguments a JSON object; an error comes as a
// line {"error":"…"}; there is no [DONE].
type ollamaDialect struct{ model.Base }

func (*ollamaDialect) Info() model.DialectInfo {
	return model.DialectInfo{Name: "ollama", Short: "ollama", ShapeTypes: []string{TypeOllamaChat, TypeOllamaGenerate}}
}

// ClaimShape takes a line by its boolean done member, which only Ollama's
// lines have, beside what every line of it carries (model, and message or
// response). An error line names none of them: it belongs to the stream
// before it (see detect).
func (*ollamaDialect) ClaimShape(s *model.Session, _ string) bool {
	return (string(s.Member(mDone)) == "true" || string(s.Member(mDone)) == "false") && (s.Member(mModel) != nil || s.Member(mMessage) != nil || s.Member(mResponse) != nil)
}

func (*ollamaDialect) NewAssembly() model.Assembly { return new(ollamaState) }

// ollamaState tracks the Ollama response being streamed: its message (or
// generated text), its thinking and how many calls it made. A line after
// the done:true line starts another response.
type ollamaState struct {
	resp     *model.Response
	typ      string // what the stream's lines answer: TypeOllamaChat or TypeOllamaGenerate
	text     *model.Item
	thinking *model.Item
	calls    int
	model.NoSentinel
}

// ollamaLine is the members of one line the assembly reads, each nil when
// absent: those of message for /api/chat, the top-level ones for
// /api/generate.
type ollamaLine struct {
	message, response, content, thinking, toolCalls, done, reason, err []byte
}

func readOllamaLine(s *model.Session, data []byte) ollamaLine {
	var l ollamaLine
	s.JSON().Members(data, func(k, v []byte) bool {
		switch string(k) {
		case "message":
			l.message = v
		case "response":
			l.response = v
		case "thinking":
			l.thinking = v
		case "tool_calls":
			l.toolCalls = v
		case "done":
			l.done = v
		case "done_reason":
			l.reason = v
		case "error":
			l.err = v
		}
		return true
	})
	if jsonscan.Kind(l.message) == '{' {
		s.JSON().Members(l.message, func(k, v []byte) bool {
			switch string(k) {
			case "content":
				l.content = v
			case "thinking":
				l.thinking = v
			case "tool_calls":
				l.toolCalls = v
			}
			return true
		})
	}
	return l
}

func (st *ollamaState) response(s *model.Session, ord int) *model.Response {
	if st.resp == nil || st.resp.Terminal >= 0 {
		st.resp = s.NewResponse(Protocol.ID(), ord)
		st.text, st.thinking, st.calls = nil, nil, 0
	}
	if st.resp.Model == "" && len(s.Member(mModel)) > 2 {
		st.resp.Model = model.StringOf(s.Member(mModel))
	}
	return st.resp
}

// Event applies one line.
func (st *ollamaState) Event(s *model.Session, ev *model.Event, _ string, data []byte, ord int) {
	l := readOllamaLine(s, data)
	switch {
	case l.message != nil:
		st.typ = TypeOllamaChat
	case jsonscan.Kind(l.response) == '"':
		st.typ = TypeOllamaGenerate
	case st.typ == "":
		st.typ = TypeOllamaChat // an error line before any other: the common endpoint
	}
	ev.Type = s.Intern([]byte(st.typ))
	isError := l.err != nil && !jsonscan.IsNull(l.err)
	if isError {
		s.ErrorEvent(ev, l.err, ord)
		if l.done == nil && l.message == nil && l.response == nil {
			return // {"error":"…"}: the server ends the stream with it
		}
	}
	r := st.response(s, ord)
	r.Status.Set(ord, "in_progress")
	kind := model.KindLifecycle
	if st.typ == TypeOllamaGenerate {
		l.content = l.response
	}
	// Thinking comes before the answer it leads to: a line carrying both
	// is shown as thinking.
	if jsonscan.Kind(l.thinking) == '"' && len(l.thinking) > 2 {
		st.thinking = st.textItem(s, st.thinking, model.RoleReasoning, "thinking", r, ev, ord)
		st.thinking.Text.AddString(ord, l.thinking)
		kind.Raise(model.KindTextDelta)
	}
	if jsonscan.Kind(l.content) == '"' && len(l.content) > 2 {
		typ := "content"
		if st.typ == TypeOllamaGenerate {
			typ = "response"
		}
		st.text = st.textItem(s, st.text, model.RoleMessage, typ, r, ev, ord)
		st.text.Text.AddString(ord, l.content)
		kind.Raise(model.KindTextDelta)
	}
	s.JSON().Elements(l.toolCalls, func(_ int, entry []byte) bool {
		st.call(s, ev, r, entry, ord)
		kind.Raise(model.KindItemOpen)
		return true
	})
	if string(l.done) == "true" {
		reason := model.StringOf(l.reason)
		status := model.OutcomeCompleted
		if reason == OllamaLength {
			status = model.OutcomeIncomplete
		}
		if l.reason != nil {
			r.AddFinish(0, ord, reason)
		}
		for _, it := range []*model.Item{st.thinking, st.text} {
			if it != nil && it.Closed < 0 {
				it.Close(ord)
				it.Status.Set(ord, status)
			}
		}
		r.Terminal = ord
		r.Status.Set(ord, status)
		kind = model.KindTerminal
	}
	if isError {
		kind = model.KindError
	}
	ev.Kind = kind
}

// textItem returns the response's message or thinking item, starting it.
func (st *ollamaState) textItem(s *model.Session, it *model.Item, role model.ItemRole, typ string, r *model.Response, ev *model.Event, ord int) *model.Item {
	if it == nil {
		it = s.NewItem(Protocol.ID(), role, typ, ord)
		it.Response, it.Opened = r.Index, ord
		it.Status.Set(ord, "in_progress")
	}
	it.Touch(ord)
	if ev.Item < 0 {
		ev.Item = int32(it.Index)
	}
	return it
}

// call applies one tool_calls[] entry: a whole call, its arguments kept
// exactly as the line holds them (a JSON object, serialised by the server;
// anything else is kept too, and model/checks flags it).
func (st *ollamaState) call(s *model.Session, ev *model.Event, r *model.Response, entry []byte, ord int) {
	c := ReadOllamaCall(entry)
	it := s.NewItem(Protocol.ID(), model.RoleCall, "function", ord)
	it.Response, it.Position, it.Opened = r.Index, st.calls, ord
	if n, ok := jsonscan.Int(c.Index); ok {
		it.Position = int(n)
	}
	it.Name, it.CallID = model.StringOf(c.Name), model.StringOf(c.ID)
	if c.Arguments != nil {
		it.Args.SetWhole(ord, c.Arguments)
		it.Deltas++
	}
	it.Close(ord)
	it.Status.Set(ord, "completed")
	st.calls++
	ev.Item = int32(it.Index)
}

// OllamaCall is the raw members of an Ollama tool_calls[] entry, each nil
// when absent. The model assembles from it; model/checks judges it.
type OllamaCall struct {
	ID, Name, Index, Arguments []byte
}

// ReadOllamaCall reads a tool_calls[] entry: {"id", "function": {"index",
// "name", "arguments"}}.
func ReadOllamaCall(entry []byte) OllamaCall {
	var c OllamaCall
	jsonscan.Members(entry, func(k, v []byte) bool {
		switch string(k) {
		case "id":
			c.ID = v
		case "function":
			jsonscan.Members(v, func(k, v []byte) bool {
				switch string(k) {
				case "name":
					c.Name = v
				case "index":
					c.Index = v
				case "arguments":
					c.Arguments = v
				}
				return true
			})
		}
		return true
	})
	return c
}
