// Command clientmatrix runs real clients (the official OpenAI and
// Anthropic Node SDKs, the AI SDK's providers, on the app leg the AI
// SDK's chat client, and the MCP TypeScript SDK's client calling a tool
// in a replayed MCP session) against every protocol
// defect and transport fault of streamtap that applies to them, served by
// `streamtap replay --listen --inject/--fault`, and writes what each
// client did as a table (docs/clients.md). scripts/client-matrix.sh
// installs the pinned clients and runs it; it is not run by CI.
//
// For each client it first plays the clean sample, then each broken one,
// and compares: the same calls and text, wrong arguments, other calls or
// text, an error raised (which), a hang past -hang seconds, a crash.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// client is one client configuration the driver knows.
type client struct {
	id, label, dialect string
	samples            []string // the clean streams, tried in order for each defect
}

var clients = []client{
	{"openai-chat", "openai (chat.completions.stream)", "openai-chat", []string{"chat-parallel-calls", "chat-openrouter-keepalive", "chat-single-call"}},
	{"ai-openai-chat", "ai + @ai-sdk/openai (.chat)", "openai-chat", []string{"chat-parallel-calls", "chat-openrouter-keepalive", "chat-single-call"}},
	{"openai-responses", "openai (responses.stream)", "openai-responses", []string{"responses-parallel-calls", "responses-single-call", "responses-reasoning-then-call"}},
	{"ai-openai-responses", "ai + @ai-sdk/openai (.responses)", "openai-responses", []string{"responses-parallel-calls", "responses-single-call", "responses-reasoning-then-call"}},
	{"anthropic", "@anthropic-ai/sdk (messages.stream)", "anthropic", []string{"anthropic-text-then-tool", "anthropic-thinking-then-tool"}},
	{"ai-anthropic", "ai + @ai-sdk/anthropic", "anthropic", []string{"anthropic-text-then-tool", "anthropic-thinking-then-tool"}},
	{"aisdk-ui", "ai (AbstractChat + DefaultChatTransport)", "aisdk-ui", []string{"aisdk-ui-call-output", "aisdk-ui-two-steps"}},
	{"mcp", "@modelcontextprotocol/sdk (Client + StreamableHTTPClientTransport)", "mcp", []string{"mcp-tools-call-progress"}},
}

// An MCP client needs a session, not one stream: it is served
// mcpSession (docs/examples/mcp-session: initialize, the initialized
// notification, a GET answered 405, tools/list, and the sample
// mcp-tools-call-progress as mcpCall), with replay --listen DIR. A defect
// is applied to the tools/call's recording alone (streamtap inject), so
// that its row says what the call's defect did, not initialize's; a
// transport fault breaks every request of the session, as --fault does.
const (
	mcpSession = "docs/examples/mcp-session"
	mcpCall    = "20261124T094107-0005-POST-mcp.sse"
)

// mcpArguments are the arguments of the sample's call.
var mcpArguments = map[string]any{"repo": "acme/billing-service", "paths": []string{"src/", "docs/"}}

// faults are the transport faults every client meets; each is served on
// the client's first sample.
var faults = []string{
	"cut:3", "reset:3", "cut:200b", "cut:0",
	"stall:2:3", "stall:2:%HANG%", "stall-inside:2:%HANG%",
	"drip:4000", "bytewise",
	"status:429:1", "status:429:5", "status:500:1", "status:529:1", "status:401:1",
	"content-type:text/plain", "content-type:application/json", "gzip", "http10", "http10,cut:3",
}

type result struct {
	OK       bool     `json:"ok"`
	Text     string   `json:"text"`
	Calls    []call   `json:"calls"`
	Finish   any      `json:"finish"`
	Requests int      `json:"requests"`
	Error    *errInfo `json:"error"`
	// Onerror is what the MCP client's onerror reported on the way (it
	// reads on after a message it cannot parse), for the details.
	Onerror string `json:"onerror"`
	hang    bool
	crash   string
}

// call is a tool call as the client left it. State and Output only the
// app leg reports (a UI tool part's state and output): a call the page
// shows as still streaming, or with another output, is not the clean one.
type call struct {
	Name   string `json:"name"`
	Args   any    `json:"args"`
	State  string `json:"state,omitempty"`
	Output any    `json:"output,omitempty"`
}

type errInfo struct {
	Name    string `json:"name"`
	Message string `json:"message"`
}

