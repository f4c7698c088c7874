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

// memberTable finds a member by its name in one probe: a perfect hash of
// the declared names (memberHash with memberSeed, chosen when a name is
// declared so that no two collide) indexes a table whose slot holds the
// one name that may match. The core used to record a fixed union of
// members with a switch over their names, which cannot grow at
// registration; one probe and one comparison cost no more than it did.
var (
	// memberTable holds, by hash, 1 + the member whose name may match, or
	// 0: a byte a slot, so the table (1 KiB) stays in the first-level cache
	// beside the event being scanned.
	memberTable [memberTableSize]uint8
	memberSeed  uint32
	memberNames []string
	memberFirst []bool
	// memberWhole says the hash reads every byte of a name, because two
	// declared names agree on the few bytes it reads otherwise.
	memberWhole bool
)

// memberTableSize is the size of memberTable, a power of two several times
// maxMembers, so that a seed without collisions is found in a few tries.
const memberTableSize = 1024

type memberSlot struct {
	name  string
	m     Member
	first bool
}

// memberHash hashes a non-empty name: its length and three of its bytes,
// which tell the declared names apart (else all its bytes, memberWhole).
func memberHash[T string | []byte](key T, seed uint32) uint32 {
	n := len(key)
	h := uint32(n)*0x9e3779b1 ^ uint32(key[0])<<8 ^ uint32(key[n-1])<<16 ^ uint32(key[n/2])
	if memberWhole {
		for i := range n {
			h = (h ^ uint32(key[i])) * 0x01000193
		}
	}
	h *= seed | 1
	return h >> 22 // memberTableSize slots: the top 10 bits
}

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
	if m, ok := lookupMember(name); ok {
		return m.m
	}
	if len(memberNames) >= maxMembers {
		panic(fmt.Sprintf("model: no room for member %q (at most %d)", name, maxMembers))
	}
	m := Member(len(memberNames))
	memberNames = append(memberNames, name)
	memberFirst = append(memberFirst, first)
	for tries, seed := 0, memberSeed; ; tries, seed = tries+1, seed+0x2545f491 {
		if placeMembers(seed) {
			memberSeed = seed
			return m
		}
		if tries == 64 {
			memberWhole = true // some two names agree on the bytes read: read them all
		}
	}
}

// placeMembers fills memberTable with every declared name hashed with
// seed, and reports whether no two collided.
func placeMembers(seed uint32) bool {
	var t [memberTableSize]uint8
	for i, name := range memberNames {
		h := memberHash(name, seed)
		if t[h] != 0 {
			return false
		}
		t[h] = uint8(i + 1)
	}
	memberTable = t
	return true
}

func lookupMember(key string) (memberSlot, bool) {
	if len(key) == 0 {
		return memberSlot{}, false
	}
	if i := memberTable[memberHash(key, memberSeed)]; i != 0 && memberNames[i-1] == key {
		return memberSlot{name: key, m: Member(i - 1), first: memberFirst[i-1]}, true
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
	i := int(memberTable[memberHash(key, memberSeed)]) - 1
	if i >= 0 && memberNames[i] == string(key) && (!memberFirst[i] || ms.vals[i] == nil) {
		ms.vals[i] = v
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
