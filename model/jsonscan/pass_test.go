package jsonscan

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

var passNames = func() *Names {
	var ns Names
	for _, n := range []string{"type", "delta", "a", "b", "index", "choices", "k", "x", "e"} {
		ns.Add(n, false)
	}
	return &ns
}()

// scanSame scans data with Index.Scan (the one pass) and with the
// validator recording into an Index of its own, and fails on any
// difference: validity and error, whether it is an object, every
// container and member recorded, and the top-level members found, which
// must be what a walk of the top level finds.
func scanSame(t *testing.T, data []byte) {
	t.Helper()
	var x Index
	isObj, err := x.Scan(data, passNames)

	var ref Index
	ref.data = data
	v := validator{d: data, idx: &ref}
	wantObj, wantErr := v.scanObject(nil)
	if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
		t.Fatalf("Scan(%q) error = %v; the validator says %v", data, err, wantErr)
	}
	if err == nil && isObj != wantObj {
		t.Fatalf("Scan(%q) object = %v; the validator says %v", data, isObj, wantObj)
	}
	if err != nil {
		if len(x.opens)+len(x.members)+len(x.Found()) != 0 || x.Holds() {
			t.Fatalf("Scan(%q) failed and left records", data)
		}
		return
	}
	if !slices.Equal(x.opens, ref.opens) || !slices.Equal(x.conts, ref.conts) || !slices.Equal(x.members, ref.members) {
		t.Fatalf("Scan(%q) recorded\n%v %v %v\nthe validator\n%v %v %v", data, x.opens, x.conts, x.members, ref.opens, ref.conts, ref.members)
	}
	var want []Found
	if wantObj {
		Members(data, func(k, val []byte) bool {
			if i, ok := passNames.Lookup(k); ok {
				s := cap(data) - cap(val)
				want = append(want, Found{Name: uint8(i), Start: int32(s), End: int32(s + len(val))})
			}
			return true
		})
	}
	if got := x.Found(); !slices.Equal(got, want) {
		t.Fatalf("Scan(%q) found %v; a walk of the top level finds %v", data, got, want)
	}
}

func FuzzScan(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	for _, s := range []string{
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" me"}}`,
		`{"a":1,"a":2,"b":{"a":3},"x":[{"type":4}]}`,
		` { "k" : "v\"\u00e9" , "e" : -1.5E+3 , "x" : [ true , false , null ] } `,
		`{"":1,"type":"\ud800"}`, `{"a":"b"` + strings.Repeat(" ", 9) + `}`, `{"a":"12345678\\"}`,
		`{"a":"1234567"}`, `{"a":"123456789012345"}`, "{\"a\":\"1234567\x1f\"}", `[{"type":1}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		scanSame(t, data)
		if json.Valid(data) {
			passHash(t, string(data))
		}
	})
}

// TestScanDeep holds the one pass to the validator's bound on nesting.
func TestScanDeep(t *testing.T) {
	for _, n := range []int{MaxDepth, MaxDepth + 1} {
		doc := strings.Repeat("[", n) + strings.Repeat("]", n)
		scanSame(t, []byte(doc))
		obj := strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n)
		scanSame(t, []byte(obj))
	}
}

// TestScanBounds: past the containers and members an Index records, the
// one pass leaves the rest to scanning as the validator does.
func TestScanBounds(t *testing.T) {
	many := "[" + strings.Repeat("[],", maxIndexed+10) + "1]"
	scanSame(t, []byte(many))
	wide := `{"x":[` + strings.Repeat("1,", maxMembers+10) + `1],"type":"t"}`
	scanSame(t, []byte(wide))
	var x Index
	if _, err := x.Scan([]byte(wide), passNames); err != nil {
		t.Fatal(err)
	}
	walkSame(t, &x, []byte(wide), 0)
}

var hashSkip = NewKeySet("id", "sequence_number", "x")

// TestFingerprintOfPass: the fingerprint the one pass computes is the one
// Fingerprint computes by walking, indexed or not, and it leaves out what
// it should: members named in the set at any depth, and the order of an
// object's members, not of an array's elements.
func TestFingerprintOfPass(t *testing.T) {
	same := [][2]string{
		{`{"a":1,"b":[1,2]}`, `{"b":[1,2],"a":1}`},
		{`{"a":{"id":"x1","k":2}}`, `{"a":{"k":2,"id":"x2"}}`},
		{`{"a":1,"sequence_number":3}`, `{"a":1}`},
		{` {"a" : [ {"x":1} ] } `, `{"a":[{}]}`},
	}
	for _, c := range same {
		if a, b := passHash(t, c[0]), passHash(t, c[1]); a != b {
			t.Errorf("fingerprints of %s and %s differ", c[0], c[1])
		}
	}
	differ := [][2]string{
		{`{"a":[1,2]}`, `{"a":[2,1]}`},
		{`{"a":1}`, `{"a":"1"}`},
		{`{"a":{"b":1}}`, `{"b":{"a":1}}`},
		{`{"a":[]}`, `{"a":{}}`},
		{`{"a":1,"a":1}`, `{"a":1}`},
	}
	for _, c := range differ {
		if a, b := passHash(t, c[0]), passHash(t, c[1]); a == b {
			t.Errorf("fingerprints of %s and %s agree", c[0], c[1])
		}
	}
	deep := strings.Repeat(`{"a":`, 80) + `{"id":1}` + strings.Repeat("}", 80)
	passHash(t, deep)
}

// passHash scans doc with a fingerprint and checks it against the walks.
func passHash(t *testing.T, doc string) uint64 {
	t.Helper()
	var x Index
	data := []byte(doc)
	if _, err := x.ScanWith(data, &ScanOptions{Hash: true, Skip: hashSkip}); err != nil {
		t.Fatal(err)
	}
	h, ok := x.Hash()
	if !ok {
		t.Fatalf("%s: no fingerprint", doc)
	}
	v := bytes.TrimSpace(data)
	if w := Fingerprint(&x, v, hashSkip); w != h {
		t.Fatalf("%s: the pass's fingerprint %x; the indexed walk's %x", doc, h, w)
	}
	if w := Fingerprint(nil, v, hashSkip); w != h {
		t.Fatalf("%s: the pass's fingerprint %x; the walk's %x", doc, h, w)
	}
	return h
}

// TestHashBytesSpreads: every length up to 40 and every byte of the
// input changes the hash (the short inputs are read as overlapping
// words; none of their bytes may be left out).
func TestHashBytesSpreads(t *testing.T) {
	for n := range 41 {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('a' + i)
		}
		h := hashBytes(b)
		if n > 0 && h == hashBytes(b[:n-1]) {
			t.Errorf("hashBytes of %d and %d bytes agree", n, n-1)
		}
		for i := range b {
			b[i] ^= 1
			if hashBytes(b) == h {
				t.Errorf("hashBytes(%q) ignores byte %d", b, i)
			}
			b[i] ^= 1
		}
	}
}
