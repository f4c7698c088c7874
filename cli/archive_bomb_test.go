package cli

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"strings"
	"testing"
)

// A cassette whose first body is a gzip bomb (300 MiB of NUL bytes in
// 300 KB) and whose second is an ordinary stream: every command refuses
// the bomb with an error naming its session and the bound, exits 2, and
// still reports the other session; --session 2 reads it alone, cleanly.
func TestArchiveGzipBombRefused(t *testing.T) {
	t.Parallel()
	var member bytes.Buffer
	z, _ := gzip.NewWriterLevel(&member, gzip.BestCompression)
	z.Write(make([]byte, 1<<20))
	z.Close()
	bomb := base64.StdEncoding.EncodeToString(bytes.Repeat(member.Bytes(), 300))
	cassette := writeTemp(t, "bomb.yaml", `interactions:
- request: {method: POST, uri: 'https://api.openai.com/v1/chat/completions'}
  response:
    status: {code: 200}
    headers: {Content-Type: [text/event-stream], Content-Encoding: [gzip]}
    body: {string: !!binary '`+bomb+`'}
- request: {method: POST, uri: 'https://api.openai.com/v1/chat/completions'}
  response:
    status: {code: 200}
    headers: {Content-Type: [text/event-stream]}
    body: {string: "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"}
`)
	refused := cassette + " #1: body not read: gzip inflates it past 256 MiB, the bound for one body"
	for _, cmd := range []string{"calls", "check"} {
		code, out, errs := runCLI(t, nil, cmd, cassette)
		if code != 2 || !strings.Contains(errs, refused) || !strings.Contains(out, "# session 2/2: POST https://api.openai.com/v1/chat/completions 200\n") {
			t.Errorf("%s: exit %d\nstdout:\n%s\nstderr:\n%s\nwant exit 2, the bomb refused, session 2 reported", cmd, code, out, errs)
		}
	}
	if code, out, errs := runCLI(t, nil, "calls", "--session", "2", cassette); code != 0 || !strings.Contains(out, "completed") || errs != "" {
		t.Errorf("calls --session 2: exit %d\n%s%s", code, out, errs)
	}
}
