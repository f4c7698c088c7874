// Package checks names the protocol defects of an LLM stream: each finding
// has a stable rule id, a severity, a one-line message that names the ids and
// values involved, and the ordinals of the events that prove it. The
// stream's outcome (completed, incomplete, failed, truncated, error) is
// reported beside the findings, never as one of them: a response that ran
// out of tokens or hit a rate limit is a legitimate end, not a broken
// server.
//
// The rules follow the official SDKs' contracts and the defects seen in
// the wild; docs/rules.md explains each one, with the evidence. Checking is done in two steps: a Checker observes a
// model.Session event by event (model.Options.Observer), recording the few
// facts the assembly does not keep, and Report judges the session and those
// facts. The package knows nothing about terminals or the UI.
package checks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// Severity ranks findings. The order matters: a finding fails a run when
// its severity is at or above the run's threshold.
type Severity uint8

const (
	// Info: legal or vendor-tolerated, but downstream clients often trip
	// on it.
	Info Severity = iota
	// Warning: popular clients break, or data is at risk.
	Warning
	// Error: conforming clients (usually the official SDK) break, or calls
	// are lost, merged, duplicated or corrupted.
	Error
)

var severityNames = [...]string{"info", "warning", "error"}

func (s Severity) String() string {
	if int(s) < len(severityNames) {
		return severityNames[s]
	}
	return "unknown"
}

// MarshalText writes the severity's name, as JSON reports carry it.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a severity's name.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	*s = v
	return err
}

// ParseSeverity reads "error", "warning" or "info".
func ParseSeverity(name string) (Severity, error) {
	for i, n := range severityNames {
		if n == name {
			return Severity(i), nil
		}
	}
	return Error, fmt.Errorf("unknown severity %q (want error, warning or info)", name)
}

// Profile chooses how strictly findings are graded.
type Profile uint8

const (
	// Strict grades every finding by the official contract.
	Strict Profile = iota
	// Tolerant reports legal variations and common vendor habits (missing
	// sequence numbers, Azure's filter chunk, Anthropic's compat tool
	// indices, …) as info, so that a CI job fails only on what breaks
	// clients that cope with the usual vendors.
	Tolerant
)

func (p Profile) String() string {
	if p == Tolerant {
		return "tolerant"
	}
	return "strict"
}

// ParseProfile reads "strict" or "tolerant".
func ParseProfile(name string) (Profile, error) {
	switch name {
	case "strict":
		return Strict, nil
	case "tolerant":
		return Tolerant, nil
	}
	return Strict, fmt.Errorf("unknown profile %q (want strict or tolerant)", name)
}

// Finding is one defect, with the events that prove it.
type Finding struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	// Events are ordinals of events in the stream (0 is its first frame),
	// at most MaxEvents of them; the message counts any left out.
	Events  []int  `json:"events"`
	Message string `json:"message"`
	// At is the event that tells the finding apart from the rule's others
	// (see Key), set by Report; reports are ordered by it.
	At int `json:"-"`
}

// Key is the event that tells the finding apart from the other findings of
// its rule, which reports are ordered by: At when it is one of the
// finding's events, else its first event, or -1 when it cites none.
func (f Finding) Key() int {
	if slices.Contains(f.Events, f.At) {
		return f.At
	}
	if len(f.Events) > 0 {
		return f.Events[0]
	}
	return -1
}

// Report is the result of checking a stream.
type Report struct {
	Outcome  model.Outcome
	Findings []Finding
}

