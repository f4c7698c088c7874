package jsonscan

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"math/bits"
	"slices"
	"strings"
	"testing"
)

var seeds = []string{
	`{}`, `[]`, `""`, `0`, `-0.5e+10`, `true`, `null`, ` {"a" : [1, {"b":"c\"d"}], "e":null } `,
	`{"delta":"{\"loc"}`, `"\ud83d\ude00"`, `"\ud83d"`, `"\udc00x"`, `"\u00e9\n\t\\\/"`,
	`{"a":1,}`, `[1,]`, `01`, `1.`, `1e`, `-`, `"abc`, `{"a"`, `{"a":`, `tru`, `nul`, "\"a\x01\"",
	`"\x"`, `"\u12g4"`, `[[[[`, `{"a":1}{"b":2}`, "\"\xff\xfe\"", `{"k":"v"} x`, ``, ` `,
}

func FuzzValidate(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := Validate(data)
		if want := json.Valid(data); (err == nil) != want {
			t.Fatalf("Validate(%q) = %v; json.Valid = %v", data, err, want)
		}
		var se *SyntaxError
		if err != nil && (!errors.As(err, &se) || se.Offset < 0 || se.Offset > len(data)) {
			t.Fatalf("Validate(%q) error %v has no offset in range", data, err)
		}
	})
}

func FuzzUnquote(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want string
		if json.Unmarshal(data, &want) != nil || Kind(data) != '"' {
			return
		}
		v := data[skipWS(data, 0):]
		v = v[:skipValue(v, 0)]
		got, ok := String(v)
		if !ok || got != want {
			t.Fatalf("String(%q) = %q, %v; want %q", v, got, ok, want)
		}
		if !Equal(v, want) {
			t.Fatalf("Equal(%q, %q) = false", v, want)
		}
	})
}

func TestSyntaxErrorOffsets(t *testing.T) {
	tests := []struct {
		in     string
		offset int
		eof    bool
	}{
		{`{"a":1`, 6, true},
		{`{"a":1]`, 6, false},
		{`{"a" 1}`, 5, false},
		{`[1,2,`, 5, true},
		{`{"a":"b`, 7, true},
		{`{"a":tx}`, 6, false},
		{`{"a":1} {`, 8, false},
		{``, 0, true},
	}
	for _, tt := range tests {
		err := Validate([]byte(tt.in))
		var se *SyntaxError
		if !errors.As(err, &se) || se.Offset != tt.offset || se.EOF != tt.eof {
			t.Errorf("Validate(%q) = %v; want offset %d eof %v", tt.in, err, tt.offset, tt.eof)
		}
	}
}

func TestDepthLimit(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	if err := Validate([]byte(deep)); err == nil {
		t.Fatal("Validate accepted nesting past MaxDepth")
	}
	ok := strings.Repeat("[", 100) + strings.Repeat("]", 100)
	if err := Validate([]byte(ok)); err != nil {
		t.Fatalf("Validate(100 deep) = %v", err)
	}
}

func TestScanObjectMembers(t *testing.T) {
	in := `{"type":"response.output_text.delta", "seq" : 3, "item":{"id":"x","n":[1,{"y":"}"}]},"s":"a\"}b"}`
	var keys, vals []string
	isObj, err := ScanObject([]byte(in), func(k, v []byte) {
		keys = append(keys, string(k))
		vals = append(vals, string(v))
	})
	if err != nil || !isObj {
		t.Fatalf("ScanObject = %v, %v", isObj, err)
	}
	wantKeys := "type,seq,item,s"
	if strings.Join(keys, ",") != wantKeys {
		t.Fatalf("keys = %v; want %s", keys, wantKeys)
	}
	if vals[2] != `{"id":"x","n":[1,{"y":"}"}]}` || vals[3] != `"a\"}b"` {
		t.Fatalf("vals = %q", vals)
	}
	if got := Path([]byte(in), "item", "id"); string(got) != `"x"` {
		t.Fatalf("Path(item.id) = %s", got)
	}
	var elems []string
	Elements(Get([]byte(in), "item"), nil) // not an array: no calls, no panic
	Elements(Path([]byte(in), "item", "n"), func(i int, v []byte) bool {
		elems = append(elems, string(v))
		return true
	})
	if strings.Join(elems, "|") != `1|{"y":"}"}` {
		t.Fatalf("elements = %q", elems)
	}
	if isObj, _ := ScanObject([]byte(`[1]`), nil); isObj {
		t.Fatal("an array reported as object")
	}
}

