package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
)

// BenchmarkWebSocketEvents sends the events of a Responses sample as text
// messages, 100 times over, to a client directly and through the proxy:
// the ratio of the two is what inspecting a WebSocket costs the client.
func BenchmarkWebSocketEvents(b *testing.B) {
	msgs := sampleMessages(b, "responses-parallel-calls")
	var frames [][]byte
	size := 0
	for range 100 {
		for _, m := range msgs {
			frames = append(frames, wsEncode(true, 0, opText, m, nil))
			size += len(frames[len(frames)-1])
		}
	}
	up, _ := wsServer(b, nil, func(p *wsPeer) {
		for {
			f, err := p.read()
			if err != nil || f.op == opClose {
				return
			}
			for _, fr := range frames {
				if _, err := p.conn.Write(fr); err != nil {
					return
				}
			}
		}
	})
	u, _ := url.Parse(up.URL)
	px := httptest.NewServer(newProxy(proxyOptions{upstream: u, headTimeout: defaultHeadTimeout}, io.Discard))
	b.Cleanup(px.Close)
	proxyURL := px.URL
	for _, bc := range []struct{ name, base string }{{"direct", up.URL}, {"proxied", proxyURL}} {
		b.Run(bc.name, func(b *testing.B) {
			c, _ := dialWS(b, bc.base, "/v1/responses", http.Header{})
			b.SetBytes(int64(size))
			for b.Loop() {
				c.send(b, c.frame(true, opText, []byte(`{"type":"response.create"}`)))
				for range frames {
					if _, err := c.read(); err != nil {
						b.Fatal(err)
					}
				}
			}
			c.send(b, c.frame(true, opClose, nil))
			_, _ = io.Copy(io.Discard, c.r)
		})
	}
}
