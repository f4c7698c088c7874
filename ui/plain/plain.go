// Package ui presents a model.Session: the interactive inspector (Bubble
// Tea) and the plain-text and JSON views the headless commands print. It
// never opens files or sockets; it reads the session it is given.
package plain

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/jsonscan"
	"github.com/streamtap/streamtap/termtext"
)

// summaryMax bounds the quoted fragment in a one-line summary.
const summaryMax = 48

// LabelMax bounds, in bytes, each name, type, status or id a summary, a
// header or a lane takes from the stream: a row shows a few words of it
// (a lane at most laneMaxW cells), and a hostile
// stream's 4 MB tool name must not be made safe and measured whole on
// every frame.
const LabelMax = 256

// SafeLabel is stream text s cut to LabelMax bytes and made safe.
func SafeLabel(s string) string { return termtext.Safe(Truncate(s, LabelMax)) }

// Summary describes what event ord did in a few words: the fragment a delta
// added, the status a lifecycle event set, the item an open or done event
// names. raw, when not nil, is the event's bytes (used for comments and
// errors). The result is terminal-safe.
func Summary(s *model.Session, ev *model.Event, ord int, raw []byte) string {
	return Summarize(s, ev, ord, raw, LabelFull)
}

// Summarize is Summary with the item named as mode says.
func Summarize(s *model.Session, ev *model.Event, ord int, raw []byte, mode LabelMode) string {
	itemLabel := func(it *model.Item) string { return itemLabelAs(it, mode, eventID(it, ord)) }
	var it *model.Item
	if ev.Item >= 0 && int(ev.Item) < len(s.Items) {
		it = s.Items[ev.Item]
	}
	switch ev.Kind {
	case model.KindKeepalive:
		if ev.Source == capture.FrameComment && raw != nil {
			return "comment " + QuoteShort(strings.TrimSpace(strings.TrimPrefix(string(bytes.TrimSpace(raw)), ":")))
		}
		return "keep-alive"
	case model.KindSentinel:
		return "end of stream sentinel"
	case model.KindError:
		// Errors are in stream order: a search, not a walk, so that a
		// stream of many error events is not quadratic.
		if i := sort.Search(len(s.Errors), func(i int) bool { return s.Errors[i].Ordinal >= ord }); i < len(s.Errors) && s.Errors[i].Ordinal == ord {
			e := s.Errors[i]
			msg := Truncate(e.Message, LabelMax) // cut to what shows before joining
			if e.Code != "" {
				msg = Truncate(e.Code, LabelMax) + ": " + msg
			}
			if e.Status > 0 {
				msg = "HTTP " + strconv.Itoa(e.Status) + " " + msg
			}
			return termtext.Safe(Truncate(msg, 2*summaryMax))
		}
		return "error"
	}
	if it != nil {
		switch ev.Kind {
		case model.KindArgsDelta:
			if frag, ok := Fragment(&it.Args, ord); ok {
				return itemLabel(it) + " +" + QuoteShort(frag)
			}
			if ops := it.PathArgs().OpsAt(ord); len(ops) > 0 {
				return itemLabel(it) + " " + pathOps(ops)
			}
			if it.ArgsAsOf(ord) != nil {
				args := it.ArgsAsOf(ord)
				return itemLabel(it) + " args " + QuoteShort(tail(string(args[max(len(args)-summaryMax-utf8.UTFMax, 0):]), summaryMax))
			}
		case model.KindTextDelta:
			for _, b := range []struct {
				name string
				buf  *model.Buffer
			}{{"text", &it.Text}, {"refusal", it.Refusal}, {"signature", it.Sign}} {
				if frag, ok := Fragment(b.buf, ord); ok {
					name := b.name
					if it.Role == model.RoleReasoning && name == "text" {
						name = "reasoning"
					}
					return name + " +" + QuoteShort(frag)
				}
			}
		case model.KindArgsDone:
			b, v := it.FinalArgsViewAsOf(ord)
			return fmt.Sprintf("%s args done (%d bytes)", itemLabel(it), max(len(b), len(v)))
		case model.KindItemOpen:
			return strings.TrimSpace(SafeLabel(it.Type) + " " + itemLabel(it))
		case model.KindItemDone:
			st := it.Status.AsOf(ord)
			if st == "" {
				return itemLabel(it) + " done"
			}
			return itemLabel(it) + " done, " + SafeLabel(st)
		}
	}
	change := statusChange(s, ord)
	if it != nil && it.IsCall() && it.Opened == ord && (it.Closed == ord || ev.Kind == model.KindTerminal) {
		// One event carried the whole call (a Gemini functionCall, an
		// Ollama tool call): say so, beside how the response ended.
		b, v := it.FinalArgsViewAsOf(ord)
		text := "call " + itemLabel(it) + " (" + Bytes(int64(max(len(b), len(v)))) + ")"
		if change != "" {
			text += " · " + change
		}
		return text
	}
	if change != "" {
		return change
	}
	switch {
	case ev.Flags&model.DecodeError != 0:
		return "not JSON"
	case ev.Source == capture.FrameRemainder:
		return fmt.Sprintf("%d trailing bytes", ev.Len)
	case ev.Source == capture.FrameHead:
		if i := sort.Search(len(s.Heads), func(i int) bool { return s.Heads[i].Ordinal >= ord }); i < len(s.Heads) && s.Heads[i].Ordinal == ord {
			h := s.Heads[i]
			return SafeLabel(h.Proto) + " " + strconv.Itoa(h.Status)
		}
	}
	if it != nil {
		return itemLabel(it)
	}
	return ""
}