type defect struct {
	Name     string `json:"name"`
	Summary  string `json:"summary"`
	Variants []struct {
		Dialect string `json:"dialect"`
		Rule    string `json:"rule"`
	} `json:"variants"`
}

type cell struct {
	verdict, detail string
}

func main() {
	bin := flag.String("bin", "streamtap", "the streamtap binary")
	node := flag.String("node", "node", "the node binary")
	dir := flag.String("dir", ".", "the folder with driver.mjs and the clients' node_modules")
	hang := flag.Int("hang", 30, "a client that has not returned `N` seconds after it sent its request hangs")
	out := flag.String("out", "docs/clients.md", "the table to write")
	versions := flag.String("versions", "", "the clients' versions, as the script installed them")
	cmdline := flag.String("cmdline", "", "the command line to print in the table's header")
	jobs := flag.Int("jobs", 2, "cases run at once")
	only := flag.String("only", "", "run only the clients whose id matches this regexp")
	notes := flag.String("notes", "", "a Markdown `FILE` to end the table with (the notes on what surprised)")
	flag.Parse()
	r := &runner{bin: *bin, node: *node, dir: *dir, hang: time.Duration(*hang) * time.Second, base: map[string]result{}}

	var defects []defect
	listing, err := exec.Command(*bin, "inject", "--list", "--json").Output()
	if err != nil {
		log.Fatalf("inject --list: %v", err)
	}
	if err := json.Unmarshal(listing, &defects); err != nil {
		log.Fatal(err)
	}
	var chosen []client
	for _, c := range clients {
		if *only == "" || regexp.MustCompile(*only).MatchString(c.id) {
			chosen = append(chosen, c)
		}
	}
	// cases: for each client, each defect of its dialect (on the first
	// sample it applies to) and each fault.
	type job struct {
		c       client
		row     string
		sample  string
		args    []string
		isFault bool
	}
	var jobsList []job
	rows := map[string][]string{} // dialect → rows in order
	summaries := map[string]string{}
	for _, c := range chosen {
		for _, d := range defects {
			rule, has := "", false
			for _, v := range d.Variants {
				if v.Dialect == c.dialect {
					rule, has = v.Rule, true
				}
			}
			if !has {
				continue
			}
			sample := r.sampleFor(d.Name, c.samples)
			if sample == "" {
				continue
			}
			row := d.Name
			if !slices.Contains(rows[c.dialect], row) {
				rows[c.dialect] = append(rows[c.dialect], row)
			}
			if rule == "" {
				rule = "legal"
			}
			summaries[c.dialect+"/"+row] = "`" + rule + "`"
			jobsList = append(jobsList, job{c, row, sample, []string{"--inject", d.Name}, false})
		}
		for _, f := range faults {
			f = strings.ReplaceAll(f, "%HANG%", fmt.Sprint(*hang*3))
			row := "fault " + f
			if !slices.Contains(rows["faults"], row) {
				rows["faults"] = append(rows["faults"], row)
			}
			jobsList = append(jobsList, job{c, row, c.samples[0], []string{"--fault", f}, true})
		}
	}
	cells := map[string]cell{} // client id + "\x00" + row
	var mu sync.Mutex
	sem := make(chan struct{}, max(1, *jobs))
	var wg sync.WaitGroup
	start := time.Now()
	for i, j := range jobsList {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			base := r.baseline(j.c, j.sample)
			got := r.run(j.c, j.sample, j.args)
			v := classify(base, got, r.hang)
			mu.Lock()
			cells[j.c.id+"\x00"+j.row] = v
			mu.Unlock()
			log.Printf("[%d/%d] %s %s (%s): %s", i+1, len(jobsList), j.c.id, j.row, j.sample, v.verdict)
		}()
	}
	wg.Wait()
	log.Printf("%d cases in %v", len(jobsList), time.Since(start).Round(time.Second))
	write(*out, chosen, rows, summaries, cells, *versions, *cmdline, *notes, *hang, len(jobsList))
}

type runner struct {
	bin, node, dir string
	hang           time.Duration
	mu             sync.Mutex
	base           map[string]result
	applies        sync.Map
	tools          sync.Map
}

// sampleFor returns the first sample the defect applies to, or "".
func (r *runner) sampleFor(name string, samples []string) string {
	for _, s := range samples {
		key := name + "\x00" + s
		ok, seen := r.applies.Load(key)
		if !seen {
			err := exec.Command(r.bin, "inject", name, "sample:"+s, "-o", os.DevNull).Run()
			ok = err == nil
			r.applies.Store(key, ok)
		}
		if ok.(bool) {
			return s
		}
	}
	return ""
}

