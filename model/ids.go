package model

// IDSeen is one observation of an identifier on an item's event.
type IDSeen struct {
	Ordinal int
	Field   string // "item_id", "call_id", "name", "id"
	Value   string
}

// MaxIDsKept is the most observations of one kind of one identifier field
// (see IDTally) an item or response keeps as IDSeen entries. A gateway
// that renames an item on every event of a million-event stream would
// otherwise hold an entry per event; past this many they are only
// counted. It equals the most events a finding lists (checks.MaxEvents),
// so the evidence of a finding about one kind of observation is always
// among the kept ones.
const MaxIDsKept = 20

// idKind sorts an observation by its value: empty, the item's own value
// at the time, or another. Each kind keeps its own first MaxIDsKept, so
// that a Chat call's repeated ids do not crowd out its renames.
type idKind uint8

const (
	idOther idKind = iota
	idEmpty
	idOwn
	numIDKinds
)

func kindOf(value, own string) idKind {
	switch value {
	case "":
		return idEmpty
	case own:
		return idOwn
	}
	return idOther
}

// IDTally counts the observations of one identifier field: how many of
// each kind were kept as IDSeen entries, and the ones past MaxIDsKept of
// their kind, which were not.
type IDTally struct {
	Field string
	// N counts the observations not kept; Empty and Own those of them
	// with an empty value and with the item's own value (as a Chat call's
	// id and name repeated on every fragment are).
	N, Empty, Own int
	// Fresh counts the observations not kept whose value is neither the
	// one before it nor any kept value: each a new name when a gateway
	// rotates ids. A value that comes back after other uncounted ones is
	// counted again.
	Fresh int
	First IDSeen // the first observation not kept, when N > 0
	kept  [numIDKinds]int
	last  string // the latest value, to tell Fresh
}

// recordID adds an observation x to ids, or, once MaxIDsKept of its kind
// and field are there, only counts it in its field's tally in more. own
// is the value the item or response holds for the field.
func recordID(ids *[]IDSeen, more *[]IDTally, x IDSeen, own string) {
	var t *IDTally
	for i := range *more {
		if (*more)[i].Field == x.Field {
			t = &(*more)[i]
			break
		}
	}
	if t == nil {
		*more = append(*more, IDTally{Field: x.Field})
		t = &(*more)[len(*more)-1]
	}
	k := kindOf(x.Value, own)
	switch {
	case t.kept[k] < MaxIDsKept:
		t.kept[k]++
		*ids = append(*ids, x)
	default:
		if t.N == 0 {
			t.First = x
		}
		t.N++
		switch k {
		case idEmpty:
			t.Empty++
		case idOwn:
			t.Own++
		}
		if x.Value != t.last && !keptValue(*ids, x) {
			t.Fresh++
		}
	}
	t.last = x.Value
}

// keptValue reports whether x's field has x's value among the kept
// observations.
func keptValue(ids []IDSeen, x IDSeen) bool {
	for _, y := range ids {
		if y.Field == x.Field && y.Value == x.Value {
			return true
		}
	}
	return false
}

// TallyOf returns the tally of a field's observations; its N is 0 when
// all were kept.
func TallyOf(more []IDTally, field string) IDTally {
	for _, t := range more {
		if t.Field == field {
			return t
		}
	}
	return IDTally{Field: field}
}

// RecordID records an identifier observed on one of the item's events.
func (it *Item) RecordID(ord int, field, own, value string) {
	recordID(&it.IDs, &it.MoreIDs, IDSeen{Ordinal: ord, Field: field, Value: value}, own)
}

// RecordID records an identifier observed on one of the response's later
// snapshots (see IDs).
func (r *Response) RecordID(ord int, field, own, value string) {
	recordID(&r.IDs, &r.MoreIDs, IDSeen{Ordinal: ord, Field: field, Value: value}, own)
}