// Fragment returns the text event ord added to buf.
func Fragment(buf *model.Buffer, ord int) (string, bool) {
	start, end, ok := buf.FragmentAt(ord)
	if !ok {
		return "", false
	}
	// Only the start is shown: copy no more of a possibly 50 MB fragment
	// than quoteShort keeps (and enough more to know it was cut).
	end = min(end, start+summaryMax+utf8.UTFMax)
	return string(buf.Bytes()[start:end]), true
}

// pathOps describes the values an event added at JSON paths (Gemini's
// partialArgs) as the other dialects' deltas are described, by what they
// added: a string's piece as +"…" (the next piece of the same string may
// follow), any other value as = and its JSON, each after its path; the
// first few.
func pathOps(ops []model.PathOp) string {
	const shown = 3
	var b strings.Builder
	for i, op := range ops[:min(len(ops), shown)] {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(SafeLabel(op.Path))
		if op.IsStr {
			b.WriteString(" +" + QuoteShort(string(op.Str[:min(len(op.Str), summaryMax+utf8.UTFMax)])))
		} else {
			b.WriteString(" = " + termtext.Safe(Truncate(string(op.Raw[:min(len(op.Raw), summaryMax+utf8.UTFMax)]), summaryMax)))
		}
	}
	if len(ops) > shown {
		fmt.Fprintf(&b, " (+%d more)", len(ops)-shown)
	}
	return b.String()
}

// statusChange describes a finish reason or response status set by ord.
// A finish reason comes first: where one event sets both (a Gemini or
// Chat chunk that ends the candidate and the response), the reason says
// why it ended, the status only that it did.
//
// Each dialect's assembly changes only its current response, the newest
// of that dialect, so the search starts at the newest response begun by
// ord and walks back only over responses of dialects not met yet: one or
// two responses, where a walk over all of them made the timeline of a
// stream of many responses quadratic.
func statusChange(s *model.Session, ord int) string {
	rs := s.Responses
	var met [8]model.Dialect // the dialects walked past; more is not a real stream
	n := 0
	for i := sort.Search(len(rs), func(i int) bool { return rs[i].First > ord }) - 1; i >= 0 && n < len(met); i-- {
		r := rs[i]
		if slices.Contains(met[:n], r.Dialect) {
			break
		}
		met[n] = r.Dialect
		n++
		if text := responseChange(r, ord); text != "" {
			return text
		}
	}
	return ""
}

