package jsonscan

import (
	"encoding/binary"
	"math/bits"
)

// A fingerprint is a hash of what a JSON document says, by which two
// streams' events are matched (package streamdiff): objects member by
// member in any order (a gateway that re-serialises may reorder keys),
// leaving out the members a KeySet names at any depth; arrays element by
// element, in order; scalars by their bytes; containers nested deeper than
// maxHashDepth by their bytes. The one pass (Index.Scan with
// ScanOptions.Hash) computes it as it validates; Fingerprint computes the
// same value by walking a document already scanned. Fingerprints are
// compared within one process only.

// maxHashDepth is the nesting past which a container is hashed as its raw
// bytes rather than member by member.
const maxHashDepth = 64

const (
	objectSeed = 0x9e3779b97f4a7c15
	arraySeed  = 0x51afd7ed558ccd
)

// KeySet is a set of member names, matched against keys as raw bytes
// between the quotes. The zero KeySet is empty; a nil *KeySet too.
type KeySet struct {
	// byLen lists the names by length (the last slot: 63 bytes or more):
	// every key of a document is asked about, and comparing it with the
	// few names of its length costs a fraction of a map lookup.
	byLen [64][]string
}

// NewKeySet returns the set of names.
func NewKeySet(names ...string) *KeySet {
	ks := new(KeySet)
	for _, n := range names {
		if !ks.Has([]byte(n)) {
			ks.byLen[min(len(n), 63)] = append(ks.byLen[min(len(n), 63)], n)
		}
	}
	return ks
}

// Has reports whether key is in the set.
func (ks *KeySet) Has(key []byte) bool {
	if ks == nil {
		return false
	}
	for _, n := range ks.byLen[min(len(key), 63)] {
		if string(key) == n {
			return true
		}
	}
	return false
}

// hashBytes hashes b the way wyhash does: one or two 64-bit
// multiplications for up to 16 bytes (most keys and values of an event),
// read as overlapping words rather than a byte at a time, and one per 16
// bytes past that.
func hashBytes(b []byte) uint64 {
	const k0, k1, k2 = 0xa0761d6478bd642f, 0xe7037ed1a0b428db, 0x8ebc6af09c88c6e3
	n := len(b)
	seed := uint64(k0)
	var a, c uint64
	switch {
	case n > 16:
		for p := b; len(p) > 16; p = p[16:] {
			seed = mum(binary.LittleEndian.Uint64(p)^k1, binary.LittleEndian.Uint64(p[8:])^seed)
		}
		a, c = binary.LittleEndian.Uint64(b[n-16:]), binary.LittleEndian.Uint64(b[n-8:])
	case n > 8:
		a, c = binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[n-8:])
	case n >= 4:
		a = uint64(binary.LittleEndian.Uint32(b))<<32 | uint64(binary.LittleEndian.Uint32(b[n-4:]))
	case n > 0:
		a = uint64(b[0])<<16 | uint64(b[n>>1])<<8 | uint64(b[n-1])
	}
	return mum(k1^uint64(n), mum(a^k1, c^seed^k2))
}

// mum multiplies a and b to 128 bits and folds the halves.
func mum(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// mix is the finaliser of MurmurHash3: it spreads every input bit over
// the output, so that sums of mixed member hashes do not cancel.
func mix(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// memberHash is what a member with key k and value hash hv adds to its
// object's hash.
func memberHash(k []byte, hv uint64) uint64 {
	return mix(hashBytes(k) ^ bits.RotateLeft64(hv, 17))
}

// elementHash is the hash of an array whose hash so far is h, with an
// element of hash hv after.
func elementHash(h, hv uint64) uint64 { return mix(h*31 ^ hv) }

// Fingerprint returns the fingerprint of the valid JSON value v, leaving
// out the members skip names, as the one pass computes it (see
// ScanOptions.Hash); x may index v, which spares scanning its containers
// again.
func Fingerprint(x *Index, v []byte, skip *KeySet) uint64 {
	return fingerprint(x, v, skip, 0)
}

func fingerprint(x *Index, v []byte, skip *KeySet, depth int) uint64 {
	switch Kind(v) {
	case '{':
		if depth >= maxHashDepth {
			break
		}
		h := uint64(objectSeed)
		x.Members(v, func(k, val []byte) bool {
			if !skip.Has(k) {
				h += memberHash(k, fingerprint(x, val, skip, depth+1))
			}
			return true
		})
		return h
	case '[':
		if depth >= maxHashDepth {
			break
		}
		h := uint64(arraySeed)
		x.Elements(v, func(_ int, el []byte) bool {
			h = elementHash(h, fingerprint(x, el, skip, depth+1))
			return true
		})
		return h
	}
	return hashBytes(v)
}
