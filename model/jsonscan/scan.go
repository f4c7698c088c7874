// Package jsonscan validates JSON and reads fields out of it without
// decoding it into trees.
//
// Streams carry hundreds of thousands of small events; decoding each into a
// map or struct with encoding/json runs at about 80 MB/s, and field
// extraction libraries that re-scan the document once per path do not reach
// the 250 MB/s streamtap needs either. Here one pass validates an event and
// hands back its top-level members as byte spans; nested values are then
// read from those spans with cheap non-validating walkers.
//
// The validator agrees with encoding/json.Valid (a fuzz test holds it to
// that); Unquote agrees with encoding/json's string decoding, including its
// replacement of invalid UTF-8 and lone surrogates with U+FFFD.
package jsonscan

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// MaxDepth bounds nesting, as encoding/json does, so hostile input such as
// ten million '[' cannot exhaust the stack.
const MaxDepth = 10000

// SyntaxError is a JSON syntax error at a byte offset. EOF is set when the
// input ended before the value did: a prefix of a possibly valid document.
type SyntaxError struct {
	Offset int
	Msg    string
	EOF    bool
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s at offset %d", e.Msg, e.Offset)
}

// strSafe marks bytes that need no attention inside a string.
var strSafe = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

type validator struct {
	d     []byte
	i     int
	depth int
	idx   *Index // records containers when set
}

func (v *validator) fail(msg string) error {
	if v.i >= len(v.d) {
		return &SyntaxError{Offset: len(v.d), Msg: "unexpected end of JSON input", EOF: true}
	}
	return &SyntaxError{Offset: v.i, Msg: msg}
}

func (v *validator) ws() {
	if v.i < len(v.d) && v.d[v.i] > ' ' {
		return // the common case: no whitespace at all
	}
	for v.i < len(v.d) {
		switch v.d[v.i] {
		case ' ', '\t', '\n', '\r':
			v.i++
		default:
			return
		}
	}
}

// Validate reports whether data is exactly one JSON value, surrounded by
// optional whitespace. The error is a *SyntaxError.
func Validate(data []byte) error {
	_, err := ScanObject(data, nil)
	return err
}

// ScanObject validates data and, when it is an object, calls fn with each
// top-level member in order: the key as raw bytes between its quotes (still
// escaped) and the value's raw bytes. It returns whether the top-level
// value is an object. fn may be nil.
func ScanObject(data []byte, fn func(key, value []byte)) (isObject bool, err error) {
	v := validator{d: data}
	return v.scanObject(fn)
}

func (v *validator) scanObject(fn func(key, value []byte)) (isObject bool, err error) {
	v.ws()
	if v.i < len(v.d) && v.d[v.i] == '{' {
		isObject = true
		err = v.object(fn)
	} else {
		err = v.value()
	}
	if err != nil {
		return isObject, err
	}
	v.ws()
	if v.i < len(v.d) {
		return isObject, v.fail("invalid character after top-level value")
	}
	return isObject, nil
}

func (v *validator) value() error {
	if v.i >= len(v.d) {
		return v.fail("")
	}
	switch c := v.d[v.i]; {
	case c == '{':
		return v.object(nil)
	case c == '[':
		return v.array()
	case c == '"':
		return v.str()
	case c == '-' || (c >= '0' && c <= '9'):
		return v.number()
	case c == 't':
		return v.literal("true")
	case c == 'f':
		return v.literal("false")
	case c == 'n':
		return v.literal("null")
	}
	return v.fail(fmt.Sprintf("invalid character %q looking for beginning of value", v.d[v.i]))
}

func (v *validator) object(fn func(key, value []byte)) error {
	if v.depth++; v.depth > MaxDepth {
		return v.fail("exceeded max depth")
	}
	slot, prev := v.open(), -1
	if fn != nil && slot >= 0 {
		// fn hands these members out already: leave them unrecorded
		// (read by scanning if asked for again).
		v.idx.conts[slot].first = partial
	}
	v.i++ // {
	v.ws()
	if v.i < len(v.d) && v.d[v.i] == '}' {
		v.i++
		v.close(slot)
		return nil
	}
	for {
		v.ws()
		if v.i >= len(v.d) || v.d[v.i] != '"' {
			return v.fail("invalid character looking for beginning of object key string")
		}
		ks := v.i
		if err := v.str(); err != nil {
			return err
		}
		ke := v.i
		v.ws()
		if v.i >= len(v.d) || v.d[v.i] != ':' {
			return v.fail("invalid character after object key")
		}
		v.i++
		v.ws()
		vs := v.i
		if err := v.value(); err != nil {
			return err
		}
		if fn != nil {
			fn(v.d[ks+1:ke-1], v.d[vs:v.i])
		}
		if slot >= 0 {
			prev = v.idx.member(slot, prev, ks+1, ke-1, vs, v.i)
		}
		v.ws()
		if v.i >= len(v.d) {
			return v.fail("")
		}
		switch v.d[v.i] {
		case ',':
			v.i++
		case '}':
			v.i++
			v.close(slot)
			return nil
		default:
			return v.fail("invalid character after object key:value pair")
		}
	}
}