// responseChange describes the finish reason or status r's event ord set,
// or "".
func responseChange(r *model.Response, ord int) string {
	for _, cf := range r.Finish {
		if c, ok := changeAt(cf.Reasons, ord); ok {
			if cf.Choice > 0 {
				return fmt.Sprintf("choice %d finish %s", cf.Choice, SafeLabel(c.Value))
			}
			return "finish " + SafeLabel(c.Value)
		}
	}
	h := r.Status
	i := sort.Search(len(h), func(i int) bool { return h[i].Ordinal >= ord })
	if i < len(h) && h[i].Ordinal == ord {
		if i > 0 {
			return "status " + SafeLabel(h[i-1].Value) + "→" + SafeLabel(h[i].Value)
		}
		return "status " + SafeLabel(h[i].Value)
	}
	return ""
}

// changeAt finds the change event ord made in h (in stream order).
func changeAt(h model.History, ord int) (model.Change, bool) {
	i := sort.Search(len(h), func(i int) bool { return h[i].Ordinal >= ord })
	if i < len(h) && h[i].Ordinal == ord {
		return h[i], true
	}
	return model.Change{}, false
}

// ItemLabel names an item by the ids a reader would search for.
func ItemLabel(it *model.Item) string { return itemLabelAs(it, LabelFull, "") }

// eventID is the id event ord named its item by when that differs from
// the id the item is known by (a gateway renaming an item mid-call), or "".
func eventID(it *model.Item, ord int) string {
	if len(it.IDs) == 0 {
		return ""
	}
	own, field := it.ItemID, "item_id"
	if own == "" {
		own, field = it.CallID, ""
	}
	for _, x := range it.IDs {
		if x.Ordinal != ord || x.Value == "" || x.Value == own || x.Field == "name" {
			continue
		}
		if (field == "item_id") == (x.Field == "item_id") {
			return x.Value
		}
	}
	return ""
}

// ItemLabelAs names an item, keeping as much of its id as mode says.
func ItemLabelAs(it *model.Item, mode LabelMode) string { return itemLabelAs(it, mode, "") }

// LabelMode says how much of an item's id a label keeps.
type LabelMode uint8

const (
	LabelFull  LabelMode = iota // the id's start and end, and the name
	LabelShort                  // the id's last characters, and the name
	LabelName                   // the name alone, or the id's last characters
)

// idTail is how much of an id labelShort keeps: enough to tell apart the
// items of one stream, whose ids differ at the end.
const idTail = 4

// itemLabelAs names an item, keeping as much of its id as mode says;
// seen, when not "", is the other id the event named it by, shown after
// the item's own as the change it is ("fc_tmp…ok4d → fc_68e7…0865").
func itemLabelAs(it *model.Item, mode LabelMode, seen string) string {
	var parts []string
	id := it.ItemID
	if id == "" {
		id = it.CallID
	}
	switch {
	case id == "":
	case mode == LabelFull && seen != "":
		parts = append(parts, shortID(id)+" → "+shortID(Truncate(seen, LabelMax)))
	case mode == LabelFull:
		parts = append(parts, shortID(id))
	case (mode == LabelShort || it.Name == "") && seen != "":
		parts = append(parts, IDEnd(id)+"→"+IDEnd(seen))
	case mode == LabelShort || it.Name == "":
		parts = append(parts, IDEnd(id))
	}
	if it.Name != "" {
		parts = append(parts, Truncate(it.Name, LabelMax))
	}
	if len(parts) == 0 {
		label := Truncate(it.Type, LabelMax)
		if it.Position >= 0 {
			label += "[" + strconv.Itoa(it.Position) + "]"
		}
		parts = append(parts, label)
	}
	return termtext.Safe(strings.Join(parts, " "))
}

// shortID keeps the start and end of a long id: OpenAI item ids run to 53
// characters and would push what a summary is about (the fragment an event
// added) out of a timeline row. The full id is in the detail pane and in
// `streamtap events`.
func shortID(id string) string {
	const head, tail = 11, 4
	if len(id) <= head+tail+4 || !utf8.ValidString(id) {
		return Truncate(id, LabelMax)
	}
	return id[:head] + "…" + id[len(id)-tail:]
}

