// Package ssetest holds what the tests of several packages (proxy, cli)
// need to serve a stream the way an SSE server writes it and to read it
// back the way a client gets it: the stream cut into its events, where
// each event ends, and a client that changes no byte. Only tests import
// it.
package ssetest

import (
	"net/http"

	"github.com/streamtap/streamtap/capture"
)

// ContentType is the Content-Type of an SSE response.
const ContentType = "text/event-stream; charset=utf-8"

// RawClient does not ask for compression, so the bytes a test compares
// are the bytes the server sent. It keeps enough idle connections for
// the load tests' hundreds of streams.
var RawClient = &http.Client{Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 256}}

// Blocks cuts a stream into its SSE frames, the way a client's framer
// will see them; trailing blank lines join the last one. The blocks are
// slices of data.
func Blocks(data []byte) [][]byte {
	var out [][]byte
	fr := capture.NewFramer(capture.FormatSSE)
	emit := func(f *capture.Frame) {
		if f.Kind == capture.FrameRemainder && len(out) > 0 {
			out[len(out)-1] = data[f.Start-int64(len(out[len(out)-1])) : f.End]
			return
		}
		out = append(out, data[f.Start:f.End])
	}
	fr.Feed(data, 0, emit)
	fr.Finish(0, emit)
	return out
}

// Ends is the offset just past each of data's blocks (Blocks): a client
// has an event once it has read that many bytes.
func Ends(data []byte) []int {
	var ends []int
	n := 0
	for _, b := range Blocks(data) {
		n += len(b)
		ends = append(ends, n)
	}
	return ends
}
