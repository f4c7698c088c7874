// Package streamdiff compares two streams of the same request — an
// official API's and a gateway's, or two captures of one call — and says
// how they differ: events present in one only, events reordered, fields
// that differ, assembled calls and text that differ, a different outcome,
// different timing.
//
// Streams are aligned by meaning, not by byte position: responses by
// order, items by response, choice, role, type, name and position, and the
// events of each item (or response) by their type, so that an extra
// keep-alive or a dropped delta shifts nothing else. Two streams of
// different dialects (Chat and Responses for the same request) are
// compared at the level of calls, text and outcome only.
//
// The package is plain data and functions over model.Session: it does no
// I/O of its own (an event's bytes are read back through the session's
// Options.Raw) and knows nothing about terminals.
package streamdiff

import (
	"slices"
	"strings"
)

// Kind is what a Difference is about.
type Kind uint8

const (
	OnlyInA   Kind = iota // events of A that B does not have
	OnlyInB               // events of B that A does not have
	Reordered             // events both have, in another order
	Field                 // an aligned pair of events whose JSON differs
	Chunking              // the same run of deltas, cut into a different number of events
	Sequence              // sequence numbers that differ beyond a consistent offset
	IDs                   // an item whose ids change mid-stream on one side only
	Step                  // a model call (a step) one side has and the other lacks (CompareLegs)
	Call                  // an assembled call that is missing, extra, or differs
	Text                  // assembled assistant text that differs
	Reasoning             // assembled reasoning that differs (CompareLegs)
	Outcome               // how the streams ended
	Timing                // time to first event, to first argument delta, total, largest gap
	numKinds
)

var kindNames = [...]string{
	OnlyInA: "only-in-a", OnlyInB: "only-in-b", Reordered: "reordered", Field: "field",
	Chunking: "chunking", Sequence: "sequence", IDs: "ids", Step: "step", Call: "call", Text: "text",
	Reasoning: "reasoning", Outcome: "outcome", Timing: "timing",
}

func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return "unknown"
}

// MarshalText makes a Kind its name in JSON.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// Names of the ignorable aspects that are not JSON members.
const (
	// IgnoreSeq ("sequence_number") tolerates sequence numbers that differ
	// by a consistent offset, and renumbering after a dropped event: only
	// a gap, repeat or jump one side has and the other does not counts.
	// Without it, any change of the offset between the two sides counts.
	IgnoreSeq = "sequence_number"
	// IgnoreKeepalive leaves comments, pings and keep-alive events out of
	// the alignment: a gateway's `: PROCESSING` lines are not differences.
	IgnoreKeepalive = "keepalive"
	// IgnoreTiming reports the timing of both streams without counting
	// its differences.
	IgnoreTiming = "timing"
	// IgnoreChunking tolerates deltas cut into a different number of
	// events (the assembled content is still compared).
	IgnoreChunking = "chunking"
)

// DefaultIgnore lists what is ignored unless told otherwise: identifiers
// and timestamps a gateway or a second run mints anew, the random
// obfuscation padding, sequence-number offsets, keep-alives and timing.
func DefaultIgnore() []string {
	return []string{
		"id", "item_id", "call_id", "response_id", "responseId",
		"created", "created_at", "completed_at", "createTime",
		"system_fingerprint", "obfuscation",
		IgnoreSeq, IgnoreKeepalive, IgnoreTiming,
	}
}

// Ignore is a set of ignored names: JSON member names, matched at any
// depth of an event's data, and the aspects named by the Ignore*
// constants. The zero Ignore ignores nothing.
type Ignore struct {
	names map[string]bool
	// byLen lists the names by length (the last slot: 63 bytes or
	// more). Every key of every event is asked about, and comparing a key
	// with the few names of its length costs a fraction of a map lookup.
	byLen *[64][]string
}

// NewIgnore returns the set of the given names.
func NewIgnore(names ...string) Ignore {
	ig := Ignore{names: map[string]bool{}, byLen: new([64][]string)}
	for _, n := range names {
		if n = strings.TrimSpace(n); n != "" && !ig.names[n] {
			ig.names[n] = true
			ig.byLen[min(len(n), 63)] = append(ig.byLen[min(len(n), 63)], n)
		}
	}
	return ig
}

// Has reports whether name is ignored.
func (ig Ignore) Has(name string) bool { return ig.names[name] }

// hasKey is Has for a JSON key as raw bytes, without allocating.
func (ig Ignore) hasKey(key []byte) bool {
	if ig.byLen == nil {
		return false
	}
	for _, n := range ig.byLen[min(len(key), 63)] {
		if string(key) == n {
			return true
		}
	}
	return false
}

// Names lists the ignored names, sorted.
func (ig Ignore) Names() []string {
	out := make([]string, 0, len(ig.names))
	for n := range ig.names {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Options tune a comparison. The zero Options ignores nothing.
type Options struct {
	Ignore Ignore
	// ArgsAsJSONAcrossDialects makes a call's arguments that are equal as
	// JSON the same arguments when the streams speak different dialects,
	// whatever their bytes: each dialect writes them its own way (Gemini
	// and Ollama send objects; the others the model's own string, spaces
	// and key order included). Within one dialect the bytes are what a
	// client receives, and a difference in them alone is always one
	// ("equal as JSON, bytes differ"). DefaultOptions sets it; --strict
	// does not, and then it is one across dialects too.
	ArgsAsJSONAcrossDialects bool
	// MaxEdits bounds the edits the exact alignment of one item's events
	// looks for; past it the item is aligned run by run (see align). 0
	// means DefaultMaxEdits.
	MaxEdits int
}

// DefaultMaxEdits is the default Options.MaxEdits: the exact alignment
// costs O((n+m)·MaxEdits) at worst for an item of n and m events.
const DefaultMaxEdits = 64

// DefaultOptions ignores DefaultIgnore and compares arguments across
// dialects as JSON.
func DefaultOptions() Options {
	return Options{Ignore: NewIgnore(DefaultIgnore()...), ArgsAsJSONAcrossDialects: true}
}

func (o Options) maxEdits() int {
	if o.MaxEdits > 0 {
		return o.MaxEdits
	}
	return DefaultMaxEdits
}

// Kinds lists every kind of difference, in the order reports count them.
func Kinds() []Kind {
	out := make([]Kind, numKinds)
	for i := range out {
		out[i] = Kind(i)
	}
	return out
}
