package streamdiff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/model/jsonscan"
)

// Result is the comparison of two streams. Its JSON form is the `streamtap
// diff --json` document, a contract: fields may be added, never renamed or
// removed.
type Result struct {
	// Mode is "events" when the events were aligned (one dialect), or
	// "semantic" when only calls, text and outcome were compared (two
	// dialects); Note says why.
	Mode string
	Note string
	// Ignored lists what was ignored (see Ignore).
	Ignored []string
	A, B    Summary
	// Timing holds each side's timing when both streams carry arrival
	// times; nil otherwise.
	Timing *TimingPair
	// Differences lists the differences, events first in the order of A,
	// then calls, text, outcome and timing; at most MaxListed of them.
	Differences []Difference
	// Counts counts the differences by kind, listed or not (a run of the
	// same difference over consecutive events counts once).
	Counts map[string]int
	// Omitted is how many differences were not listed past MaxListed.
	Omitted int
	// Steps lines up the model calls of both sides when their assembled
	// results were compared (CompareLegs: two dialects, or one side of
	// several streams), one pair per step; nil otherwise.
	Steps []StepPair
	// ASessions and BSessions describe each stream of a side made of
	// several (an app's provider requests, one recording each); nil for a
	// side of one stream, which A or B describes.
	ASessions, BSessions []Summary

	links Links
}

// StepPair is one step (one model call) of each side, as CompareLegs
// lined them up; nil on a side that has no counterpart.
type StepPair struct {
	Step int       `json:"step"` // from 1
	A    *StepSide `json:"a"`
	B    *StepSide `json:"b"`
	// Notes say what was paired without being compared (a tool the
	// provider ran, which one side's dialect shows as no call).
	Notes []string `json:"notes,omitempty"`
}

// StepSide is a step of one side: the stream it is in, its events, its
// calls and how it ended.
type StepSide struct {
	Session int    `json:"session"` // the stream's index in ASessions or BSessions (0 for a side of one)
	Name    string `json:"name"`
	// First and Last are its first and last events (-1 when it has none:
	// an empty stream).
	First   int                 `json:"first_event"`
	Last    int                 `json:"last_event"`
	Calls   int                 `json:"calls"`
	Outcome model.OutcomeReport `json:"outcome"`
	// Cut says why a client saw the step cut when its outcome does not
	// say so (its terminal event was never dispatched).
	Cut string `json:"cut,omitempty"`
}

// MaxListed is the most differences a Result lists; Counts still counts
// them all. A gateway that adds a member to each of a million events
// differs a million times, and no one reads past the first screens.
const MaxListed = 1000

// Equal reports whether the streams are equivalent: no difference beyond
// what was ignored.
func (r *Result) Equal() bool {
	for _, n := range r.Counts {
		if n > 0 {
			return false
		}
	}
	return true
}

// Links returns the linked selection of the two streams.
func (r *Result) Links() *Links { return &r.links }

// Summary describes one side.
type Summary struct {
	Name      string              `json:"name"`
	Dialect   string              `json:"dialect"`
	Events    int                 `json:"events"`
	Responses int                 `json:"responses"`
	Calls     int                 `json:"calls"`
	Outcome   model.OutcomeReport `json:"outcome"`
	Timed     bool                `json:"timed"`
}

// TimingPair is the timing of both sides.
type TimingPair struct {
	A Times `json:"a"`
	B Times `json:"b"`
}

// Times is when a stream's events arrived, measured from the start of
// the capture. A duration is negative when the stream has no such event.
type Times struct {
	FirstEvent     time.Duration // the first event
	FirstArgsDelta time.Duration // the first argument fragment
	Total          time.Duration // the last event
	LargestGap     time.Duration // the longest wait between two events
	GapEvent       int           // the event that ended the longest wait, or -1
}

// MarshalJSON writes durations as seconds, null when absent.
func (t Times) MarshalJSON() ([]byte, error) {
	sec := func(d time.Duration) *float64 {
		if d < 0 {
			return nil
		}
		s := d.Seconds()
		return &s
	}
	return marshal(struct {
		FirstEvent     *float64 `json:"first_event"`
		FirstArgsDelta *float64 `json:"first_args_delta"`
		Total          *float64 `json:"total"`
		LargestGap     *float64 `json:"largest_gap"`
		GapEvent       *int     `json:"largest_gap_event"`
	}{sec(t.FirstEvent), sec(t.FirstArgsDelta), sec(t.Total), sec(t.LargestGap), ordOrNil(t.GapEvent)})
}

