package bedrock

import (
	"bytes"
	"encoding/base64"
	"testing"
)

// FuzzDecodeBase64 holds decodeBase64 to encoding/base64's StdEncoding:
// the same bytes when it decodes, and a refusal exactly when StdEncoding
// refuses, or when the input holds a line break (which StdEncoding skips).
func FuzzDecodeBase64(f *testing.F) {
	for _, s := range []string{"", "QQ==", "QUI=", "QUJD", "QUJDRA==", "QUJDREVGR0g=", "QUJDREVGR0hJ", "QQ=", "Q===", "====",
		"QU=D", "QUJD\nREVG", "QUJD\\/REVG", "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=", "QR==", "QUJ=", "-_-_"} {
		f.Add([]byte(s), []byte("pre"))
	}
	f.Fuzz(func(t *testing.T, src, prefix []byte) {
		got, ok := decodeBase64(bytes.Clone(prefix), src)
		want, err := base64.StdEncoding.AppendDecode(bytes.Clone(prefix), src)
		lineBreak := bytes.ContainsAny(src, "\r\n")
		switch {
		case ok && (err != nil || lineBreak):
			t.Fatalf("decodeBase64(%q) = %q; StdEncoding refuses it (%v) or it holds a line break", src, got, err)
		case ok && !bytes.Equal(got, want):
			t.Fatalf("decodeBase64(%q) = %q; want %q", src, got, want)
		case !ok && err == nil && !lineBreak:
			t.Fatalf("decodeBase64(%q) refused; StdEncoding decodes it to %q", src, want)
		case !ok && !bytes.Equal(got, prefix):
			t.Fatalf("decodeBase64(%q) refused, dst = %q; want it as given, %q", src, got, prefix)
		}
	})
}

func BenchmarkDecodeBase64(b *testing.B) {
	src := []byte(base64.StdEncoding.EncodeToString(bytes.Repeat([]byte(`{"type":"content_block_delta","index":1}`), 10)))
	b.SetBytes(int64(len(src)))
	var dst []byte
	b.Run("decodeBase64", func(b *testing.B) {
		for b.Loop() {
			dst, _ = decodeBase64(dst[:0], src)
		}
	})
	b.Run("StdEncoding", func(b *testing.B) {
		for b.Loop() {
			dst, _ = base64.StdEncoding.AppendDecode(dst[:0], src)
		}
	})
}