// TestReadersOnGarbage holds the non-validating readers to their promise:
// no panic on input that was never validated.
func TestReadersOnGarbage(t *testing.T) {
	for _, s := range seeds {
		b := []byte(s)
		Members(b, func(k, v []byte) bool { Get(v, "x"); return true })
		Elements(b, func(i int, v []byte) bool { return true })
		String(b)
		Unquote(nil, b)
		Int(b)
	}
}

func BenchmarkScanDelta(b *testing.B) {
	ev := []byte(`{"type":"response.function_call_arguments.delta","sequence_number":1234,"item_id":"fc_68d32faf804881909f05c9aea39","output_index":1,"delta":"{\"loc","obfuscation":"k2Jx9"}`)
	b.SetBytes(int64(len(ev)))
	for b.Loop() {
		_, _ = ScanObject(ev, func(k, v []byte) {})
	}
}

// FuzzReaders feeds unvalidated bytes to the readers: they must neither
// panic nor loop.
func FuzzReaders(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		Members(b, func(k, v []byte) bool { Get(v, "x"); Elements(v, func(int, []byte) bool { return true }); return true })
		Elements(b, func(i int, v []byte) bool { String(v); return true })
		Unquote(nil, b)
	})
}

func TestInt(t *testing.T) {
	for _, tt := range []struct {
		in string
		n  int64
		ok bool
	}{{"0", 0, true}, {"-12", -12, true}, {"123456789012345678", 123456789012345678, true},
		{"1.5", 0, false}, {"", 0, false}, {"-", 0, false}, {`"1"`, 0, false}, {"1234567890123456789", 0, false}} {
		if n, ok := Int([]byte(tt.in)); n != tt.n || ok != tt.ok {
			t.Errorf("Int(%q) = %d, %v; want %d, %v", tt.in, n, ok, tt.n, tt.ok)
		}
	}
}

// TestAttention checks the SWAR test against the byte table: for every
// byte value in every lane, and for words with several bytes that need
// attention, the lowest set bit must mark the first of them.
func TestAttention(t *testing.T) {
	first := func(w []byte) int {
		for i, c := range w {
			if !strSafe[c] {
				return i
			}
		}
		return 8
	}
	check := func(w []byte) {
		t.Helper()
		x := binary.LittleEndian.Uint64(w)
		got := 8
		if m := attention(x); m != 0 {
			got = bits.TrailingZeros64(m) >> 3
		}
		if want := first(w); got != want {
			t.Fatalf("word %q: attention marks byte %d first; want %d", w, got, want)
		}
	}
	for c := 0; c < 256; c++ {
		for lane := 0; lane < 8; lane++ {
			w := []byte("abcdefgh")
			w[lane] = byte(c)
			check(w)
			// A second byte that needs attention, above or below.
			for _, other := range []byte{0, '"', '\\', 0x1f} {
				for at := 0; at < 8; at++ {
					if at != lane {
						v := slices.Clone(w)
						v[at] = other
						check(v)
					}
				}
			}
		}
	}
}

func FuzzEqualDecoded(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s), 7)
	}
	f.Add([]byte(`"`+strings.Repeat(`\u00e9\"ab\ud83d\ude00`, 2000)+`"`), 3)
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		if Validate(data) != nil || Kind(data) != '"' {
			return
		}
		v := data[skipWS(data, 0):]
		v = v[:skipValue(v, 0)]
		dec := Unquote(nil, v)
		if !EqualDecoded(v, dec) {
			t.Fatalf("EqualDecoded(%q, its own decoding) = false", v)
		}
		if len(dec) > 0 {
			other := append([]byte(nil), dec...)
			other[(cut%len(other)+len(other))%len(other)] ^= 1
			if EqualDecoded(v, other) {
				t.Fatalf("EqualDecoded(%q, %q) = true", v, other)
			}
			if EqualDecoded(v, dec[:len(dec)-1]) {
				t.Fatalf("EqualDecoded(%q, a prefix) = true", v)
			}
		}
	})
}
