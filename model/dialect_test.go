package model

import (
	"slices"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/samples"
)

// TestRegistryComplete holds the registry (model/dialects registers every
// dialect for these tests, register_test.go) to its ids: each dialect is
// registered once, under the next id, named, and taught by an embedded
// sample whose events of that dialect each get a kind, one of them its end
// (a terminal event or data: [DONE]).
func TestRegistryComplete(t *testing.T) {
	want := AllDialects()
	if len(want) == 0 {
		t.Fatal("no dialect registered")
	}
	for i, d := range want {
		if d != Dialect(i+1) || d.Protocol() == nil || d.Protocol().base().ID() != d {
			t.Errorf("AllDialects()[%d] = %d; want dialect %d, registered as itself", i, d, i+1)
		}
	}
	seen := map[Dialect]int{}
	for _, r := range detection {
		seen[r.id]++
	}
	names, shorts := map[string]Dialect{}, map[string]Dialect{}
	for _, d := range want {
		info := d.Info()
		switch {
		case seen[d] != 1:
			t.Errorf("dialect %d is registered %d times; want once", d, seen[d])
		case info.Name == "" || info.Name == "unknown" || info.Short == "" || info.Short == "unknown":
			t.Errorf("dialect %d is named %q, short %q", d, info.Name, info.Short)
		case d.String() != info.Name:
			t.Errorf("Dialect(%d).String() = %q; want its name %q", d, d.String(), info.Name)
		}
		if o, dup := names[info.Name]; dup {
			t.Errorf("dialects %d and %d are both named %q", o, d, info.Name)
		}
		if o, dup := shorts[info.Short]; dup {
			t.Errorf("dialects %d and %d are both short-named %q", o, d, info.Short)
		}
		names[info.Name], shorts[info.Short] = d, d
		if byDialect[d].NewAssembly() == nil {
			t.Errorf("dialect %s has no assembly state", d)
		}
	}
	if got := DialectUnknown.String(); got != "unknown" {
		t.Errorf("DialectUnknown.String() = %q; want unknown", got)
	}
	if got := Dialect(maxDialects + 1).String(); got != "unknown" {
		t.Errorf("Dialect(%d).String() = %q; want unknown", maxDialects+1, got)
	}

	taught := map[Dialect]bool{}
	for _, sm := range samples.List() {
		data, err := samples.Open(sm.Name)
		if err != nil {
			t.Fatal(err)
		}
		s := Assemble(data, capture.FormatAuto, Options{KeepEvents: true})
		d := s.Dialect()
		taught[d] = true
		terminal := false
		for i := range s.Events.All() {
			ev := s.Events.At(i)
			if ev.Dialect != d {
				continue
			}
			if ev.Kind == KindUnknown {
				t.Errorf("sample %s: event %d (%s) of dialect %s has no kind", sm.Name, i, s.TypeName(ev.Type), d)
			}
			terminal = terminal || ev.Kind == KindTerminal || ev.Kind == KindSentinel
		}
		if !terminal && !strings.HasPrefix(sm.Name, "broken-") {
			t.Errorf("sample %s: no terminal event or [DONE] of dialect %s", sm.Name, d)
		}
	}
	for _, d := range want {
		if !taught[d] {
			t.Errorf("no sample teaches dialect %s", d)
		}
	}
}

// echoDialect is a made-up dialect, registered only by the test below, to
// show what a new dialect takes: a package like this code (a Protocol and
// its Assembly) and a line in model/dialects. Its events are
// {"type":"x.open","id","name"}, {"type":"x.args","id","delta"} and
// {"type":"x.end"}; a response is everything up to x.end.
type echoDialect struct{ Base }

// echo is the dialect, for registerDialect.
var echo = new(echoDialect)

// The members it reads, recorded by the core's scan (here "id" and
// "name", which other dialects declare too, and "delta").
var (
	echoID    = MemberOf("id")
	echoName  = MemberOf("name")
	echoDelta = MemberOf("delta")
)

func (*echoDialect) Info() DialectInfo {
	return DialectInfo{Name: "x-echo", Short: "echo", TypePrefix: "x."}
}

func (*echoDialect) ClaimType(typ string) bool { return strings.HasPrefix(typ, "x.") }

func (*echoDialect) NewAssembly() Assembly { return &echoState{calls: map[string]*Item{}} }

// Explanations teaches x.open; the dialect's events are shaped by their
// type (Base's Shape).
func (*echoDialect) Explanations() []Explanation {
	return []Explanation{NewExplanation(echo.ID(), "x.open", "", "Opens a call.", "id, name.", "Starts the call.", "None.")}
}

type echoState struct {
	NoSentinel
	resp  *Response
	calls map[string]*Item
}

