package model

import (
	"fmt"

	"github.com/streamtap/streamtap/model/jsonscan"
)

// Member is a top-level member name that the core records for every
// event, declared once by the code that reads it (MemberOf). One pass of
// the scanner over the event validates it and records each declared
// member's value as it goes by, so that a dialect's claims, its assembly
// and its rules read the members they need from that pass
// (Session.Member) rather than walk the event again.
type Member uint8

// maxMembers bounds the members the core records: a session keeps their
// values in an array.
const maxMembers = jsonscan.MaxNames

// memberNames is every declared member, by the number MemberOf gave it:
// the scan of each event looks out for them (jsonscan.Index.Scan), and
// finds a member by its name in one probe of a perfect hash. Declared
// while the program starts (package variables), it is only read once
// events are added, from any goroutine (a Batch scans on its reader's).
var memberNames jsonscan.Names

// MemberOf declares a top-level member name the core records for every
// event, and returns it: call it once, in a package-level var of the
// dialect that reads the member (var mDelta = model.MemberOf("delta")).
// Two declarations of one name share it. Declaring costs nothing per
// event that has no such member, and one probe per member of an event.
// The core records a member's last occurrence, as a decoder would keep it.
// It panics past the room for members, a programming error.
func MemberOf(name string) Member { return declareMember(name, false) }

// FirstMemberOf is MemberOf for a member whose first occurrence counts,
// as Index.Get finds it (Bedrock's chunk "bytes").
func FirstMemberOf(name string) Member { return declareMember(name, true) }

func declareMember(name string, first bool) Member {
	if name == "" {
		panic("model: a member needs a name")
	}
	if memberNames.Len() >= maxMembers {
		if _, ok := memberNames.Lookup([]byte(name)); !ok {
			panic(fmt.Sprintf("model: no room for member %q (at most %d)", name, maxMembers))
		}
	}
	return Member(memberNames.Add(name, first))
}

type memberSlot struct {
	name  string
	m     Member
	first bool
}

func lookupMember(key string) (memberSlot, bool) {
	i, ok := memberNames.Lookup([]byte(key))
	if !ok {
		return memberSlot{}, false
	}
	return memberSlot{name: key, m: Member(i), first: memberNames.First(i)}, true
}

// Name is the member's name.
func (m Member) Name() string { return memberNames.Name(int(m)) }

// members holds the declared members' values for the event being added.
type members struct {
	vals [maxMembers][]byte
	// set lists the members whose values are set, so that the next event
	// clears only them: clearing every slot cost a write barrier per
	// declared member, for every event, while the collector ran.
	set []Member
	// memo is what the dialect's assembly left for its rules (see
	// Session.SetMemo), and memoSet says it left it.
	memo    []byte
	memoSet bool
}

// collect records key's value when key is a declared member.
func (ms *members) collect(key, v []byte) {
	if i, ok := memberNames.Lookup(key); ok {
		ms.put(Member(i), v)
	}
}

// put records v as member m's value, unless m's first occurrence counts
// and it has one.
func (ms *members) put(m Member, v []byte) {
	if ms.vals[m] == nil {
		ms.set = append(ms.set, m)
	} else if memberNames.First(int(m)) {
		return
	}
	ms.vals[m] = v
}

// load records the members a scan of data found (jsonscan.Index.Found).
func (ms *members) load(data []byte, found []jsonscan.Found) {
	for _, f := range found {
		ms.put(Member(f.Name), data[f.Start:f.End]) // not capped: Index.base places a value by its capacity
	}
}

// member is collect for Index.Members.
func (ms *members) member(key, v []byte) bool {
	ms.collect(key, v)
	return true
}

func (ms *members) reset() {
	for _, m := range ms.set {
		ms.vals[m] = nil
	}
	ms.set = ms.set[:0]
	ms.memo, ms.memoSet = nil, false
}

// Member returns the value of member m in the event being added: its raw
// JSON, or nil when the event has no such member or is no JSON object. It
// answers only while the event is added and observed, as Field does,
// since the bytes belong to the framer.
func (s *Session) Member(m Member) []byte {
	if s.cur == nil {
		return nil // not a JSON object: what a scan that failed half-way recorded is no member
	}
	return s.top.vals[m]
}

// The members the core reads itself: to type an event, and to record an
// error payload.
var (
	mType    = MemberOf("type")
	mObject  = MemberOf("object")
	mSeq     = MemberOf("sequence_number")
	mError   = MemberOf("error")
	mCode    = MemberOf("code")
	mMessage = MemberOf("message")
)
