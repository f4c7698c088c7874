package eventstreamvectors

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/streamtap/streamtap/internal/fixtures"
)

// TestUpstreamBytes: each vector made here is the AWS SDK's file byte for
// byte (kept in ../shared/captures-next), which holds capture's encoder,
// header by header, to the SDK's.
func TestUpstreamBytes(t *testing.T) {
	dir := fixtures.Shared(t, "captures-next")
	for _, v := range All() {
		want, err := os.ReadFile(filepath.Join(dir, "eventstream-vector__"+v.Name+"__awssdkgo.eventstream"))
		if err != nil {
			t.Errorf("%s: %v", v.Name, err)
			continue
		}
		if !bytes.Equal(v.Bytes, want) {
			t.Errorf("%s: made\n% x\nthe SDK's file\n% x", v.Name, v.Bytes, want)
		}
	}
}