// toolsOf names the tools the sample calls, for the request to declare.
func (r *runner) toolsOf(sample string) []string {
	if v, ok := r.tools.Load(sample); ok {
		return v.([]string)
	}
	outp, _ := exec.Command(r.bin, "calls", "--json", "--sample", sample).Output()
	var rep struct {
		Calls []struct {
			Name string `json:"name"`
		} `json:"calls"`
	}
	_ = json.Unmarshal(outp, &rep)
	var names []string
	for _, c := range rep.Calls {
		if c.Name != "" && !slices.Contains(names, c.Name) {
			names = append(names, c.Name)
		}
	}
	r.tools.Store(sample, names)
	return names
}

// baseline is what the client makes of the clean sample.
func (r *runner) baseline(c client, sample string) result {
	key := c.id + "\x00" + sample
	r.mu.Lock()
	b, ok := r.base[key]
	r.mu.Unlock()
	if ok {
		return b
	}
	b = r.run(c, sample, nil)
	if !b.OK {
		log.Fatalf("%s on the clean %s: %+v %s", c.id, sample, b.Error, b.crash)
	}
	r.mu.Lock()
	r.base[key] = b
	r.mu.Unlock()
	return b
}

var listening = regexp.MustCompile(`on (http://\S+)`)

// mcpServed is the session an MCP client is served, with the defect of
// args applied to its tools/call (sample), in a new folder; and the
// replay arguments that serve it, the faults of args kept.
func (r *runner) mcpServed(sample string, args []string) (replay []string, dir string) {
	dir, err := os.MkdirTemp("", "streamtap-mcp-session-")
	if err != nil {
		log.Fatal(err)
	}
	files, err := os.ReadDir(mcpSession)
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(mcpSession, f.Name()))
		if err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f.Name()), b, 0o644); err != nil {
			log.Fatal(err)
		}
	}
	replay = []string{"replay", dir}
	for i := 0; i < len(args); i += 2 {
		if args[i] != "--inject" {
			replay = append(replay, args[i], args[i+1])
			continue
		}
		if b, err := exec.Command(r.bin, "inject", args[i+1], "sample:"+sample, "-o", filepath.Join(dir, mcpCall), "--force").CombinedOutput(); err != nil {
			log.Fatalf("inject %s into %s: %v\n%s", args[i+1], sample, err, b)
		}
	}
	return replay, dir
}

// run serves the sample with args through replay and runs the client.
func (r *runner) run(c client, sample string, args []string) result {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	replay := append([]string{"replay", "--sample", sample}, args...)
	extra := map[string]any{}
	if c.dialect == "mcp" {
		var dir string
		replay, dir = r.mcpServed(sample, args)
		defer os.RemoveAll(dir)
		extra["arguments"] = mcpArguments
	}
	srv := exec.CommandContext(ctx, r.bin, append(replay, "--listen", "127.0.0.1:0", "--speed", "1000")...)
	srv.Cancel = func() error { return srv.Process.Signal(os.Interrupt) }
	stderr, _ := srv.StderrPipe()
	if err := srv.Start(); err != nil {
		log.Fatal(err)
	}
	defer func() { cancel(); _ = srv.Wait() }()
	br := bufio.NewReader(stderr)
	base := ""
	for base == "" {
		line, err := br.ReadString('\n')
		if m := listening.FindStringSubmatch(line); m != nil {
			base = m[1]
		}
		if err != nil {
			log.Fatalf("replay %v said no address: %v", args, err)
		}
	}
	go func() { _, _ = io.Copy(io.Discard, br) }()
	extra["client"], extra["baseURL"], extra["tools"] = c.id, base, r.toolsOf(sample)
	spec, _ := json.Marshal(extra)
	drv := exec.Command(r.node, filepath.Join(r.dir, "driver.mjs"), string(spec))
	drv.Dir = r.dir
	var so bytes.Buffer
	var se strings.Builder
	drv.Stdout = &so
	pipe, _ := drv.StderrPipe()
	if err := drv.Start(); err != nil {
		log.Fatal(err)
	}
	// The hang is timed from the driver's "ready" (Node started, the
	// clients imported): on a loaded machine starting Node alone takes
	// seconds.
	ready, read := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(pipe)
		sc.Buffer(nil, 1<<20)
		told := false
		for sc.Scan() {
			if !told && sc.Text() == "ready" {
				told = true
				close(ready)
				continue
			}
			se.WriteString(sc.Text() + "\n")
		}
	}()
	waited := make(chan error, 1)
	go func() { <-read; waited <- drv.Wait() }()
	var err error
	select {
	case err = <-waited:
	case <-ready:
		select {
		case err = <-waited:
		case <-time.After(r.hang):
			_ = drv.Process.Kill()
			<-waited
			return result{hang: true}
		}
	case <-time.After(startupCap):
		_ = drv.Process.Kill()
		<-waited
		return result{crash: "the driver did not start within " + startupCap.String()}
	}
	var res result
	if jerr := json.Unmarshal(bytes.TrimSpace(so.Bytes()), &res); jerr != nil || err != nil {
		last := strings.TrimSpace(se.String())
		if i := strings.LastIndex(last, "\n"); i >= 0 {
			last = last[i+1:]
		}
		return result{crash: fmt.Sprintf("%v: %s", err, last)}
	}
	return res
}

