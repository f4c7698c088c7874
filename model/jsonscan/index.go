package jsonscan

import (
	"math"
	"slices"
)

// The bounds of what an Index records for one document. The events
// streamtap reads nest a handful of objects with a few dozen members; a
// 50 MB document made of millions of tiny values would cost more memory to
// index than to hold. Containers past the bounds are read by scanning, as
// without an Index.
const (
	maxIndexed = 4096
	maxMembers = 4 * maxIndexed
)

// Index records the structure of one validated document as the validator
// walks it: where each object and array ends, and where each of its
// members' keys and values lie. The readers then list the members of a
// nested value from the record instead of scanning its bytes again.
// Without it a value five levels deep (a Chat chunk's argument fragment in
// choices[].delta.tool_calls[].function) is scanned once by the validator
// and once more for every level a reader walks through.
//
// The zero Index is ready to use and is reused from one document to the
// next; a nil *Index is valid too, and reads by scanning.
type Index struct {
	data    []byte
	opens   []int32     // offset of each '{' or '[', in document order
	conts   []container // for each of opens
	members []member
	// o0 and m0 are where the document's records start in opens and
	// members: past those of the documents before it in an Indexes.
	o0, m0 int
	loaded bool // the slices are an Indexes' (see Load): never append to them
	// found is where the members a Names looks out for lie (see Scan):
	// the document's, from f0 on.
	found []Found
	f0    int
	// hash is the document's fingerprint, when hashed (see ScanOptions).
	hash   uint64
	hashed bool
}

// ScanOptions say what a scan records beside a document's structure.
type ScanOptions struct {
	// Names are the top-level members whose place it records (Found).
	Names *Names
	// Hash fingerprints the document (Hash), leaving out the members Skip
	// names at any depth.
	Hash bool
	Skip *KeySet
}

// container is an indexed object or array.
type container struct {
	end   int32 // offset just past its close
	first int32 // its first member in Index.members; noMembers or partial
}

const (
	noMembers = -1 // an empty container
	partial   = -2 // members past maxMembers: read by scanning
)

// member is one member of an object (key between its quotes, then value)
// or element of an array (no key), linked to the next of its container.
type member struct {
	ks, ke, vs, ve, next int32
}

// ScanObject is the package's ScanObject, and also indexes data for the
// Index's readers until the next call.
func (x *Index) ScanObject(data []byte, fn func(key, value []byte)) (isObject bool, err error) {
	x.Reset()
	return x.scan(data, fn, nil)
}

// Scan validates data and indexes it for the readers until the next call,
// in one pass over its bytes, which also records where the members names
// looks out for lie at the top level of an object (Found). names may be
// nil. It returns whether data is an object and, when it is not valid
// JSON, the error (a *SyntaxError); then nothing is recorded.
func (x *Index) Scan(data []byte, names *Names) (isObject bool, err error) {
	x.Reset()
	return x.scan(data, nil, &ScanOptions{Names: names})
}

// ScanWith is Scan that records what o says: the members o.Names looks out
// for, and with o.Hash the document's fingerprint (Hash).
func (x *Index) ScanWith(data []byte, o *ScanOptions) (isObject bool, err error) {
	x.Reset()
	return x.scan(data, nil, o)
}

// Hash returns the fingerprint of the document the last scan indexed
// (see Fingerprint), and whether that scan computed it.
func (x *Index) Hash() (uint64, bool) { return x.hash, x.hashed }

// Found lists where the members the last Scan looked out for lie at the
// top level of the document, in document order, every occurrence: data
// [Start:End] of the data scanned. A document too large to index (2 GiB)
// has none recorded: read its members with Members.
func (x *Index) Found() []Found { return x.found[x.f0:] }

// scan validates data and records its structure after the documents x
// holds already, or records nothing when data is not valid.
func (x *Index) scan(data []byte, fn func(key, value []byte), o *ScanOptions) (isObject bool, err error) {
	x.data, x.o0, x.m0, x.f0 = data, len(x.opens), len(x.members), len(x.found)
	x.hash, x.hashed = 0, false
	if fn == nil && len(data) < math.MaxInt32 {
		var ok bool
		switch {
		case o == nil:
			p := pass{d: data, x: x}
			isObject, ok = p.run()
		case o.Hash:
			p := hashPass{d: data, x: x, names: o.Names, skip: o.Skip}
			isObject, ok, x.hash = p.run()
			x.hashed = ok
		default:
			p := pass{d: data, x: x, names: o.Names}
			isObject, ok = p.run()
		}
		if ok {
			return isObject, nil
		}
		// Invalid: the validator says where and why.
		_, err = ScanObject(data, nil)
		if err == nil {
			err = &SyntaxError{Offset: len(data), Msg: "invalid JSON"} // never expected: FuzzIndex holds the two to agree
		}
		x.data, x.opens, x.conts, x.members, x.found = nil, x.opens[:x.o0], x.conts[:x.o0], x.members[:x.m0], x.found[:x.f0]
		return isObject, err
	}
	v := validator{d: data}
	if len(data) < math.MaxInt32 {
		v.idx = x
	}
	isObject, err = v.scanObject(fn)
	if err != nil {
		x.data, x.opens, x.conts, x.members, x.found = nil, x.opens[:x.o0], x.conts[:x.o0], x.members[:x.m0], x.found[:x.f0]
	}
	return isObject, err
}