// IDEnd keeps the last idTail runes of a long id. It walks back from the
// end, so that a huge id costs what a short one does.
func IDEnd(id string) string {
	cut := len(id)
	for range idTail {
		_, size := utf8.DecodeLastRuneInString(id[:cut])
		cut -= size
	}
	if _, size := utf8.DecodeRuneInString(id); size >= cut {
		return id // idTail+1 runes or fewer
	}
	return "…" + id[cut:]
}

func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := len(s) - n
	for cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut++
	}
	return "…" + s[cut:]
}

// QuoteShort quotes text as a JSON-ish string literal, shortened, safe.
func QuoteShort(s string) string {
	b, _ := json.Marshal(Truncate(s, summaryMax))
	return termtext.Safe(string(b))
}

// FormatTime prints an arrival time, or "-" when the event has none.
func FormatTime(d time.Duration) string {
	if d == capture.NoTime {
		return "-"
	}
	return fmt.Sprintf("%.3fs", d.Seconds())
}

// WriteTimelineLine prints one event as a line of the plain timeline:
// ordinal, arrival time, gap since the previous event, sequence number,
// kind, type and summary.
func WriteTimelineLine(w io.Writer, s *model.Session, ev *model.Event, ord int, prevAt time.Duration, raw []byte) error {
	gap := "-"
	if ev.At != capture.NoTime && prevAt != capture.NoTime {
		gap = "+" + FormatTime(ev.At-prevAt)
	}
	seq := "-"
	if ev.Seq >= 0 {
		seq = strconv.FormatInt(ev.Seq, 10)
	}
	_, err := fmt.Fprintf(w, "%5d  %8s %9s  seq %-5s %-10s %-44s %s%s\n", ord, FormatTime(ev.At), gap, seq,
		ev.Kind, termtext.Safe(s.TypeName(ev.Type)), Summary(s, ev, ord, raw), flagNote(ev))
	return err
}

// flagNote marks anomalies at the end of a timeline line.
func flagNote(ev *model.Event) string {
	fl := FlagNames(ev)
	if len(fl) == 0 {
		return ""
	}
	return "  [" + strings.Join(fl, ",") + "]"
}

// FlagNames names an event's framing and model flags that matter to a
// reader (line endings are left out: they are shown in the raw view).
func FlagNames(ev *model.Event) []string {
	var out []string
	cf := []struct {
		f    capture.Flags
		name string
	}{
		{capture.Truncated, "truncated"}, {capture.LeadingSpaceField, "leading-space-field"},
		{capture.UnknownField, "unknown-field"}, {capture.InvalidUTF8, "invalid-utf8"},
		{capture.IDHasNUL, "id-has-nul"}, {capture.BadRetry, "bad-retry"}, {capture.NULByte, "nul-byte"},
		{capture.NoData, "no-data"}, {capture.TooLarge, "too-large"}, {capture.BOM, "bom"},
		{capture.Implied, "implied"}, {capture.BlankLines, "blank-lines"},
		{capture.NoNewline, "no-newline"}, {capture.PreludeCRC, "prelude-crc-mismatch"},
		{capture.MessageCRC, "message-crc-mismatch"}, {capture.BadLength, "bad-length"},
		{capture.Exception, "exception"},
	}
	for _, c := range cf {
		if ev.Frame&c.f != 0 {
			out = append(out, c.name)
		}
	}
	mf := []struct {
		f    model.Flags
		name string
	}{
		{model.DecodeError, "invalid-json"}, {model.NotObject, "not-an-object"},
		{model.NameMismatch, "event-name-mismatch"}, {model.NonStandard, "non-standard"},
		{model.Orphan, "orphan"}, {model.Matched, "matched-by-fallback"},
	}
	for _, c := range mf {
		if ev.Flags&c.f != 0 {
			out = append(out, c.name)
		}
	}
	return out
}