// MarshalJSON writes the report as
// {"outcome": {"state", "detail"}, "findings": [{"rule", "severity",
// "events", "message"}]}. Scripts rely on this shape. The text is safe
// to print (jsonscan.AppendSafe).
func (r Report) MarshalJSON() ([]byte, error) {
	type outcome struct {
		State  string `json:"state"`
		Detail string `json:"detail"`
	}
	findings := slices.Clone(r.Findings)
	if findings == nil {
		findings = []Finding{}
	}
	for i := range findings {
		if findings[i].Events == nil {
			findings[i].Events = []int{}
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // messages quote stream bytes; keep <, > and & readable
	err := enc.Encode(struct {
		Outcome  outcome   `json:"outcome"`
		Findings []Finding `json:"findings"`
	}{outcome{r.Outcome.State, r.Outcome.Detail}, findings})
	// Messages and details quote stream bytes: escape what a terminal
	// would obey (C1, DEL) or what reorders text (bidi).
	return jsonscan.AppendSafe(nil, bytes.TrimSuffix(b.Bytes(), []byte("\n"))), err
}

// Max returns the highest severity found, and false when there are no
// findings.
func (r Report) Max() (Severity, bool) {
	if len(r.Findings) == 0 {
		return Info, false
	}
	m := Info
	for _, f := range r.Findings {
		m = max(m, f.Severity)
	}
	return m, true
}

// Fails reports whether any finding is at or above threshold.
func (r Report) Fails(threshold Severity) bool {
	m, ok := r.Max()
	return ok && m >= threshold
}

// Count returns how many findings have severity sev.
func (r Report) Count(sev Severity) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == sev {
			n++
		}
	}
	return n
}

// Bounds on what one report carries, so that a defect repeated on every
// one of a million events stays a readable report.
const (
	// MaxEvents is the most event ordinals one finding lists.
	MaxEvents = 20
	// MaxPerRule is the most findings one rule reports; the rest are
	// summed up in one more finding.
	MaxPerRule = 50
)

// Checker observes a session and judges it. Attach it before the first
// event (see Attach); read the result with Report, at the end or at any
// point while the stream is still arriving. A Checker belongs to one
// session and, like the session, is not safe for concurrent use.
type Checker struct {
	found    []Finding
	byRule   map[string]*ruleTally // see order.go
	items    int                   // s.Items observed so far
	lastDial model.Dialect
	sse      bool // some event was framed as SSE (not JSON lines or a JSON body)

	frames framingState
	// byDialect holds what each dialect's rules remember (see of), by
	// model.Dialect.
	byDialect []Judge
	// req is the request the stream answers, when known (SetRequest).
	req *requestChecks
	// cfg is what the user changed of the rules (SetConfig).
	cfg Config
}

// New returns a Checker with nothing observed.
func New() *Checker {
	return &Checker{byRule: map[string]*ruleTally{}}
}

// Attach returns opts with a new Checker as the session's observer, and
// the Checker.
func Attach(opts model.Options) (model.Options, *Checker) {
	c := New()
	opts.Observer = c
	return opts, c
}

// CheckBytes models a whole stream held in memory and checks it.
func CheckBytes(data []byte, format capture.Format, p Profile) Report {
	opts, c := Attach(model.Options{})
	s := model.Assemble(data, format, opts)
	return c.Report(s, p)
}

// Check judges a session. The session should have been built with a
// Checker attached (Attach), as its observer or beside others
// (model.Observers); a session built without one is modelled again
// from its bytes, which needs model.Options.Raw. A session with neither
// gets only its outcome: the rules need facts the assembly alone does not
// keep.
func Check(s *model.Session, p Profile) Report {
	if c, ok := model.FindObserver[*Checker](s); ok {
		return c.Report(s, p)
	}
	data, ok := readBack(s)
	if !ok {
		return Report{Outcome: s.Outcome()}
	}
	opts, c := Attach(model.Options{})
	fresh := model.NewSession(opts)
	fr := capture.NewFramer(capture.FormatAuto)
	emit := func(f *capture.Frame) { fresh.Add(f) }
	fr.Feed(data, capture.NoTime, emit)
	fr.Finish(capture.NoTime, emit)
	if ended, err := s.Ended(); ended {
		fresh.End(err)
	}
	return c.Report(fresh, p)
}