// open and close bracket a container at v.i for the Index, when there is
// one, and track the depth.
func (v *validator) open() int {
	if v.idx == nil {
		return -1
	}
	return v.idx.open(v.i)
}

func (v *validator) close(slot int) {
	v.depth--
	if v.idx != nil {
		v.idx.close(slot, v.i)
	}
}

func (v *validator) array() error {
	if v.depth++; v.depth > MaxDepth {
		return v.fail("exceeded max depth")
	}
	slot, prev := v.open(), -1
	v.i++ // [
	v.ws()
	if v.i < len(v.d) && v.d[v.i] == ']' {
		v.i++
		v.close(slot)
		return nil
	}
	for {
		v.ws()
		vs := v.i
		if err := v.value(); err != nil {
			return err
		}
		if slot >= 0 {
			prev = v.idx.member(slot, prev, -1, -1, vs, v.i)
		}
		v.ws()
		if v.i >= len(v.d) {
			return v.fail("")
		}
		switch v.d[v.i] {
		case ',':
			v.i++
		case ']':
			v.i++
			v.close(slot)
			return nil
		default:
			return v.fail("invalid character after array element")
		}
	}
}

func (v *validator) str() error {
	d := v.d
	i := v.i + 1
	for {
		// Jump to the first byte that needs attention: a word at a time,
		// and straight to the byte inside the word, since most strings in
		// a stream (keys, ids, short deltas) end within a word or two.
		for i+8 <= len(d) {
			m := attention(binary.LittleEndian.Uint64(d[i:]))
			if m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		for i < len(d) && strSafe[d[i]] {
			i++
		}
		if i >= len(d) {
			v.i = i
			return v.fail("")
		}
		switch d[i] {
		case '"':
			v.i = i + 1
			return nil
		case '\\':
			if i+1 >= len(d) {
				v.i = len(d)
				return v.fail("")
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				for k := 2; k < 6; k++ {
					if i+k >= len(d) {
						v.i = len(d)
						return v.fail("")
					}
					if !isHex(d[i+k]) {
						v.i = i + k
						return v.fail("invalid character in \\u hexadecimal character escape")
					}
				}
				i += 6
			default:
				v.i = i + 1
				return v.fail("invalid character in string escape code")
			}
		default:
			v.i = i
			return v.fail("invalid character in string literal")
		}
	}
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func (v *validator) digits() int {
	s := v.i
	for v.i < len(v.d) && v.d[v.i] >= '0' && v.d[v.i] <= '9' {
		v.i++
	}
	return v.i - s
}

func (v *validator) number() error {
	if v.d[v.i] == '-' {
		v.i++
		if v.i >= len(v.d) {
			return v.fail("")
		}
	}
	switch c := v.d[v.i]; {
	case c == '0':
		v.i++
	case c >= '1' && c <= '9':
		v.digits()
	default:
		return v.fail("invalid character in numeric literal")
	}
	if v.i < len(v.d) && v.d[v.i] == '.' {
		v.i++
		if v.digits() == 0 {
			return v.fail("invalid character after decimal point in numeric literal")
		}
	}
	if v.i < len(v.d) && (v.d[v.i] == 'e' || v.d[v.i] == 'E') {
		v.i++
		if v.i < len(v.d) && (v.d[v.i] == '+' || v.d[v.i] == '-') {
			v.i++
		}
		if v.digits() == 0 {
			return v.fail("invalid character in exponent of numeric literal")
		}
	}
	return nil
}

func (v *validator) literal(lit string) error {
	for k := 0; k < len(lit); k++ {
		if v.i >= len(v.d) {
			return v.fail("")
		}
		if v.d[v.i] != lit[k] {
			return v.fail(fmt.Sprintf("invalid character %q in literal %s", v.d[v.i], lit))
		}
		v.i++
	}
	return nil
}

// SWAR ("SIMD within a register") tests on 8 bytes at once. Strings are
// most of the bytes in a stream, and testing them a word at a time instead
// of a byte at a time is the validator's largest single speed-up.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// hasZero reports whether any byte of x is zero.
func hasZero(x uint64) bool { return zeroBytes(x) != 0 }

// zeroBytes sets the high bit of each zero byte of x. Borrows may also set
// it in bytes above a zero byte, never below one: the lowest set bit is
// always exact.
func zeroBytes(x uint64) uint64 { return (x - lsb) &^ x & msb }

// attention sets the high bit of each of 8 string bytes that is a quote, a
// backslash or a control character (with the same caveat as zeroBytes: the
// lowest set bit is the first such byte).
func attention(x uint64) uint64 {
	return zeroBytes(x^(lsb*'"')) | zeroBytes(x^(lsb*'\\')) | (x-lsb*0x20)&^x&msb
}
