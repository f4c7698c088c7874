package model

import "fmt"

// Member is a top-level member name that the core records for every
// event, declared once by the code that reads it (MemberOf). One pass of
// the scanner over the event validates it and records each declared
// member's value as it goes by, so that a dialect's claims, its assembly
// and its rules read the members they need from that pass
// (Session.Member) rather than walk the event again.
type Member uint8

// maxMembers bounds the members the core records: a session keeps their
// values in an array, cleared for every event.
const maxMembers = 96

// memberBuckets finds a member by its name: a name's bucket (memberHash)
// holds the few declared names that share it. A switch over the names,
// as the core had when it knew every dialect, cannot grow at
// registration; this costs about as much for the 40-odd names declared.
var (
	memberBuckets [256][]memberSlot
	memberNames   []string
)

type memberSlot struct {
	name  string
	m     Member
	first bool
}

func memberHash[T string | []byte](key T) uint8 {
	n := len(key)
	return uint8(n*31 + int(key[0])*7 + int(key[n-1]))
}

// MemberOf declares a top-level member name the core records for every
// event, and returns it: call it once, in a package-level var of the
// dialect that reads the member (var mDelta = model.MemberOf("delta")).
// Two declarations of one name share it. Declaring costs nothing per
// event that has no such member, and one comparison per event that has.
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
	if m, ok := lookupMember(name); ok {
		return m.m
	}
	if len(memberNames) >= maxMembers {
		panic(fmt.Sprintf("model: no room for member %q (at most %d)", name, maxMembers))
	}
	m := Member(len(memberNames))
	memberNames = append(memberNames, name)
	h := memberHash(name)
	memberBuckets[h] = append(memberBuckets[h], memberSlot{name: name, m: m, first: first})
	return m
}

func lookupMember(key string) (memberSlot, bool) {
	if len(key) == 0 {
		return memberSlot{}, false
	}
	for _, sl := range memberBuckets[memberHash(key)] {
		if sl.name == key {
			return sl, true
		}
	}
	return memberSlot{}, false
}

// Name is the member's name.
func (m Member) Name() string { return memberNames[m] }

// members holds the declared members' values for the event being added.
type members struct {
	vals [maxMembers][]byte
	// memo is what the dialect's assembly left for its rules (see
	// Session.SetMemo), and memoSet says it left it.
	memo    []byte
	memoSet bool
}

// collect records key's value when key is a declared member.
func (ms *members) collect(key, v []byte) {
	if len(key) == 0 {
		return
	}
	for _, sl := range memberBuckets[memberHash(key)] {
		if sl.name == string(key) {
			if !sl.first || ms.vals[sl.m] == nil {
				ms.vals[sl.m] = v
			}
			return
		}
	}
}

// member is collect for Index.Members.
func (ms *members) member(key, v []byte) bool {
	ms.collect(key, v)
	return true
}

func (ms *members) reset() {
	clear(ms.vals[:len(memberNames)])
	ms.memo, ms.memoSet = nil, false
}

// Member returns the value of member m in the event being added: its raw
// JSON, or nil when the event has no such member or is no JSON object. It
// answers only while the event is added and observed, as Field does,
// since the bytes belong to the framer.
func (s *Session) Member(m Member) []byte { return s.top.vals[m] }

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