// Difference is one way the streams differ. Event ordinals are the `#`
// of the timeline (and "ordinal" of `streamtap events`); -1 when the
// difference has no event on that side.
type Difference struct {
	Kind Kind
	// Item names the response, item or call the difference is about, as
	// "response 0", "call get_weather (response 0, output 1)".
	Item string
	// Type is the event type (event-level differences).
	Type string
	// Path is the JSON path of a field ("delta",
	// "response.usage.output_tokens"), or what of a call, text or outcome
	// differs ("arguments", "name", "state").
	Path string
	// EventA and EventB are the first events on each side; LastA and
	// LastB the last ones of a difference that covers several (-1 when
	// the same or none); CountA and CountB count its events.
	EventA, EventB int
	LastA, LastB   int
	CountA, CountB int
	// A and B are the values on each side as JSON, nil when absent.
	// Strings over maxValue bytes are cut, and Truncated says so.
	A, B      json.RawMessage
	Truncated bool
	// Offset is the byte of the text where a Text difference starts; A and
	// B then hold each text from a little before it (see Text).
	Offset *int
	// ArgsJSONEqual and ArgsBytesEqual compare a call's final arguments
	// as JSON values and as bytes (Call differences on arguments only).
	ArgsJSONEqual, ArgsBytesEqual *bool
	// ArgsChanges is how a call's final arguments (or a string field of
	// a call's events that holds whole arguments) differ as JSON: each
	// path with both values and where each side diverges (ArgsDiff), the
	// first MaxPathChanges of them; ArgsChangesMore counts the rest. nil
	// when they are equal as JSON or not both JSON.
	ArgsChanges     []PathChange
	ArgsChangesMore int
	// Message says it in one line. It holds stream text: escape it
	// before it reaches a terminal.
	Message string
	// Step is the step (from 1) a difference of CompareLegs is about; 0
	// otherwise.
	Step int

	pos  int64 // where it sorts
	says says  // how to write Message from the other fields, for the kinds made lazily
	// items are the items a call, text or ids difference is about, on
	// each side: Session.Items index + 1, 0 for none (Marks reads them).
	items [2]int32
	// session is the stream of each side its events are in, when multi
	// says the side is several streams (CompareLegs).
	session [2]int32
	multi   [2]bool
}

// Session returns the index (in Result.ASessions or BSessions) of the
// stream of side w that the difference's events of that side are in, and
// false when the side is one stream.
func (d *Difference) Session(w Which) (int, bool) {
	return int(d.session[w&1]), d.multi[w&1]
}

// says is how a Difference's Message is written from its other fields.
// The differences found most often (two shuffled streams differ about
// once every three events) get their Message only when they are listed
// (MaxListed): formatting one for every difference found was a fifth of
// what comparing two such streams allocated.
type says uint8

const (
	saysMessage         says = iota // Message is set when the difference is made
	saysOnlyIn                      // only in A (or B): N events, the first a TYPE — ITEM
	saysOnlyInWhole                 // only in A (or B): the whole ITEM (N events) — ITEM
	saysMoved                       // ITEM: TYPE at A#a comes elsewhere in B (B#b)
	saysChunking                    // ITEM: A sends N TYPE events, B M
	saysField                       // TYPE PATH: A ≠ B (differs from byte N)
	saysFieldRun                    // TYPE PATH: A ≠ B on N events (A#a–#b)
	saysArgsOfCall                  // TYPE PATH: the final arguments of ITEM, which differ (its call difference says how)
	saysArgsJSON                    // TYPE PATH differs as JSON at N paths: /p: a → b …, or is equal as JSON
	saysArgsOfNamedCall             // TYPE PATH: the final arguments of CALL (Message made with the difference)
)

// saysArgs reports whether a field difference is said as arguments (see
// argsField): such a difference is not merged into a run.
func (s says) saysArgs() bool {
	return s == saysArgsOfCall || s == saysArgsJSON || s == saysArgsOfNamedCall
}

// describe writes d's Message when it is made lazily.
func (d *Difference) describe() {
	switch d.says {
	case saysMessage, saysArgsOfNamedCall:
		return
	case saysOnlyIn, saysOnlyInWhole:
		side, count := "A", d.CountA
		if d.Kind == OnlyInB {
			side, count = "B", d.CountB
		}
		what := fmt.Sprintf("%d events, the first a %s", count, d.Type)
		if count == 1 {
			what = d.Type
		}
		if d.says == saysOnlyInWhole {
			what = "the whole " + d.Item + fmt.Sprintf(" (%d events)", count)
		}
		d.Message = fmt.Sprintf("only in %s: %s — %s", side, what, d.Item)
	case saysMoved:
		d.Message = fmt.Sprintf("%s: %s at A#%d comes elsewhere in B (B#%d)", d.Item, d.Type, d.EventA, d.EventB)
	case saysChunking:
		d.Message = fmt.Sprintf("%s: A sends %d %s events, B %d", d.Item, d.CountA, d.Type, d.CountB)
	case saysField:
		d.Message = fmt.Sprintf("%s %s: %s ≠ %s", d.Type, d.Path, shown(d.A), shown(d.B))
		if d.Offset != nil && *d.Offset > 0 {
			d.Message = fmt.Sprintf("%s %s differs from byte %d: %s ≠ %s", d.Type, d.Path, *d.Offset, shown(d.A), shown(d.B))
		}
	case saysFieldRun:
		what := d.Path
		if d.Type != "" {
			what = d.Type + " " + d.Path
		}
		d.Message = fmt.Sprintf("%s: %s ≠ %s on %d events (A#%d–#%d)", what, shown(d.A), shown(d.B), d.CountA, d.EventA, d.LastA)
	case saysArgsOfCall:
		from := ""
		if d.Offset != nil && *d.Offset > 0 {
			from = fmt.Sprintf(" from byte %d", *d.Offset)
		}
		whose := "the call"
		if d.Item != "" {
			whose = d.Item
		}
		d.Message = fmt.Sprintf("%s %s: the final arguments of %s, which differ%s (its call difference says how)", d.Type, d.Path, whose, from)
	case saysArgsJSON:
		if len(d.ArgsChanges) == 0 {
			d.Message = fmt.Sprintf("%s %s: equal as JSON, bytes differ: %s ≠ %s", d.Type, d.Path, shown(d.A), shown(d.B))
			break
		}
		d.Message = fmt.Sprintf("%s %s differs as JSON at %s: %s", d.Type, d.Path, countPaths(len(d.ArgsChanges)+d.ArgsChangesMore), describeChanges(d.ArgsChanges, d.ArgsChangesMore))
	}
	d.says = saysMessage
}

