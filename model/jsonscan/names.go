package jsonscan

import "fmt"

// Names is a set of member names that a scan looks out for at the top
// level of an object (Index.Scan): each name gets a small number, and the
// scan records where the value of every member so named lies, as it
// passes it. It finds a name in one probe of a perfect hash: the names'
// hashes (with a seed chosen as names are added, so that no two collide)
// index a table whose slot holds the one name that may match.
//
// Names are added while a program starts (package variables); a Names is
// safe for concurrent reads once nothing adds to it. The zero Names is an
// empty set ready to use.
type Names struct {
	// table holds, by hash, 1 + the number of the name that may match, or
	// 0: a byte a slot, so the table (1 KiB) stays in the first-level
	// cache beside the document being scanned.
	table [namesTableSize]uint8
	seed  uint32
	names []string
	first []bool
	// whole says the hash reads every byte of a name, because two names
	// agree on the few bytes it reads otherwise.
	whole bool
}

// MaxNames bounds the names of a Names: a scan records their values in
// arrays of this size.
const MaxNames = 96

// namesTableSize is the size of the table, a power of two several times
// MaxNames, so that a seed without collisions is found in a few tries.
const namesTableSize = 1024

// hash hashes a non-empty name: its length and three of its bytes, which
// tell the names apart (else all its bytes, when whole).
func hashName(key []byte, seed uint32, whole bool) uint32 {
	n := len(key)
	h := uint32(n)*0x9e3779b1 ^ uint32(key[0])<<8 ^ uint32(key[n-1])<<16 ^ uint32(key[n/2])
	if whole {
		for i := range n {
			h = (h ^ uint32(key[i])) * 0x01000193
		}
	}
	h *= seed | 1
	return h >> 22 // namesTableSize slots: the top 10 bits
}

// Add adds name to the set, once (adding it again returns its number), and
// returns its number. A name whose first occurrence in an object counts
// (first) is recorded as Index.Get finds it; else its last occurrence is,
// as a decoder keeps it; the first Add of a name decides. It panics past
// MaxNames names or on an empty name, a programming error.
func (ns *Names) Add(name string, first bool) int {
	if name == "" {
		panic("jsonscan: a member name cannot be empty")
	}
	if i, ok := ns.Lookup([]byte(name)); ok {
		return i
	}
	if len(ns.names) >= MaxNames {
		panic(fmt.Sprintf("jsonscan: no room for member %q (at most %d)", name, MaxNames))
	}
	ns.names = append(ns.names, name)
	ns.first = append(ns.first, first)
	for tries, seed := 0, ns.seed; ; tries, seed = tries+1, seed+0x2545f491 {
		if ns.place(seed) {
			ns.seed = seed
			return len(ns.names) - 1
		}
		if tries == 64 {
			ns.whole = true // some two names agree on the bytes read: read them all
		}
	}
}

// place fills the table with every name hashed with seed, and reports
// whether no two collided.
func (ns *Names) place(seed uint32) bool {
	var t [namesTableSize]uint8
	for i, name := range ns.names {
		h := hashName([]byte(name), seed, ns.whole)
		if t[h] != 0 {
			return false
		}
		t[h] = uint8(i + 1)
	}
	ns.table = t
	return true
}

// Lookup returns the number of the name key (raw bytes, as the scan sees
// a key between its quotes), and whether it is in the set.
func (ns *Names) Lookup(key []byte) (int, bool) {
	if ns == nil || len(key) == 0 {
		return 0, false
	}
	i := int(ns.table[hashName(key, ns.seed, ns.whole)]) - 1
	if i >= 0 && ns.names[i] == string(key) {
		return i, true
	}
	return 0, false
}

// Name returns the name numbered i.
func (ns *Names) Name(i int) string { return ns.names[i] }

// First reports whether the first occurrence of name i counts (see Add).
func (ns *Names) First(i int) bool { return ns.first[i] }

// Len is the number of names.
func (ns *Names) Len() int {
	if ns == nil {
		return 0
	}
	return len(ns.names)
}

// Found is where the value of a member named in a Names lies in the
// document scanned: data[Start:End], at its top level.
type Found struct {
	Name       uint8 // its number in the Names
	Start, End int32
}