// Reset forgets the indexed document; the readers then scan.
func (x *Index) Reset() {
	if x.loaded {
		*x = Index{}
		return
	}
	// One statement a slice: the compiler then stores only the length,
	// with no write barrier (a tuple assignment stores every word).
	if x.data != nil {
		x.data = nil
	}
	x.opens = x.opens[:0]
	x.conts = x.conts[:0]
	x.members = x.members[:0]
	x.found = x.found[:0]
	x.o0, x.m0, x.f0 = 0, 0, 0
	x.hash, x.hashed = 0, false
}

// open records a container opening at offset i and returns its slot, or
// -1 when the document has more containers than an Index records.
func (x *Index) open(i int) int {
	if len(x.opens)-x.o0 >= maxIndexed {
		return -1
	}
	x.opens = append(x.opens, int32(i))
	x.conts = append(x.conts, container{end: -1, first: noMembers})
	return len(x.opens) - 1
}

func (x *Index) close(slot, end int) {
	if slot >= 0 {
		x.conts[slot].end = int32(end)
	}
}

// member records a member of the container in slot after prev (-1 for
// the first) and returns it, the prev of the next one.
func (x *Index) member(slot, prev, ks, ke, vs, ve int) int {
	c := &x.conts[slot]
	if c.first == partial {
		return prev
	}
	if len(x.members)-x.m0 >= maxMembers {
		c.first = partial
		return prev
	}
	// The fields are stored into the slice's element one by one: a
	// member built whole and then copied in was written as four 4-byte
	// stores read back as one 16-byte load, a stall the store forwarding
	// cannot serve, and the largest single cost of a scan.
	m := len(x.members)
	if m < cap(x.members) {
		x.members = x.members[:m+1]
	} else {
		x.members = append(x.members, member{})
	}
	e := &x.members[m]
	e.ks, e.ke, e.vs, e.ve, e.next = int32(ks), int32(ke), int32(vs), int32(ve), -1
	if prev < 0 {
		c.first = int32(m)
	} else {
		x.members[prev].next = int32(m)
	}
	return m
}

// addFound records that the value of the member named k lies at
// data[vs:ve], storing the fields one by one as member does.
func (x *Index) addFound(k, vs, ve int) {
	n := len(x.found)
	if n < cap(x.found) {
		x.found = x.found[:n+1]
	} else {
		x.found = append(x.found, Found{})
	}
	f := &x.found[n]
	f.Name, f.Start, f.End = uint8(k), int32(vs), int32(ve)
}

// base returns the offset of d within the indexed document, when d is a
// slice of it.
func (x *Index) base(d []byte) (int, bool) {
	if x == nil || len(d) == 0 || len(x.opens) == 0 {
		return 0, false
	}
	// A slice of data shares its backing array and ends where data's
	// capacity ends, so the capacities give the offset; the address check
	// rules out slices of other arrays that happen to fit.
	off := cap(x.data) - cap(d)
	if off < 0 || off+len(d) > len(x.data) || &x.data[off] != &d[0] {
		return 0, false
	}
	return off, true
}

// container finds the container that opens at d[i] (d starting at offset
// base of the document) and lies within d.
func (x *Index) container(d []byte, i, base int) (container, bool) {
	k, found := slices.BinarySearch(x.opens, int32(base+i))
	if !found {
		return container{}, false
	}
	c := x.conts[k]
	if e := int(c.end) - base; e <= i || e > len(d) {
		return container{}, false
	}
	return c, true
}

// each calls fn with the recorded members of the container opening at
// d[i], and reports whether it had them to give.
func (x *Index) each(d []byte, open byte, fn func(key, value []byte) bool) bool {
	base, ok := x.base(d)
	if !ok {
		return false
	}
	i := skipWS(d, 0)
	if i >= len(d) || d[i] != open {
		return false
	}
	c, ok := x.container(d, i, base)
	if !ok || c.first == partial {
		return false
	}
	for m := c.first; m >= 0; {
		e := &x.members[m]
		var key []byte
		if e.ks >= 0 {
			key = d[int(e.ks)-base : int(e.ke)-base]
		}
		if !fn(key, d[int(e.vs)-base:int(e.ve)-base]) {
			break
		}
		m = e.next
	}
	return true
}

// skip returns the index just past the value at d[i], where d starts at
// offset base of the document.
func (x *Index) skip(d []byte, i, base int, indexed bool) int {
	if indexed && i < len(d) && (d[i] == '{' || d[i] == '[') {
		if c, ok := x.container(d, i, base); ok {
			return int(c.end) - base
		}
	}
	return skipValue(d, i)
}

