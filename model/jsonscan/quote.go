package jsonscan

import (
	"math/bits"
	"unicode/utf8"
)

// AppendQuote appends s as a JSON string, byte for byte as encoding/json
// writes it with HTML escaping off, so that a hand-written encoder can
// stand in for it where reflection costs too much: quote, backslash and
// control bytes escaped (\b \f \n \r \t by name, the rest as \u00XX), each
// invalid UTF-8 byte as \ufffd, and U+2028 and U+2029 escaped.
func AppendQuote[T string | []byte](dst []byte, s T) []byte {
	dst = append(dst, '"')
	dst = AppendEscaped(dst, s)
	return append(dst, '"')
}

// AppendEscaped appends what AppendQuote appends between the quotes. A
// string cut into pieces at rune starts escapes piece by piece to the same
// bytes.
func AppendEscaped[T string | []byte](dst []byte, s T) []byte {
	start := 0
	for i := 0; i < len(s); {
		// Jump to the first byte that needs escaping or decoding: a word
		// at a time, then straight to the byte inside the word (the
		// lowest bit attention sets is exact).
		for i+8 <= len(s) {
			w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
				uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
			if m := attention(w) | w&msb; m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(s) {
			break
		}
		b := s[i]
		if b < utf8.RuneSelf {
			if strSafe[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))])) // small: no allocation
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(dst, s[start:]...)
}

const hexDigits = "0123456789abcdef"