func (st *echoState) Event(s *Session, ev *Event, typ string, _ []byte, ord int) {
	echoDialectID := echo.ID()
	if st.resp == nil || st.resp.Terminal >= 0 {
		st.resp = s.NewResponse(echoDialectID, ord)
		st.resp.Status.Set(ord, "in_progress")
	}
	id := StringOf(s.Member(echoID))
	switch typ {
	case "x.open":
		ev.Kind = KindItemOpen
		it := s.NewItem(echoDialectID, RoleCall, "echo_call", ord)
		it.Response, it.Position, it.Opened = st.resp.Index, len(st.calls), ord
		it.CallID, it.Name = id, StringOf(s.Member(echoName))
		st.calls[id] = it
		ev.Item = int32(it.Index)
	case "x.args":
		ev.Kind = KindArgsDelta
		if it := st.calls[id]; it != nil {
			it.Args.AddString(ord, s.Member(echoDelta))
			it.Deltas++
			it.Touch(ord)
			ev.Item = int32(it.Index)
		}
	case "x.end":
		ev.Kind = KindTerminal
		st.resp.Terminal = ord
		st.resp.Status.Set(ord, "completed")
		for _, it := range st.calls {
			it.Close(ord)
			it.Status.Set(ord, "completed")
		}
	}
}

// registerDialect registers p (Register) for the rest of the test, and
// returns its id. A test that calls it must not run in parallel with
// others.
func registerDialect(t *testing.T, p Protocol) Dialect {
	t.Helper()
	savedReg, savedDet, savedWrap := slices.Clip(registered), slices.Clone(detection), slices.Clone(wrappers)
	savedBy, savedInfos := byDialect, infos
	savedExpl, savedByShape := explanations, explainedByShape
	id := Register(p, 0)
	t.Cleanup(func() {
		registered, detection, wrappers = savedReg, savedDet, savedWrap
		byDialect, infos = savedBy, savedInfos
		explanations, explainedByShape = savedExpl, savedByShape
		p.base().id = DialectUnknown
	})
	return id
}

// TestNewDialect registers echoDialect and reads a stream that mixes it
// with Chat: detection, assembly, naming, the index of items, reports and
// the outcome all take it without another line of the package changing.
func TestNewDialect(t *testing.T) {
	in := sse(
		`{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"hi"}}]}`,
		`{"type":"x.open","id":"e1","name":"shout"}`,
		`{"type":"x.args","id":"e1","delta":"{\"a\":"}`,
		`{"type":"x.args","id":"e1","delta":"1}"}`,
		`{"type":"x.open","id":"e0","name":"whisper"}`,
		`{"type":"x.end"}`,
	)
	if s := assemble(t, in); s.Dialect() != dialectOf("openai-chat") || len(s.Calls()) != 0 {
		t.Fatalf("unregistered: dialect %s, %d calls; want chat and none", s.Dialect(), len(s.Calls()))
	}

	echoDialectID := registerDialect(t, echo)
	s := assemble(t, in)
	wantKinds := []Kind{KindTextDelta, KindItemOpen, KindArgsDelta, KindArgsDelta, KindItemOpen, KindTerminal}
	for i := range s.Events.All() {
		want := echoDialectID
		if i == 0 {
			want = dialectOf("openai-chat")
		}
		if ev := s.Events.At(i); ev.Dialect != want || ev.Kind != wantKinds[i] {
			t.Errorf("event %d: %s %s; want %s %s", i, ev.Dialect, ev.Kind, want, wantKinds[i])
		}
	}
	rep := s.Report()
	if rep.Dialect != "x-echo" || !slices.Equal(rep.Dialects, []string{"x-echo", "openai-chat"}) {
		t.Errorf("report dialect %q, dialects %q; want x-echo, [x-echo openai-chat]", rep.Dialect, rep.Dialects)
	}
	var calls []string
	for _, c := range rep.Calls {
		calls = append(calls, c.Name+" "+c.Arguments+" "+c.Status)
	}
	if want := []string{"shout {\"a\":1} completed", "whisper  completed"}; !slices.Equal(calls, want) {
		t.Errorf("calls %q; want %q", calls, want)
	}
	echo := s.Responses[1]
	if got := s.ResponseItems(echo.Index); len(got) != 2 || got[0].Name != "shout" || got[1].Name != "whisper" {
		var names []string
		for _, it := range got {
			names = append(names, it.Name)
		}
		t.Errorf("ResponseItems(%d) = %q; want shout, whisper", echo.Index, names)
	}
	shout := s.Calls()[0]
	if start, end, ok := shout.ArgsFragmentAt(3); !ok || string(shout.ArgsAsOf(3)[start:end]) != "1}" {
		t.Errorf("ArgsFragmentAt(3) = %d, %d, %v; want the span of 1}", start, end, ok)
	}
	if o := s.Outcome(); o.State != "completed" || o.Ordinal != 5 {
		t.Errorf("outcome %+v; want completed at event 5", o)
	}
	want := Shape{Dialect: echoDialectID, Type: "x.open"}
	if sh := s.Shape(s.Events.At(1), 1, nil); sh != want {
		t.Errorf("Shape(event 1) = %+v; want %+v", sh, want)
	}
	if e, ok := Explain(want); !ok || e.Does != "Opens a call." {
		t.Errorf("Explain(%+v) = %+v, %v; want the dialect's row", want, e, ok)
	}
}

