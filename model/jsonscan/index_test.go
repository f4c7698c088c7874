package jsonscan

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// walkSame reads v with the Index and by scanning, member by member and
// element by element down to the leaves, and fails on any difference.
func walkSame(t *testing.T, x *Index, v []byte, depth int) {
	t.Helper()
	if depth > 64 {
		return
	}
	type kv struct{ k, v []byte }
	var got, want []kv
	switch Kind(v) {
	case '{':
		x.Members(v, func(k, v []byte) bool { got = append(got, kv{k, v}); return true })
		Members(v, func(k, v []byte) bool { want = append(want, kv{k, v}); return true })
	case '[':
		x.Elements(v, func(_ int, v []byte) bool { got = append(got, kv{nil, v}); return true })
		Elements(v, func(_ int, v []byte) bool { want = append(want, kv{nil, v}); return true })
	default:
		return
	}
	if len(got) != len(want) {
		t.Fatalf("%q: indexed read gave %d values; scanning %d", v, len(got), len(want))
	}
	for i := range got {
		if !bytes.Equal(got[i].k, want[i].k) || !bytes.Equal(got[i].v, want[i].v) {
			t.Fatalf("%q: value %d = %q:%q; scanning gives %q:%q", v, i, got[i].k, got[i].v, want[i].k, want[i].v)
		}
		walkSame(t, x, got[i].v, depth+1)
	}
}

func FuzzIndex(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\":[1,{}]"}}]}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		// With and without a function for the top-level members, which
		// the Index then leaves to scanning.
		for _, fn := range []func(k, v []byte){nil, func(k, v []byte) {}} {
			var x Index
			_, err := x.ScanObject(data, fn)
			if err != nil {
				if len(x.opens) != 0 {
					t.Fatalf("a failed scan left %d containers indexed", len(x.opens))
				}
				return
			}
			walkSame(t, &x, data, 0)
		}
		indexesSame(t, data)
	})
}

// indexesSame indexes data in an Indexes between two other documents, as
// a batch holds it, and reads every document back through Load.
func indexesSame(t *testing.T, data []byte) {
	t.Helper()
	var xs Indexes
	docs := [][]byte{[]byte(`{"a":[1,{"b":2}],"c":{}}`), data, []byte(`[{"d":[]},3]`)}
	var scans []Scanned
	for _, d := range docs {
		scans = append(scans, xs.ScanObject(d))
	}
	for i, d := range docs {
		isObj, err := ScanObject(d, nil)
		sc := scans[i]
		if sc.IsObject != isObj || (sc.Err == nil) != (err == nil) || (err != nil && sc.Err.Error() != err.Error()) {
			t.Fatalf("doc %d: Indexes scan = %v, %v; ScanObject = %v, %v", i, sc.IsObject, sc.Err, isObj, err)
		}
		if err != nil {
			if sc.opens[0] != sc.opens[1] || (i > 0 && sc.members != scans[i-1].members) {
				t.Fatalf("doc %d: a failed scan left an index", i)
			}
			continue
		}
		var x Index
		xs.Load(&x, d, sc)
		walkSame(t, &x, d, 0)
		// The view must not write into the batch: a scan through it
		// allocates its own memory.
		if _, err := x.ScanObject([]byte(`{"z":[[[[1]]]]}`), nil); err != nil {
			t.Fatal(err)
		}
	}
	for i, d := range docs {
		if scans[i].Err == nil {
			var x Index
			xs.Load(&x, d, scans[i])
			walkSame(t, &x, d, 0)
		}
	}
}

func TestIndexesKeepABatch(t *testing.T) {
	for _, s := range seeds {
		indexesSame(t, []byte(s))
	}
	// Top-level members are recorded too: the batch has no callback to
	// hand them out.
	var xs Indexes
	doc := []byte(`{"type":"x","n":1}`)
	xs.ScanObject([]byte(`{"a":[1,2,3]}`))
	before := len(xs.all.members)
	sc := xs.ScanObject(doc)
	if got := int(sc.members) - before; got != 2 {
		t.Fatalf("recorded %d top-level members; want 2", got)
	}
	if xs.all.Holds() {
		t.Fatal("the batch holds the last document's bytes")
	}
	xs.Reset()
	if len(xs.all.opens)+len(xs.all.conts)+len(xs.all.members) != 0 {
		t.Fatal("Reset left an index behind")
	}
}

