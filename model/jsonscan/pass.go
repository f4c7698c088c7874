package jsonscan

import (
	"encoding/binary"
	"math/bits"
)

// pass is the walk of Index.Scan: it validates a document, records its
// structure in an Index and where the members a Names looks out for lie,
// in one pass over its bytes. It agrees with the validator (and so with
// encoding/json.Valid) on what is valid, and records what the validator
// records; when a document is invalid the validator runs again to say
// where and why, which only invalid documents pay.
//
// It is the validator written for speed on what streams carry (events of
// a few hundred bytes, strings of a few bytes): the position is passed
// and returned in registers instead of kept in a field, -1 says invalid,
// and a member's string value is scanned without a call to value.
type pass struct {
	d     []byte
	x     *Index
	names *Names
	depth int
}

// run validates and indexes p.d, and reports whether it is an object and
// whether it is valid.
func (p *pass) run() (isObject, ok bool) {
	d := p.d
	i := skipWS(d, 0)
	if i < len(d) && d[i] == '{' {
		isObject = true
		i = p.object(i, p.names)
	} else {
		i = p.value(i)
	}
	if i < 0 {
		return isObject, false
	}
	return isObject, skipWS(d, i) == len(d)
}

// value returns the index just past the value at d[i], or -1 when there
// is no valid value there.
func (p *pass) value(i int) int {
	d := p.d
	if i >= len(d) {
		return -1
	}
	switch d[i] {
	case '"':
		return stringEnd(d, i+1)
	case '{':
		return p.object(i, nil)
	case '[':
		return p.array(i)
	case 't':
		if len(d)-i >= 4 && string(d[i:i+4]) == "true" {
			return i + 4
		}
		return -1
	case 'f':
		if len(d)-i >= 5 && string(d[i:i+5]) == "false" {
			return i + 5
		}
		return -1
	case 'n':
		if len(d)-i >= 4 && string(d[i:i+4]) == "null" {
			return i + 4
		}
		return -1
	}
	return numberEnd(d, i)
}

// object returns the index just past the object opening at d[i], or -1.
// With names (the top level), it records where the named members lie.
func (p *pass) object(i int, names *Names) int {
	if p.depth++; p.depth > MaxDepth {
		return -1
	}
	d, x := p.d, p.x
	slot, prev := x.open(i), -1
	i++
	if i < len(d) && d[i] <= ' ' {
		i = skipWS(d, i)
	}
	if i < len(d) && d[i] == '}' {
		x.close(slot, i+1)
		p.depth--
		return i + 1
	}
	for {
		if i >= len(d) || d[i] != '"' {
			return -1
		}
		ks := i + 1
		if i = stringEnd(d, ks); i < 0 {
			return -1
		}
		ke := i - 1
		if i < len(d) && d[i] <= ' ' {
			i = skipWS(d, i)
		}
		if i >= len(d) || d[i] != ':' {
			return -1
		}
		i++
		if i < len(d) && d[i] <= ' ' {
			i = skipWS(d, i)
		}
		vs := i
		if i < len(d) && d[i] == '"' {
			i = stringEnd(d, i+1)
		} else {
			i = p.value(i)
		}
		if i < 0 {
			return -1
		}
		if slot >= 0 {
			prev = x.member(slot, prev, ks, ke, vs, i)
		}
		if names != nil && ke > ks {
			if k := int(names.table[hashName(d[ks:ke], names.seed, names.whole)]) - 1; k >= 0 && names.names[k] == string(d[ks:ke]) {
				x.addFound(k, vs, i)
			}
		}
		if i < len(d) && d[i] <= ' ' {
			i = skipWS(d, i)
		}
		if i >= len(d) {
			return -1
		}
		switch d[i] {
		case ',':
			i++
			if i < len(d) && d[i] <= ' ' {
				i = skipWS(d, i)
			}
		case '}':
			x.close(slot, i+1)
			p.depth--
			return i + 1
		default:
			return -1
		}
	}
}

// array returns the index just past the array opening at d[i], or -1.
func (p *pass) array(i int) int {
	if p.depth++; p.depth > MaxDepth {
		return -1
	}
	d, x := p.d, p.x
	slot, prev := x.open(i), -1
	i++
	if i < len(d) && d[i] <= ' ' {
		i = skipWS(d, i)
	}
	if i < len(d) && d[i] == ']' {
		x.close(slot, i+1)
		p.depth--
		return i + 1
	}
	for {
		vs := i
		if i = p.value(i); i < 0 {
			return -1
		}
		if slot >= 0 {
			prev = x.member(slot, prev, -1, -1, vs, i)
		}
		if i < len(d) && d[i] <= ' ' {
			i = skipWS(d, i)
		}
		if i >= len(d) {
			return -1
		}
		switch d[i] {
		case ',':
			i++
			if i < len(d) && d[i] <= ' ' {
				i = skipWS(d, i)
			}
		case ']':
			x.close(slot, i+1)
			p.depth--
			return i + 1
		default:
			return -1
		}
	}
}

// stringEnd returns the index just past the string whose body starts at
// d[i] (past its opening quote), or -1 when it is not a valid string. It
// looks at 8 bytes at a time and goes straight to the first that needs
// attention: most strings of a stream end within the first 8 or 16.
func stringEnd(d []byte, i int) int {
	for {
		if i+8 <= len(d) {
			x := binary.LittleEndian.Uint64(d[i:])
			m := ((x^(lsb*'"'))-lsb)&^(x^(lsb*'"')) | ((x^(lsb*'\\'))-lsb)&^(x^(lsb*'\\')) | (x-lsb*0x20)&^x
			if m &= msb; m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) >> 3
		} else {
			for i < len(d) && strSafe[d[i]] {
				i++
			}
			if i >= len(d) {
				return -1
			}
		}
		switch d[i] {
		case '"':
			return i + 1
		case '\\':
			if i+1 >= len(d) {
				return -1
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(d) || !isHex(d[i+2]) || !isHex(d[i+3]) || !isHex(d[i+4]) || !isHex(d[i+5]) {
					return -1
				}
				i += 6
			default:
				return -1
			}
		default:
			return -1 // a control character
		}
	}
}

// numberEnd returns the index just past the number starting at d[i], or
// -1 when there is none.
func numberEnd(d []byte, i int) int {
	n := len(d)
	if d[i] == '-' {
		if i++; i >= n {
			return -1
		}
	}
	switch c := d[i]; {
	case c == '0':
		i++
	case c >= '1' && c <= '9':
		i++
		for i < n && d[i]-'0' <= 9 {
			i++
		}
	default:
		return -1
	}
	if i < n && d[i] == '.' {
		i++
		s := i
		for i < n && d[i]-'0' <= 9 {
			i++
		}
		if i == s {
			return -1
		}
	}
	if i < n && d[i]|0x20 == 'e' {
		i++
		if i < n && (d[i] == '+' || d[i] == '-') {
			i++
		}
		s := i
		for i < n && d[i]-'0' <= 9 {
			i++
		}
		if i == s {
			return -1
		}
	}
	return i
}