// MarshalJSON writes the documented shape.
func (d Difference) MarshalJSON() ([]byte, error) {
	type out struct {
		Kind           Kind            `json:"kind"`
		Item           string          `json:"item,omitempty"`
		Type           string          `json:"type,omitempty"`
		Path           string          `json:"path,omitempty"`
		EventA         *int            `json:"event_a"`
		EventB         *int            `json:"event_b"`
		LastA          *int            `json:"last_a,omitempty"`
		LastB          *int            `json:"last_b,omitempty"`
		CountA         int             `json:"count_a,omitempty"`
		CountB         int             `json:"count_b,omitempty"`
		A              json.RawMessage `json:"a,omitempty"`
		B              json.RawMessage `json:"b,omitempty"`
		Truncated      bool            `json:"truncated,omitempty"`
		Offset         *int            `json:"offset,omitempty"`
		ArgsJSONEqual  *bool           `json:"arguments_json_equal,omitempty"`
		ArgsBytesEqual *bool           `json:"arguments_bytes_equal,omitempty"`
		ArgsChanges    []PathChange    `json:"arguments_changes,omitempty"`
		ArgsMore       int             `json:"arguments_changes_more,omitempty"`
		Message        string          `json:"message"`
		Step           int             `json:"step,omitempty"`
		SessionA       *int            `json:"session_a,omitempty"`
		SessionB       *int            `json:"session_b,omitempty"`
	}
	var sess [2]*int
	for w := range sess {
		if d.multi[w] {
			n := int(d.session[w])
			sess[w] = &n
		}
	}
	return marshal(out{d.Kind, d.Item, d.Type, d.Path, ordOrNil(d.EventA), ordOrNil(d.EventB),
		ordOrNil(d.LastA), ordOrNil(d.LastB), d.CountA, d.CountB, d.A, d.B, d.Truncated, d.Offset,
		d.ArgsJSONEqual, d.ArgsBytesEqual, d.ArgsChanges, d.ArgsChangesMore, d.Message,
		d.Step, sess[0], sess[1]})
}

func ordOrNil(o int) *int {
	if o < 0 {
		return nil
	}
	return &o
}

// MarshalJSON writes the `streamtap diff --json` document, safe to print:
// the values it quotes from the streams hold no raw DEL, C1 control or
// bidi rune and no byte that is not UTF-8 (jsonscan.AppendSafe).
func (r *Result) MarshalJSON() ([]byte, error) {
	diffs := r.Differences
	if diffs == nil {
		diffs = []Difference{}
	}
	ignored := r.Ignored
	if ignored == nil {
		ignored = []string{}
	}
	b, err := marshal(struct {
		Equal       bool           `json:"equal"`
		Mode        string         `json:"mode"`
		Note        string         `json:"note,omitempty"`
		Ignored     []string       `json:"ignored"`
		A           Summary        `json:"a"`
		B           Summary        `json:"b"`
		Timing      *TimingPair    `json:"timing"`
		Counts      map[string]int `json:"counts"`
		Omitted     int            `json:"omitted"`
		Differences []Difference   `json:"differences"`
		Steps       []StepPair     `json:"steps,omitempty"`
		ASessions   []Summary      `json:"a_sessions,omitempty"`
		BSessions   []Summary      `json:"b_sessions,omitempty"`
	}{r.Equal(), r.Mode, r.Note, ignored, r.A, r.B, r.Timing, r.Counts, r.Omitted, diffs, r.Steps, r.ASessions, r.BSessions})
	return jsonscan.AppendSafe(nil, b), err
}

// marshal is json.Marshal without HTML escaping, as every JSON document
// of streamtap is written: `<` stays `<` in a tool's arguments.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