func TestIndexReadsNested(t *testing.T) {
	doc := []byte(`{"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"f","arguments":"{\"}]\""}}]}},{"index":1,"delta":{}}]}`)
	var x Index
	if _, err := x.ScanObject(doc, nil); err != nil {
		t.Fatal(err)
	}
	if len(x.opens) != 9 {
		t.Fatalf("indexed %d containers; want 9", len(x.opens))
	}
	walkSame(t, &x, doc, 0)
	var args []byte
	x.Elements(x.Get(doc, "choices"), func(_ int, ch []byte) bool {
		x.Elements(x.Get(x.Get(ch, "delta"), "tool_calls"), func(_ int, tc []byte) bool {
			args = x.Get(x.Get(tc, "function"), "arguments")
			return true
		})
		return true
	})
	if string(args) != `"{\"}]\""` {
		t.Fatalf("arguments = %s", args)
	}
}

// TestIndexOtherSlices holds the Index to reading only its own document:
// a copy, or a document scanned earlier into the same buffer, is read by
// scanning.
func TestIndexOtherSlices(t *testing.T) {
	buf := []byte(`{"a":{"b":[1,2]},"c":3}`)
	var x Index
	if _, err := x.ScanObject(buf, nil); err != nil {
		t.Fatal(err)
	}
	cp := bytes.Clone(buf)
	if got := x.Get(cp, "c"); string(got) != "3" {
		t.Fatalf("Get on a copy = %q", got)
	}
	// The index must not outlive a failed scan of the same buffer.
	copy(buf, `{"a":[{"b":1}, 2],"c":4}`)
	if _, err := x.ScanObject(buf[:len(buf)-1], nil); err == nil {
		t.Fatal("a cut document validated")
	}
	if got := x.Get(buf, "c"); string(got) != "4" {
		t.Fatalf("Get after a failed scan = %q; want 4", got)
	}
}

// TestIndexBound reads a document with more containers than an Index
// records: the rest are scanned, and the answers stay right.
func TestIndexBound(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"list":[`)
	for i := range maxIndexed + 50 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"n":[%d]}`, i)
	}
	b.WriteString(`],"tail":{"x":"end"}}`)
	doc := []byte(b.String())
	var x Index
	if _, err := x.ScanObject(doc, nil); err != nil {
		t.Fatal(err)
	}
	if len(x.opens) != maxIndexed {
		t.Fatalf("indexed %d containers; want the bound %d", len(x.opens), maxIndexed)
	}
	walkSame(t, &x, doc, 0)
	if got := x.Get(x.Get(doc, "tail"), "x"); string(got) != `"end"` {
		t.Fatalf("tail.x = %s", got)
	}
}

// TestIndexMemberBound reads a document with more members than an Index
// records: the container that overflows is read by scanning.
func TestIndexMemberBound(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"head":{"a":1},"list":[`)
	for i := range maxMembers + 10 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%d", i)
	}
	b.WriteString(`],"tail":{"x":"end"}}`)
	doc := []byte(b.String())
	var x Index
	if _, err := x.ScanObject(doc, nil); err != nil {
		t.Fatal(err)
	}
	if len(x.members) != maxMembers {
		t.Fatalf("recorded %d members; want the bound %d", len(x.members), maxMembers)
	}
	walkSame(t, &x, doc, 0)
	n := 0
	x.Elements(x.Get(doc, "list"), func(i int, v []byte) bool {
		if string(v) != fmt.Sprint(i) {
			t.Fatalf("element %d = %s", i, v)
		}
		n++
		return true
	})
	if n != maxMembers+10 {
		t.Fatalf("%d elements; want %d", n, maxMembers+10)
	}
	if got := x.Get(x.Get(doc, "tail"), "x"); string(got) != `"end"` {
		t.Fatalf("tail.x = %s", got)
	}
}

// TestIndexesBoundPerDocument: the bounds count each document's records,
// not the batch's, so a batch of documents each under the bounds indexes
// every one of them whole.
func TestIndexesBoundPerDocument(t *testing.T) {
	var b strings.Builder
	b.WriteString(`[`)
	for i := range maxIndexed - 1 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"n":%d}`, i)
	}
	b.WriteString(`]`)
	doc := []byte(b.String())
	var xs Indexes
	var scans []Scanned
	for range 3 {
		scans = append(scans, xs.ScanObject(doc))
	}
	for i, sc := range scans {
		if n := sc.opens[1] - sc.opens[0]; n != maxIndexed {
			t.Fatalf("document %d: indexed %d containers; want all %d", i, n, maxIndexed)
		}
		var x Index
		xs.Load(&x, doc, sc)
		walkSame(t, &x, doc, 0)
	}
}