// EventLine is one line of `streamtap events`: a stable JSON shape. Its
// strings and data hold stream text as it came; whoever prints it passes
// the encoding through jsonscan.AppendSafe, so that no raw C1 control,
// DEL, bidi rune or byte that is not UTF-8 reaches the output.
type EventLine struct {
	Ordinal  int             `json:"ordinal"`
	Offset   int64           `json:"offset"`
	Length   int32           `json:"length"`
	Time     *float64        `json:"time"` // seconds since the first byte, null when untimed
	Event    *string         `json:"event"`
	ID       *string         `json:"id"`
	Dialect  string          `json:"dialect"`
	Kind     string          `json:"kind"`
	Type     string          `json:"type"`
	Seq      *int64          `json:"seq"`
	Item     *int32          `json:"item,omitempty"`
	Data     json.RawMessage `json:"data,omitempty"`
	Text     *string         `json:"data_text,omitempty"`
	Base64   string          `json:"data_base64,omitempty"`
	Error    *DecodeError    `json:"error,omitempty"`
	Comment  *string         `json:"comment,omitempty"`
	Status   int             `json:"status,omitempty"`
	Headers  [][2]string     `json:"headers,omitempty"`
	Flags    []string        `json:"flags,omitempty"`
	Truncate bool            `json:"truncated,omitempty"`
	// RawBase64 is the event's bytes (offset and length in the input),
	// base64, when they are not UTF-8: the JSON strings above then hold
	// U+FFFD where a byte was, and this is how to get the bytes back.
	RawBase64 string `json:"raw_base64,omitempty"`
	// Explain is set by `events --explain` (see NewExplainJSON).
	Explain *ExplainJSON `json:"explain,omitempty"`
}

// DecodeError locates why data is not JSON.
type DecodeError struct {
	Message string `json:"message"`
	Offset  int    `json:"offset"`
}

// NewEventLine describes event ord; f is the frame it came from.
func NewEventLine(s *model.Session, ev *model.Event, ord int, f *capture.Frame, keepSecrets bool) EventLine {
	l := EventLine{Ordinal: ord, Offset: ev.Offset, Length: ev.Len, Dialect: ev.Dialect.String(),
		Kind: ev.Kind.String(), Type: s.TypeName(ev.Type), Flags: FlagNames(ev),
		Truncate: ev.Frame&capture.Truncated != 0}
	if ev.At != capture.NoTime {
		t := ev.At.Seconds()
		l.Time = &t
	}
	if ev.Seq >= 0 {
		seq := ev.Seq
		l.Seq = &seq
	}
	if ev.Item >= 0 {
		item := ev.Item
		l.Item = &item
	}
	if f.HasEvent {
		e := string(f.Event)
		l.Event = &e
	}
	if f.HasID {
		id := string(f.ID)
		l.ID = &id
	}
	if !utf8.Valid(f.Raw) {
		l.RawBase64 = base64.StdEncoding.EncodeToString(f.Raw)
	}
	if f.Flags&capture.EventStream != 0 {
		// An event stream message's headers: :event-type, :message-type …
		for _, h := range f.Header {
			l.Headers = append(l.Headers, [2]string{string(h.Name), string(h.Value)})
		}
	}
	switch f.Kind {
	case capture.FrameComment:
		c := strings.TrimSpace(string(f.Raw))
		l.Comment = &c
	case capture.FrameHead:
		l.Status = f.Status
		for _, h := range f.Header {
			l.Headers = append(l.Headers, [2]string{string(h.Name), RedactHeader(string(h.Name), string(h.Value), keepSecrets)})
		}
	}
	if !f.HasData {
		return l
	}
	data := f.Data
	if ev.Flags&model.DecodeError == 0 && ev.Kind != model.KindSentinel {
		var buf bytes.Buffer
		if json.Compact(&buf, data) == nil {
			l.Data = buf.Bytes()
			return l
		}
	}
	if utf8.Valid(data) {
		t := string(data)
		l.Text = &t
	} else {
		l.Base64 = base64.StdEncoding.EncodeToString(data)
	}
	if ev.Flags&model.DecodeError != 0 {
		var se *jsonscan.SyntaxError
		if err := jsonscan.Validate(data); errors.As(err, &se) {
			l.Error = &DecodeError{Message: se.Msg, Offset: se.Offset}
		}
	}
	return l
}

// RedactHeader hides the value of a header that carries credentials, and
// the credentials in the query of one that carries a URL
// (capture.RedactHeaderValue), unless keep.
func RedactHeader(name, value string, keep bool) string {
	if keep {
		return value
	}
	return capture.RedactHeaderValue(name, value)
}