// readBack reads a session's bytes through Options.Raw.
func readBack(s *model.Session) ([]byte, bool) {
	const chunk = 1 << 20
	var out []byte
	for off := int64(0); off < s.Bytes(); off += chunk {
		n := min(chunk, s.Bytes()-off)
		b, err := s.Raw(&model.Event{Offset: off, Len: int32(n)})
		if err != nil {
			return nil, false
		}
		out = append(out, b...)
	}
	return out, s.Bytes() > 0
}

// Observe implements model.Observer.
func (c *Checker) Observe(s *model.Session, ord int, ev *model.Event, f *capture.Frame) {
	for ; c.items < len(s.Items); c.items++ {
		it := s.Items[c.items]
		if dc := c.of(it.Dialect); dc != nil {
			dc.NewItem(it, ord)
		}
	}
	if f.Kind == capture.FrameEvent && IsSSE(f) {
		c.sse = true
	}
	if d := s.RequestDialect(); ord == 0 && d != model.DialectUnknown {
		c.of(d) // the dialect of the request judges the stream, events or none (a request that got no response)
	}
	c.learnRecording(ord, f)
	c.learnWebSocket(s, f)
	c.observeFrame(s, ord, ev, f)
	if ev.Dialect != model.DialectUnknown {
		if dc := c.of(ev.Dialect); dc != nil {
			dc.Observe(c, s, ord, ev, f)
		}
		c.lastDial = ev.Dialect
	} else if dc := c.seen(c.lastDial); dc != nil {
		dc.Unplaced(c, s, ord, ev)
	}
	if ev.Kind == model.KindSentinel {
		c.observeSentinel(s, ord, ev)
	} else if f.Kind == capture.FrameEvent {
		c.afterSentinel(ord)
	}
}

// IsSSE tells an SSE event from a JSON line or body: its first byte starts
// a field or a comment, not a JSON value. Rules about SSE fields (event:
// names, [DONE]) apply only to SSE.
func IsSSE(f *capture.Frame) bool {
	if f.Flags&capture.EventStream != 0 {
		return false
	}
	for _, b := range f.Raw {
		switch b {
		case ' ', '\t', '\r', '\n':
			continue
		case '{', '[':
			return false
		}
		return true
	}
	return false
}

// Add records a finding at its rule's severity.
func (c *Checker) Add(id string, events []int, format string, args ...any) {
	sev := Error
	if r := ruleByID[id]; r != nil {
		sev = r.Severity
	}
	c.AddAt(id, sev, events, format, args...)
}

// AddAt records a finding at a given severity: a rule may grade one case
// lower than its default, as documented in its summary.
func (c *Checker) AddAt(id string, sev Severity, events []int, format string, args ...any) {
	c.record(id, sev, events, format, args...)
}

func capEvents(events []int) []int {
	out := slices.Clone(events)
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) > MaxEvents {
		out = out[:MaxEvents]
	}
	return out
}

// Report judges the session with everything observed so far. Rules about
// the end of the stream (a missing terminal event, a missing [DONE]) wait
// for Session.End. It does not change the Checker, so it may be called
// again as more events arrive.
func (c *Checker) Report(s *model.Session, p Profile) Report {
	end := &Checker{byRule: make(map[string]*ruleTally, len(c.byRule)), req: c.req, cfg: c.cfg}
	for id, t := range c.byRule {
		end.byRule[id] = t.clone()
	}
	c.finishFraming(end, s)
	for _, r := range dialects {
		if dc := c.seen(r.dialect); dc != nil {
			dc.Finish(end, s, c.sse)
		}
	}
	c.finishRequest(end, s)

	findings := append(slices.Clone(c.found), end.found...)
	findings = end.arrange(findings, p)
	return Report{Outcome: s.Outcome(), Findings: findings}
}

// grade applies the profile: under Tolerant a rule is graded no higher than
// its Tolerant severity.
func grade(f Finding, p Profile) Severity {
	r := ruleByID[f.Rule]
	if p == Tolerant && r != nil {
		return min(f.Severity, r.Tolerant)
	}
	return f.Severity
}