// Members calls fn with each member of the object obj, in order, until fn
// returns false. Keys are the raw bytes between the quotes.
func (x *Index) Members(obj []byte, fn func(key, value []byte) bool) {
	if x.each(obj, '{', fn) {
		return
	}
	base, indexed := x.base(obj)
	i := skipWS(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return
	}
	i++
	for {
		i = skipWS(obj, i)
		if i >= len(obj) || obj[i] != '"' {
			return
		}
		ke := skipString(obj, i)
		key := obj[i+1 : max(ke-1, i+1)]
		i = skipWS(obj, ke)
		if i >= len(obj) || obj[i] != ':' {
			return
		}
		i = skipWS(obj, i+1)
		ve := x.skip(obj, i, base, indexed)
		if !fn(key, obj[i:ve]) {
			return
		}
		i = skipWS(obj, ve)
		if i >= len(obj) || obj[i] != ',' {
			return
		}
		i++
	}
}

// Get returns the value of the member key of object obj, or nil.
func (x *Index) Get(obj []byte, key string) []byte {
	var out []byte
	x.Members(obj, func(k, v []byte) bool {
		if string(k) == key {
			out = v
			return false
		}
		return true
	})
	return out
}

// Path follows keys through nested objects.
func (x *Index) Path(obj []byte, keys ...string) []byte {
	for _, k := range keys {
		if obj = x.Get(obj, k); obj == nil {
			return nil
		}
	}
	return obj
}

// Elements calls fn with each element of the array arr until fn returns
// false.
func (x *Index) Elements(arr []byte, fn func(i int, value []byte) bool) {
	n := 0
	if x.each(arr, '[', func(_, v []byte) bool { n++; return fn(n-1, v) }) {
		return
	}
	base, indexed := x.base(arr)
	i := skipWS(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return
	}
	i = skipWS(arr, i+1)
	if i < len(arr) && arr[i] == ']' {
		return
	}
	for n := 0; ; n++ {
		i = skipWS(arr, i)
		if i >= len(arr) {
			return
		}
		ve := x.skip(arr, i, base, indexed)
		if ve <= i || !fn(n, arr[i:ve]) {
			return
		}
		i = skipWS(arr, ve)
		if i >= len(arr) || arr[i] != ',' {
			return
		}
		i++
	}
}

// Holds reports whether the Index refers to a document, and so keeps its
// bytes alive.
func (x *Index) Holds() bool { return x.data != nil }

// Indexes keeps the indexes of a batch of documents side by side, so that
// one goroutine can validate and index events while another reads the ones
// before them. The zero Indexes is ready to use; Reset empties it for the
// next batch and keeps its memory.
type Indexes struct {
	all Index // every document's records, one after another
}

// Scanned is the outcome of Indexes.ScanObject for one document, and where
// its index lies in the Indexes.
type Scanned struct {
	IsObject bool
	Err      error
	opens    [2]int32
	members  int32 // the end of its members; links among them count from the batch's first
	found    [2]int32
	hash     uint64
	hashed   bool
}

// ScanObject validates and indexes data as Index.ScanObject does, records
// every member, top level included, and keeps the index until Reset.
func (xs *Indexes) ScanObject(data []byte) Scanned { return xs.Scan(data, nil) }

// Scan is ScanObject that also records where the members names looks out
// for lie, as Index.Scan does: Load hands them to the Index it loads.
func (xs *Indexes) Scan(data []byte, names *Names) Scanned {
	return xs.ScanWith(data, &ScanOptions{Names: names})
}

// ScanWith is Scan that records what o says, as Index.ScanWith does.
func (xs *Indexes) ScanWith(data []byte, o *ScanOptions) Scanned {
	x := &xs.all
	sc := Scanned{}
	sc.IsObject, sc.Err = x.scan(data, nil, o)
	sc.hash, sc.hashed = x.hash, x.hashed
	sc.opens = [2]int32{int32(x.o0), int32(len(x.opens))}
	sc.members = int32(len(x.members))
	sc.found = [2]int32{int32(x.f0), int32(len(x.found))}
	x.data = nil
	return sc
}

// Load sets x to read data through the index sc recorded in xs, as if
// x.ScanObject(data) had just run. data must be the bytes that were
// scanned, and xs must not be Reset while x reads them. x shares xs's
// memory without the right to write to it: x's own next ScanObject
// allocates anew.
func (xs *Indexes) Load(x *Index, data []byte, sc Scanned) {
	o, m, f := sc.opens, sc.members, sc.found
	*x = Index{
		data:    data,
		opens:   xs.all.opens[o[0]:o[1]:o[1]],
		conts:   xs.all.conts[o[0]:o[1]:o[1]],
		members: xs.all.members[:m:m],
		found:   xs.all.found[f[0]:f[1]:f[1]],
		hash:    sc.hash,
		hashed:  sc.hashed,
		loaded:  true,
	}
}

// Reset forgets every document, keeping the memory for the next batch.
func (xs *Indexes) Reset() { xs.all.Reset() }