// WriteCalls prints the calls report for people.
func WriteCalls(w io.Writer, rep model.CallsReport) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s · %s", rep.Dialect, rep.Outcome.State)
	if rep.Outcome.Detail != "" {
		fmt.Fprintf(&b, " (%s)", termtext.Safe(rep.Outcome.Detail))
	}
	fmt.Fprintf(&b, " · %s", CountOf(len(rep.Calls), "call"))
	if rep.Steps > 0 {
		fmt.Fprintf(&b, " · %s", CountOf(rep.Steps, "step"))
	}
	b.WriteString("\n")
	for i, c := range rep.Calls {
		id := "(no id)"
		if c.ID != nil {
			id = *c.ID
		}
		fmt.Fprintf(&b, "\n%2d. %s  id %s", i+1, termtext.Safe(c.Name), termtext.Safe(id))
		if c.ItemID != "" {
			fmt.Fprintf(&b, "  item %s", termtext.Safe(c.ItemID))
		}
		fmt.Fprintf(&b, "  %s  %s  json %s", termtext.Safe(c.Kind), termtext.Safe(c.Status), c.ArgumentsJSON)
		writeRunFlags(&b, c)
		fmt.Fprintf(&b, "    %s\n", termtext.Safe(c.Arguments))
		writeRun(&b, c)
		if c.Sources != nil {
			b.WriteString("    sources disagree:\n")
			for _, k := range []string{"deltas", "arguments_done", "item_done", "terminal"} {
				if v, ok := c.Sources[k]; ok {
					fmt.Fprintf(&b, "      %-15s %s\n", k, termtext.Safe(v))
				}
			}
		}
	}
	switch t := rep.Reasoning.(type) {
	case string:
		fmt.Fprintf(&b, "\nreasoning: %s\n", reasoningLine(t))
	case []string:
		for i, s := range t {
			fmt.Fprintf(&b, "\nreasoning[%d]: %s\n", i, reasoningLine(s))
		}
	}
	switch t := rep.Text.(type) {
	case string:
		if t != "" {
			fmt.Fprintf(&b, "\ntext: %s\n", termtext.Safe(t))
		} else if len(rep.TextSources) > 0 {
			b.WriteString("\n")
		}
	case []string:
		for i, s := range t {
			fmt.Fprintf(&b, "\ntext[%d]: %s\n", i, termtext.Safe(s))
		}
	}
	writeTextSources(&b, rep.TextSources)
	_, err := io.WriteString(w, b.String())
	return err
}

// reasoningLine is reasoning as WriteCalls shows it: its text, or what
// an empty one means.
func reasoningLine(s string) string {
	if s == "" {
		return "(no text: redacted or encrypted)"
	}
	return termtext.Safe(s)
}

// writeRunFlags ends a call's line with what an application's stream says
// of it: its step, and who ran it.
func writeRunFlags(b *strings.Builder, c model.CallReport) {
	if c.Step > 0 {
		fmt.Fprintf(b, "  step %d", c.Step)
	}
	if c.ProviderExecuted {
		b.WriteString("  provider-executed")
	}
	if c.Dynamic {
		b.WriteString("  dynamic")
	}
	b.WriteString("\n")
}

// writeRun shows, under a call's arguments, what became of it: its
// output, its error, the approval it waits for.
func writeRun(b *strings.Builder, c model.CallReport) {
	if c.Output != nil {
		after := ""
		if c.Preliminary > 0 {
			after = fmt.Sprintf(" (after %s)", CountOf(c.Preliminary, "preliminary output"))
		}
		fmt.Fprintf(b, "    → output%s %s\n", after, termtext.Safe(*c.Output))
	}
	if c.Error != "" {
		fmt.Fprintf(b, "    → error %s\n", termtext.Safe(c.Error))
	}
	if c.ApprovalID != "" {
		fmt.Fprintf(b, "    → waits for approval %s\n", termtext.Safe(c.ApprovalID))
	}
}

