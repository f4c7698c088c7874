package jsonscan

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
	"unicode/utf16"
	"unicode/utf8"
)

// The readers below expect values that Validate accepted. On other input
// they return garbage or nothing, but never panic.

func skipWS(d []byte, i int) int {
	for i < len(d) {
		switch d[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the index just past the string starting at d[i] == '"'.
// The input is valid, so a backslash escapes exactly the byte after it.
func skipString(d []byte, i int) int {
	i++
	for {
		for i+8 <= len(d) {
			x := binary.LittleEndian.Uint64(d[i:])
			if m := zeroBytes(x^(lsb*'"')) | zeroBytes(x^(lsb*'\\')); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		for i < len(d) && d[i] != '"' && d[i] != '\\' {
			i++
		}
		if i >= len(d) {
			return len(d)
		}
		if d[i] == '"' {
			return i + 1
		}
		i += 2
	}
}

// structural marks the bytes skipValue stops at inside containers.
var structural = [256]bool{'"': true, '{': true, '[': true, '}': true, ']': true}

// skipValue returns the index just past the value starting at d[i].
func skipValue(d []byte, i int) int {
	if i >= len(d) {
		return i
	}
	switch d[i] {
	case '"':
		return skipString(d, i)
	case '{', '[':
		depth := 0
		for i < len(d) {
			for i < len(d) && !structural[d[i]] {
				i++
			}
			if i >= len(d) {
				return i
			}
			switch d[i] {
			case '"':
				i = skipString(d, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	default:
		for i < len(d) {
			switch d[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return i
			}
			i++
		}
		return i
	}
}

// Members calls fn with each member of the object obj, in order, until fn
// returns false. Keys are the raw bytes between the quotes.
func Members(obj []byte, fn func(key, value []byte) bool) { (*Index)(nil).Members(obj, fn) }

// Get returns the value of the member key of object obj, or nil.
func Get(obj []byte, key string) []byte { return (*Index)(nil).Get(obj, key) }

// Path follows keys through nested objects.
func Path(obj []byte, keys ...string) []byte { return (*Index)(nil).Path(obj, keys...) }

// Elements calls fn with each element of the array arr until fn returns
// false.
func Elements(arr []byte, fn func(i int, value []byte) bool) { (*Index)(nil).Elements(arr, fn) }

// Kind returns the first byte of a value: '{', '[', '"', 't', 'f', 'n', or
// a digit or '-' for numbers; 0 for nothing.
func Kind(v []byte) byte {
	i := skipWS(v, 0)
	if i >= len(v) {
		return 0
	}
	return v[i]
}

// IsNull reports whether v is absent or the literal null.
func IsNull(v []byte) bool { return len(v) == 0 || string(v) == "null" }

// Int reads an integer value: an optional minus and at most 18 digits,
// without allocating.
func Int(v []byte) (int64, bool) {
	neg := len(v) > 0 && v[0] == '-'
	if neg {
		v = v[1:]
	}
	if len(v) == 0 || len(v) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// Raw returns the bytes between the quotes of a string value that needs no
// decoding, so it can be used as a map key without allocating; ok is false
// for other values.
func Raw(v []byte) (b []byte, ok bool) {
	if len(v) < 2 || v[0] != '"' {
		return nil, false
	}
	inner := v[1 : len(v)-1]
	return inner, plain(inner)
}

// String decodes a string value and returns it; ok is false when v is not a
// string.
func String(v []byte) (s string, ok bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	inner := v[1 : len(v)-1]
	if plain(inner) {
		return string(inner), true
	}
	return string(Unquote(nil, v)), true
}

// plain reports whether a string body needs no decoding: no escapes and
// valid UTF-8.
func plain(b []byte) bool {
	for len(b) >= 8 {
		x := binary.LittleEndian.Uint64(b)
		if x&msb != 0 || hasZero(x^(lsb*'\\')) {
			break
		}
		b = b[8:]
	}
	for _, c := range b {
		if c == '\\' || c >= utf8.RuneSelf {
			return bytes.IndexByte(b, '\\') < 0 && utf8.Valid(b)
		}
	}
	return true
}

// Equal reports whether string value v decodes to s, without allocating in
// the common case of an unescaped value.
func Equal(v []byte, s string) bool {
	if len(v) < 2 || v[0] != '"' {
		return false
	}
	inner := v[1 : len(v)-1]
	if string(inner) == s {
		return true
	}
	if plain(inner) {
		return false
	}
	return string(Unquote(nil, v)) == s
}

// Unquote appends the decoded form of the string value v to dst. Like
// encoding/json it replaces invalid UTF-8 and unpaired surrogates with
// U+FFFD.
func Unquote(dst, v []byte) []byte {
	if len(v) < 2 || v[0] != '"' {
		return dst
	}
	s := v[1 : len(v)-1]
	if plain(s) {
		return append(dst, s...)
	}
	// Escapes decode shorter, so the escaped length is the usual size:
	// one allocation up front instead of append's repeated growth (invalid
	// UTF-8, three bytes of U+FFFD a byte, may still grow it).
	dst = slices.Grow(dst, len(s))
	dst, _ = decode(dst, s, math.MaxInt)
	return dst
}

// UnquoteSized is Unquote(nil, v) in room sized by counting what the
// escapes take out first (the bytes between them are taken as they are:
// invalid UTF-8, which decodes longer, may still grow it). Unquote sizes
// its room by the escaped length, which an argument string of JSON (a
// quote escaped every few bytes) exceeds by a sixth, and a buffer trimmed
// to its length when its item closes was copied whole beside the first.
func UnquoteSized(v []byte) []byte {
	if len(v) < 2 || v[0] != '"' {
		return nil
	}
	s := v[1 : len(v)-1]
	dst, _ := decode(make([]byte, 0, unquotedLen(s)), s, math.MaxInt)
	return dst
}

// unquotedLen is about the decoded length of a string body: exact when
// it is valid UTF-8 and its escapes are well formed.
func unquotedLen(s []byte) int {
	n := len(s)
	for i := 0; ; {
		j := bytes.IndexByte(s[i:], '\\')
		if j < 0 || i+j+1 >= len(s) {
			return n
		}
		i += j
		if s[i+1] != 'u' {
			n-- // \" \\ \n …: two bytes for one
			i += 2
			continue
		}
		r, k := readU(s, i)
		if k == 0 { // a broken escape: U+FFFD
			n++
			i += 2
			continue
		}
		if utf16.IsSurrogate(r) {
			if r2, k2 := readU(s, i+k); k2 > 0 {
				if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
					n -= k + k2 - utf8.RuneLen(dec)
					i += k + k2
					continue
				}
			}
			r = utf8.RuneError
		}
		n -= k - utf8.RuneLen(r)
		i += k
	}
}

// EqualDecoded reports whether the string value v decodes to want, without
// holding the decoded copy: it decodes a few KiB at a time. Comparing a
// 50 MB argument string stated twice then costs no 50 MB allocation.
func EqualDecoded(v, want []byte) bool {
	if len(v) < 2 || v[0] != '"' {
		return false
	}
	s := v[1 : len(v)-1]
	if plain(s) {
		return bytes.Equal(s, want)
	}
	var buf [4096]byte
	for len(s) > 0 {
		out, n := decode(buf[:0], s, len(buf)-8)
		if !bytes.HasPrefix(want, out) {
			return false
		}
		want, s = want[len(out):], s[n:]
	}
	return len(want) == 0
}

// decode appends the decoded form of the string body s to dst, stopping at
// an escape or rune boundary once it has appended limit bytes. It returns
// dst and the number of bytes of s consumed.
func decode(dst, s []byte, limit int) ([]byte, int) {
	start := len(dst)
	i := 0
	for i < len(s) && len(dst)-start < limit {
		// A run of bytes that decode to themselves (ASCII, no escape),
		// found 8 at a time and copied at once: an argument fragment is
		// mostly such runs between its escaped quotes. The run is looked
		// for only as far as the limit: EqualDecoded decodes a 50 MB
		// string 4 KiB at a time, and a run sought to the string's end
		// each time made that quadratic.
		end := len(s)
		if rest := limit - (len(dst) - start); rest < end-i {
			end = i + rest
		}
		j := i
		for j+8 <= end {
			x := binary.LittleEndian.Uint64(s[j:])
			if m := (x | zeroBytes(x^(lsb*'\\'))) & msb; m != 0 {
				j += bits.TrailingZeros64(m) >> 3
				break
			}
			j += 8
		}
		for j < end && s[j] != '\\' && s[j] < utf8.RuneSelf {
			j++
		}
		if j > i {
			dst = append(dst, s[i:j]...)
			i = j
			continue
		}
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			switch s[i+1] {
			case 'u':
				r, n := readU(s, i)
				if n == 0 { // a broken escape in unvalidated input
					dst = utf8.AppendRune(dst, utf8.RuneError)
					i += 2
					continue
				}
				if utf16.IsSurrogate(r) {
					r2, n2 := readU(s, i+n)
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError && n2 > 0 {
						dst = utf8.AppendRune(dst, dec)
						i += n + n2
						continue
					}
					r = utf8.RuneError
				}
				dst = utf8.AppendRune(dst, r)
				i += n
				continue
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			default: // " \ /
				dst = append(dst, s[i+1])
			}
			i += 2
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			i++
		default:
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				dst = utf8.AppendRune(dst, utf8.RuneError)
			} else {
				dst = append(dst, s[i:i+size]...)
			}
			i += size
		}
	}
	return dst, i
}

// readU reads a \uXXXX escape at s[i]; n is 0 when there is none.
func readU(s []byte, i int) (rune, int) {
	if i+6 > len(s) || s[i] != '\\' || s[i+1] != 'u' {
		return utf8.RuneError, 0
	}
	var r rune
	for _, c := range s[i+2 : i+6] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return utf8.RuneError, 0
		}
		r = r*16 + rune(c)
	}
	return r, 6
}