// Errored reports whether the stream ended in an error payload or an HTTP
// error status: the outcome tells that story, so a terminator missing after
// it is not a second defect.
func Errored(s *model.Session) bool { return len(s.Errors) > 0 }

// maxQuoted is how many runes of a value Quote shows.
const maxQuoted = 60

// quotedHead is how many bytes of a value hold more runes than Quote
// shows, however they are encoded (an invalid byte is a rune of its own).
const quotedHead = utf8.UTFMax * (maxQuoted + 1)

// Quote shortens a value from the stream for a message and quotes it, with
// control characters escaped. Only the value's first runes are decoded: it
// made a rune of every byte, 200 MB for the 50 MB arguments a finding
// quoted.
func Quote(v string) string {
	if r := []rune(v[:min(len(v), quotedHead)]); len(r) > maxQuoted {
		return fmt.Sprintf("%q… (%d bytes)", string(r[:maxQuoted]), len(v))
	}
	return fmt.Sprintf("%q", v)
}

// QuoteView is Quote(string(b)) without copying b.
func QuoteView(b []byte) string {
	if len(b) > quotedHead {
		r := []rune(string(b[:quotedHead]))
		return fmt.Sprintf("%q… (%d bytes)", string(r[:maxQuoted]), len(b))
	}
	return Quote(string(b))
}

// IDs ends a finding's message that names an item: " — " and the ids
// that tell it from the others, given as name and value pairs
// (`call_id "call_1", item "fc_1"`), the empty values left out; "" when
// none is left. A message says what happened first, naming the item by
// what it is and its name ("call get_weather"), and its ids once, after
// the sentence: ids in front (`item "call_1" (get_weather, fc_1)`) made
// the reader wade through them, put parentheses in a row and said an id
// twice when the sentence was about that id.
func IDs(pairs ...string) string {
	var b strings.Builder
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] == "" {
			continue
		}
		if b.Len() == 0 {
			b.WriteString(" — ")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(pairs[i] + " " + Quote(pairs[i+1]))
	}
	return b.String()
}

// Name writes a name from the stream (a tool's, a type) as it is when it
// is a plain identifier, and quoted, control characters escaped, when it
// is anything else: `call get_weather`, `call "a b"`.
func Name(s string) string { return label(s) }

// QuoteBytes is Quote for raw bytes: each run of invalid UTF-8 is one
// U+FFFD. A long value is converted only as far as the message shows it
// (an event of 50 MB that is not JSON was copied, then made a rune of
// every byte), when its first bytes hold that many runes.
func QuoteBytes(b []byte) string {
	if len(b) > quotedHead {
		head := []rune(string(bytes.ToValidUTF8(b[:quotedHead], replacement)))
		// Only the head's last rune may differ from the whole's: a rune
		// cut in two, or a run of invalid bytes that goes on.
		if len(head) > maxQuoted {
			return fmt.Sprintf("%q… (%d bytes)", string(head[:maxQuoted]), validLen(b))
		}
	}
	return Quote(string(bytes.ToValidUTF8(b, replacement)))
}

// replacement is what QuoteBytes puts for a run of invalid UTF-8.
var replacement = []byte("\uFFFD")

// validLen is len(bytes.ToValidUTF8(b, replacement)), without the copy.
func validLen(b []byte) int {
	if utf8.Valid(b) {
		return len(b)
	}
	n := 0
	invalid := false // the byte before was in an invalid sequence
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			n++
			invalid = false
			continue
		}
		_, w := utf8.DecodeRune(b[i:])
		i += w
		if w == 1 {
			if !invalid {
				n += len(replacement)
			}
			invalid = true
			continue
		}
		n += w
		invalid = false
	}
	return n
}

// Plural returns "1 event" or "3 events".
func Plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// SameJSON reports whether a and b are equal as JSON values (numbers as
// float64, objects whatever the order of their members, a duplicate
// member's last value): arguments that one writer re-serialised are the
// same arguments. It reports false when either does not parse.
func SameJSON(a, b []byte) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}