// writeTextSources shows, under the text, each message whose statements
// of its text disagree, as a call's disagreeing argument sources are
// shown under it: every statement by source name.
func writeTextSources(b *strings.Builder, sources []model.TextSourcesReport) {
	for _, ts := range sources {
		which := "message"
		if ts.ItemID != "" {
			which = "item " + termtext.Safe(ts.ItemID)
		}
		fmt.Fprintf(b, "    text sources disagree (%s, index %d):\n", which, ts.Index)
		for _, k := range []string{"deltas", "text_done", "part_done", "item_done", "terminal"} {
			if v, ok := ts.Sources[k]; ok {
				fmt.Fprintf(b, "      %-15s %s\n", k, termtext.Safe(v))
			}
		}
	}
}

func Bytes(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
}

// typePrefixes are the prefixes each dialect's event types share
// ("response."), and typeAbbrev shortens the long words of the dialects'
// event types when they do not fit: both as the dialects describe
// themselves (model.DialectInfo).
var typePrefixes, typeAbbrev = dialectTypeNaming()

func dialectTypeNaming() ([]string, *strings.Replacer) {
	var prefixes, pairs []string
	for _, d := range model.AllDialects() {
		info := d.Info()
		if info.TypePrefix != "" {
			prefixes = append(prefixes, info.TypePrefix)
		}
		pairs = append(pairs, info.Abbrev...)
	}
	return prefixes, strings.NewReplacer(pairs...)
}

// ShortType drops the prefix every event type of a dialect shares, and
// abbreviates what still does not fit in w.
func ShortType(t string, w int) string {
	for _, p := range typePrefixes {
		if after, ok := strings.CutPrefix(t, p); ok && after != "" {
			t = after
			break
		}
	}
	if len(t) > w {
		t = typeAbbrev.Replace(t)
	}
	return t
}

// EventData returns an event's data: the joined data: lines of an SSE
// block, or the bytes themselves for JSON lines and whole bodies. The data
// of a block with one data: line (nearly all) points into raw rather than
// being a copy of a possibly 50 MB line.
func EventData(raw []byte) ([]byte, bool) {
	t := bytes.TrimSpace(raw)
	if len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		return t, true
	}
	var first, out []byte
	n := 0
	for rest := raw; len(rest) > 0; {
		var line []byte
		line, rest = cutLine(rest)
		v, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			continue
		}
		v = bytes.TrimPrefix(v, []byte(" "))
		switch n {
		case 0:
			first = v
		case 1:
			out = append(make([]byte, 0, len(raw)), first...)
			fallthrough
		default:
			out = append(append(out, '\n'), v...)
		}
		n++
	}
	if n == 1 {
		return first, true
	}
	return out, n > 0
}

// cutLine splits off one line (without its ending) at \n, \r\n or \r.
func cutLine(b []byte) (line, rest []byte) {
	nl := bytes.IndexByte(b, '\n')
	if nl < 0 {
		nl = len(b)
	}
	if cr := bytes.IndexByte(b[:nl], '\r'); cr >= 0 {
		if cr+1 < len(b) && b[cr+1] == '\n' {
			return b[:cr], b[cr+2:]
		}
		return b[:cr], b[cr+1:]
	}
	if nl < len(b) {
		return b[:nl], b[nl+1:]
	}
	return b, nil
}

// ShapeNamed reports whether every event of type t has that one type (a
// Chat chunk, a Gemini chunk, an Ollama line: model.NamedByShape, which
// the dialects' DialectInfo.ShapeTypes say), so that a row names the
// event by its shape (Session.Shape: "tool_calls.first", "finish_reason")
// rather than repeat the constant.
func ShapeNamed(t string) bool { return model.NamedByShape(t) }

// ShapesOf lists the shapes (their Sub) the explanations table knows of
// type t: the names a row of that type can show (see ShapeNamed).
func ShapesOf(t string) []string { return shapesByType[t] }

var shapesByType = func() map[string][]string {
	m := map[string][]string{}
	for _, e := range model.Explanations() {
		if e.Shape.Sub != "" {
			m[e.Shape.Type] = append(m[e.Shape.Type], e.Shape.Sub)
		}
	}
	return m
}()
