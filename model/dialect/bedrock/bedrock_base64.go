package bedrock

import "encoding/binary"

// decodeBase64 appends to dst the decoding of src, standard base64 with
// padding, as encoding/base64's StdEncoding decodes it, and reports
// whether src was such base64. Unlike StdEncoding it takes no line break
// (which StdEncoding skips and a JSON string cannot hold raw), so its
// success also says that src holds no byte JSON would escape.
//
// It exists for speed: an InvokeModel stream is mostly base64, and this
// decodes eight characters with eight table reads and one check, about a
// third of StdEncoding's work per byte, which decoding a chunk's bytes
// spent (FuzzDecodeBase64 holds it to StdEncoding).
func decodeBase64(dst, src []byte) ([]byte, bool) {
	n := len(src)
	if n%4 != 0 {
		return dst, false
	}
	if n == 0 {
		return dst, true
	}
	pad := 0
	if src[n-1] == '=' {
		pad = 1
		if src[n-2] == '=' {
			pad = 2
		}
	}
	body := n
	if pad > 0 {
		body -= 4 // the last quad, decoded apart
	}
	start := len(dst)
	size := n/4*3 - pad
	if cap(dst)-start < size+8 { // room for the 8-byte stores
		dst = append(dst[:cap(dst)], make([]byte, start+size+8-cap(dst))...)[:start]
	}
	buf := dst[:cap(dst)]
	j, i := start, 0
	for ; i+8 <= body; i += 8 {
		s := src[i : i+8 : i+8]
		v1 := b64Dec[0][s[0]] | b64Dec[1][s[1]] | b64Dec[2][s[2]] | b64Dec[3][s[3]]
		v2 := b64Dec[0][s[4]] | b64Dec[1][s[5]] | b64Dec[2][s[6]] | b64Dec[3][s[7]]
		if (v1|v2)>>24 != 0 {
			return dst, false
		}
		binary.BigEndian.PutUint64(buf[j:], uint64(v1)<<40|uint64(v2)<<16)
		j += 6
	}
	for ; i+4 <= body; i += 4 {
		v := b64Dec[0][src[i]] | b64Dec[1][src[i+1]] | b64Dec[2][src[i+2]] | b64Dec[3][src[i+3]]
		if v>>24 != 0 {
			return dst, false
		}
		buf[j], buf[j+1], buf[j+2] = byte(v>>16), byte(v>>8), byte(v)
		j += 3
	}
	switch pad {
	case 1: // xyz=
		v := b64Dec[0][src[i]] | b64Dec[1][src[i+1]] | b64Dec[2][src[i+2]]
		if v>>24 != 0 {
			return dst, false
		}
		buf[j], buf[j+1] = byte(v>>16), byte(v>>8)
		j += 2
	case 2: // xy==
		v := b64Dec[0][src[i]] | b64Dec[1][src[i+1]]
		if v>>24 != 0 {
			return dst, false
		}
		buf[j] = byte(v >> 16)
		j++
	}
	return buf[:j], true
}

// b64Dec holds, for each place of a character in its quad, the bits its
// value gives the quad's 24, or a high byte set for a character outside
// the alphabet ('=' included: padding is read apart).
var b64Dec = func() (t [4][256]uint32) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	for p := range t {
		for c := range t[p] {
			t[p][c] = 0xff000000
		}
		for v, c := range []byte(alphabet) {
			t[p][c] = uint32(v) << (18 - 6*p)
		}
	}
	return t
}()
