package jsonscan

import (
	"math"
	"slices"
)

// maxIndexed bounds the containers an Index records for one document. The
// events streamtap reads nest a handful of objects; a 50 MB document made
// of millions of tiny arrays would otherwise cost more memory to index
// than to hold. Containers past the bound are read by scanning, as without
// an Index.
const maxIndexed = 4096

// Index records where each object and array of one validated document
// ends, so that the readers jump over nested values instead of scanning
// them again. Without it a value five levels deep (a Chat chunk's argument
// fragment in choices[].delta.tool_calls[].function) is scanned once by
// the validator and once more for every level a reader walks through.
//
// The zero Index is ready to use and is reused from one document to the
// next; a nil *Index is valid too, and reads by scanning.
type Index struct {
	data  []byte
	opens []int32 // offset of each '{' or '[', in document order
	ends  []int32 // for each of opens, the offset just past its close
}

// ScanObject is the package's ScanObject, and also indexes data for the
// Index's readers until the next call.
func (x *Index) ScanObject(data []byte, fn func(key, value []byte)) (isObject bool, err error) {
	x.Reset()
	x.data = data
	v := validator{d: data}
	if len(data) < math.MaxInt32 {
		v.idx = x
	}
	isObject, err = v.scanObject(fn)
	if err != nil {
		x.Reset()
	}
	return isObject, err
}

// open records a container opening at offset i and returns its slot, or
// -1 when the document has more containers than an Index records.
func (x *Index) open(i int) int {
	if len(x.opens) >= maxIndexed {
		return -1
	}
	x.opens = append(x.opens, int32(i))
	x.ends = append(x.ends, -1)
	return len(x.opens) - 1
}

func (x *Index) close(slot, end int) {
	if slot >= 0 {
		x.ends[slot] = int32(end)
	}
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

// skip returns the index just past the value at d[i], where d starts at
// offset base of the document.
func (x *Index) skip(d []byte, i, base int, indexed bool) int {
	if indexed && i < len(d) && (d[i] == '{' || d[i] == '[') {
		if k, found := slices.BinarySearch(x.opens, int32(base+i)); found {
			if e := int(x.ends[k]) - base; e > i && e <= len(d) {
				return e
			}
		}
	}
	return skipValue(d, i)
}

// Members calls fn with each member of the object obj, in order, until fn
// returns false. Keys are the raw bytes between the quotes.
func (x *Index) Members(obj []byte, fn func(key, value []byte) bool) {
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

// Elements calls fn with each element of the array arr until fn returns
// false.
func (x *Index) Elements(arr []byte, fn func(i int, value []byte) bool) {
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

// Reset forgets the indexed document; the readers then scan.
func (x *Index) Reset() { x.data, x.opens, x.ends = nil, x.opens[:0], x.ends[:0] }
