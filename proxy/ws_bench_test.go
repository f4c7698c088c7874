package proxy

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/streamtap/streamtap/internal/wstest"
)

// BenchmarkWebSocketEvents sends the events of a Responses sample as text
// messages, 100 times over, to a client directly and through the proxy:
// the ratio of the two is what inspecting a WebSocket costs the client.
func BenchmarkWebSocketEvents(b *testing.B) {
	msgs := wstest.SampleMessages(b, "responses-parallel-calls")
	var frames [][]byte
	size := 0
	for range 100 {
		for _, m := range msgs {
			frames = append(frames, wstest.Encode(true, 0, wstest.OpText, m, nil))
			size += len(frames[len(frames)-1])
		}
	}
	up, _ := wstest.Server(b, nil, func(p *wstest.Peer) {
		for {
			f, err := p.Read()
			if err != nil || f.Op == wstest.OpClose {
				return
			}
			for _, fr := range frames {
				if _, err := p.Conn.Write(fr); err != nil {
					return
				}
			}
		}
	})
	u, _ := url.Parse(up.URL)
	px := httptest.NewServer(New(Options{Upstream: u, HeadTimeout: DefaultHeadTimeout}, io.Discard))
	b.Cleanup(px.Close)
	proxyURL := px.URL
	for _, bc := range []struct{ name, base string }{{"direct", up.URL}, {"proxied", proxyURL}} {
		b.Run(bc.name, func(b *testing.B) {
			c, _ := wstest.Dial(b, bc.base, "/v1/responses", http.Header{})
			b.SetBytes(int64(size))
			for b.Loop() {
				c.Send(b, c.Frame(true, wstest.OpText, []byte(`{"type":"response.create"}`)))
				for range frames {
					if _, err := c.Read(); err != nil {
						b.Fatal(err)
					}
				}
			}
			c.Send(b, c.Frame(true, wstest.OpClose, nil))
			c.Drain(b)
		})
	}
}