// startupCap bounds how long starting Node and importing the clients
// may take before the driver is given up on.
const startupCap = 3 * time.Minute

// classify says what the client did with the broken stream, against
// what it did with the clean one.
func classify(base, got result, hang time.Duration) cell {
	switch {
	case got.hang:
		return cell{fmt.Sprintf("⏳ hang > %ds", int(hang.Seconds())), ""}
	case got.crash != "":
		return cell{"💥 crash", got.crash}
	case !got.OK:
		return cell{"✗ " + got.Error.Name, got.Error.Message + requests(base, got)}
	}
	var notes []string
	sameCalls := len(base.Calls) == len(got.Calls)
	sameNames := sameCalls
	sameArgs := sameCalls
	for i := 0; sameCalls && i < len(got.Calls); i++ {
		b, g := base.Calls[i], got.Calls[i]
		switch {
		case b.Name != g.Name:
			sameNames, sameArgs, sameCalls = false, false, false
		case !reflect.DeepEqual(b.Args, g.Args):
			sameArgs, sameCalls = false, false
		case b.State != g.State || !reflect.DeepEqual(b.Output, g.Output):
			sameCalls = false
		}
	}
	switch {
	case sameCalls:
	case sameArgs:
		notes = append(notes, "other call state or output")
	case sameNames:
		notes = append(notes, "wrong args")
	case len(got.Calls) < len(base.Calls):
		notes = append(notes, fmt.Sprintf("%d of %d calls", len(got.Calls), len(base.Calls)))
	case len(got.Calls) > len(base.Calls):
		notes = append(notes, fmt.Sprintf("%d calls, not %d", len(got.Calls), len(base.Calls)))
	default:
		notes = append(notes, "other calls")
	}
	if got.Text != base.Text {
		notes = append(notes, "text differs")
	}
	detail := ""
	if !sameCalls {
		b, _ := json.Marshal(got.Calls)
		detail = "calls " + string(b)
	}
	if got.Text != base.Text {
		detail = strings.TrimSpace(detail + fmt.Sprintf(" text %q", clip(got.Text, 80)))
	}
	finish := func(v any) string {
		if v == nil {
			return "null"
		}
		return fmt.Sprint(v)
	}
	if finish(got.Finish) != finish(base.Finish) {
		detail = strings.TrimSpace(detail + fmt.Sprintf(" finish %s, not %s", finish(got.Finish), finish(base.Finish)))
		if len(notes) == 0 {
			notes = append(notes, "finish "+finish(got.Finish))
		}
	}
	if got.Onerror != "" {
		detail = strings.TrimSpace(detail + " onerror: " + got.Onerror)
	}
	if len(notes) == 0 {
		v := "✓"
		if got.Requests > max(1, base.Requests) {
			v = fmt.Sprintf("✓ (%d requests)", got.Requests)
		}
		return cell{v, detail}
	}
	return cell{"⚠ " + strings.Join(notes, ", "), detail + requests(base, got)}
}