// TestDetectPrecedence pins which dialect takes an event that several
// could claim, and errors that none claims by type or shape: as the
// dialects decided before they were a registry (checked against main's
// build).
func TestDetectPrecedence(t *testing.T) {
	var (
		unk  = DialectUnknown
		resp = dialectOf("openai-responses")
		chat = dialectOf("openai-chat")
		anth = dialectOf("anthropic")
		gem  = dialectOf("gemini")
		oll  = dialectOf("ollama")
	)
	tests := []struct {
		name string
		in   string
		want []Dialect // per event
	}{
		{"choices win over object response", sse(`{"object":"response","choices":[]}`), []Dialect{chat}},
		{"a typed whole message wins over choices", sse(`{"type":"message","content":[],"choices":[]}`), []Dialect{anth}},
		{"message without content is not Anthropic's", sse(`{"type":"message","choices":[]}`), []Dialect{chat}},
		{"a numbered error opens a Responses stream", sse(`{"type":"error","sequence_number":3,"error":{}}`), []Dialect{resp}},
		{"an unnumbered error opens an Anthropic stream", sse(`{"type":"error","error":{}}`), []Dialect{anth}},
		{"an error belongs to the stream's dialect", sse(`{"object":"chat.completion.chunk","choices":[]}`, `{"type":"error","sequence_number":1,"error":{}}`), []Dialect{chat, chat}},
		{"an error member alone, first", sse(`{"error":{"message":"z"}}`), []Dialect{unk}},
		{"an error member after Anthropic", sse(`{"type":"message_start","message":{}}`, `{"error":{}}`), []Dialect{anth, anth}},
		{"object response wins over candidates", sse(`{"candidates":[],"object":"response"}`), []Dialect{resp}},
		{"choices win over candidates", sse(`{"candidates":[],"choices":[]}`), []Dialect{chat}},
		{"keepalive is Responses'", sse(`{"type":"keepalive"}`), []Dialect{resp}},
		{"event: ping without data", "event: ping\n\n", []Dialect{anth}},
		{"an array of chunks", sse(`[{"candidates":[]}]`), []Dialect{gem}},
		{"a Responses type wins over choices", sse(`{"type":"response.output_text.delta","choices":[1]}`), []Dialect{resp}},
		{"an Anthropic type wins over object response", sse(`{"type":"message_start","object":"response","message":{}}`), []Dialect{anth}},
		{"candidates win over an error type", sse(`{"type":"error","candidates":[]}`), []Dialect{gem}},
		{"usageMetadata alone", sse(`{"usageMetadata":{}}`), []Dialect{gem}},
		{"[DONE] takes the stream's dialect", sse(`{"object":"chat.completion","choices":[]}`, `[DONE]`), []Dialect{chat, chat}},
		{"a boolean done with model is Ollama's", sse(`{"model":"m","done":false}`), []Dialect{oll}},
		{"done that is no boolean is not", sse(`{"model":"m","done":"true"}`), []Dialect{unk}},
		{"done alone is not", sse(`{"done":true}`), []Dialect{unk}},
		{"choices win over done", sse(`{"model":"m","done":true,"choices":[]}`), []Dialect{chat}},
		{"an error string after Ollama lines", sse(`{"model":"m","response":"a","done":false}`, `{"error":"boom"}`), []Dialect{oll, oll}},
		{"an error string alone, first", sse(`{"error":"model 'x' not found"}`), []Dialect{unk}},
	}
	for _, tt := range tests {
		s := assemble(t, tt.in)
		var got []Dialect
		for i := range s.Events.All() {
			got = append(got, s.Events.At(i).Dialect)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: dialects %v; want %v", tt.name, got, tt.want)
		}
	}
}

// TestNamedByShape: the types every event of a dialect shares (its
// DialectInfo.ShapeTypes) are named by shape, and only those: the views
// ask the core this, knowing no dialect. Every event of a stream of such
// a dialect is of one of them, and each has rows in the explanations
// table by shape.
func TestNamedByShape(t *testing.T) {
	t.Parallel()
	for typ, want := range map[string]bool{
		"chat.completion.chunk": true, "(gemini chunk)": true, "(ollama chat)": true, "(ollama generate)": true,
		"response.created": false, "message_start": false, "chunk": false, "": false, "(untyped)": false,
	} {
		if got := NamedByShape(typ); got != want {
			t.Errorf("NamedByShape(%q) = %v; want %v", typ, got, want)
		}
	}
	subs := map[string]int{}
	for _, e := range Explanations() {
		if e.Shape.Sub != "" {
			subs[e.Shape.Type]++
		}
	}
	for _, d := range AllDialects() {
		for _, typ := range d.Info().ShapeTypes {
			if subs[typ] == 0 {
				t.Errorf("%s: ShapeTypes names %q, which no explanation row shapes", d, typ)
			}
		}
	}
}