// requests says how many requests the client sent, when it sent more than
// for the clean stream (and more than one): it retried.
func requests(base, r result) string {
	if r.Requests > max(1, base.Requests) {
		return fmt.Sprintf(" (%d requests)", r.Requests)
	}
	return ""
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// write writes the tables, a section per dialect and one for the faults.
func write(path string, cs []client, rows map[string][]string, summaries map[string]string, cells map[string]cell,
	versions, cmdline, notes string, hang, cases int) {
	var b strings.Builder
	fmt.Fprintf(&b, "# How real clients cope with broken streams\n\n")
	fmt.Fprintf(&b, "What each client did when `streamtap replay --listen` served it a stream with one protocol defect (`--inject`, [docs/inject.md](inject.md)) or one transport fault (`--fault`). Generated by `scripts/client-matrix.sh`; not run by CI.\n\n")
	fmt.Fprintf(&b, "- **Date:** %s\n", time.Now().UTC().Format("2006-01-02"))
	fmt.Fprintf(&b, "- **Clients:** %s\n", versions)
	fmt.Fprintf(&b, "- **Command:** `%s`\n", cmdline)
	fmt.Fprintf(&b, "- **Cases:** %d, each against the clean sample's result (the same request, the same client).\n\n", cases)
	fmt.Fprintf(&b, "Legend: ✓ the same calls (names and parsed arguments), text and finish reason as from the clean stream (with the number of requests when the client retried); ⚠ it returned without an error but with wrong arguments, other or missing calls, other text, or another finish reason (which an agent loop reads to decide whether to run the calls); ✗ it raised the error named; ⏳ it had not returned %d s after its request; 💥 the process died. Details below each table. Each client uses its defaults (retries included) and the helper that assembles the final message: `finalChatCompletion()`, `finalResponse()`, `finalMessage()`, and the AI SDK's `streamText` full stream; on the app leg, the AI SDK's chat client as `useChat` runs it without React (`AbstractChat` with `DefaultChatTransport`, its final assistant message, whose tool parts' state and output are compared too); for MCP, the TypeScript SDK's `Client` connecting over `StreamableHTTPClientTransport` and calling one tool (`callTool` with `onprogress`) in a session `replay --listen` serves from [docs/examples/mcp-session](examples/mcp-session) ([Replaying a whole session](proxy.md#replaying-a-whole-session)): its text is the tool result's content and `structuredContent`, its finish whether the result is an error, how many progress notifications reached `onprogress` and what `onerror` reported; a defect is applied to the `tools/call`'s stream alone, a fault to every request of the session (`initialize` included).\n\n", hang)
	sections := []struct{ key, title string }{
		{"openai-chat", "OpenAI Chat Completions"},
		{"openai-responses", "OpenAI Responses"},
		{"anthropic", "Anthropic Messages"},
		{"aisdk-ui", "AI SDK UI message stream (the app leg)"},
		{"mcp", "MCP streamable HTTP (a tools/call in a replayed session)"},
		{"faults", "Transport faults (every client, on its first sample)"},
	}
	for _, sec := range sections {
		var cols []client
		for _, c := range cs {
			if sec.key == "faults" || c.dialect == sec.key {
				cols = append(cols, c)
			}
		}
		if len(cols) == 0 || len(rows[sec.key]) == 0 {
			continue
		}
		fmt.Fprintf(&b, "## %s\n\n", sec.title)
		fmt.Fprintf(&b, "| %s |", map[bool]string{true: "fault", false: "defect (rule)"}[sec.key == "faults"])
		for _, c := range cols {
			fmt.Fprintf(&b, " %s |", c.label)
		}
		b.WriteString("\n|---|")
		for range cols {
			b.WriteString("---|")
		}
		b.WriteString("\n")
		var details []string
		for _, row := range rows[sec.key] {
			name := strings.TrimPrefix(row, "fault ")
			label := "`" + name + "`"
			if s := summaries[sec.key+"/"+row]; s != "" {
				label += " " + s
			}
			fmt.Fprintf(&b, "| %s |", label)
			for _, c := range cols {
				v, ok := cells[c.id+"\x00"+row]
				if !ok {
					b.WriteString(" — |")
					continue
				}
				fmt.Fprintf(&b, " %s |", v.verdict)
				if v.detail != "" {
					details = append(details, fmt.Sprintf("- `%s`, %s: %s", name, c.label, escape(v.detail)))
				}
			}
			b.WriteString("\n")
		}
		if len(details) > 0 {
			b.WriteString("\n<details><summary>Details</summary>\n\n")
			for _, d := range details {
				b.WriteString(d + "\n")
			}
			b.WriteString("\n</details>\n")
		}
		b.WriteString("\n")
	}
	if notes != "" {
		n, err := os.ReadFile(notes)
		if err != nil {
			log.Fatal(err)
		}
		b.Write(n)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		log.Fatal(err)
	}
}

// escape keeps a detail on one table-free line of Markdown.
func escape(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	s = strings.ReplaceAll(s, "|", "\\|")
	return strings.ReplaceAll(s, "<", "&lt;")
}
