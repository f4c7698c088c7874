// Package eventstreamvectors makes the AWS event stream encoding's test
// vectors (aws/aws-sdk-go's private/protocol/eventstream/testdata, at
// 8d203ccff393340d080be0417d091cc60354449b, Apache-2.0) with capture's
// encoder, for the tests: every clone has them without holding another
// project's files, and a test holds each to the upstream file byte for
// byte where ../shared/captures-next keeps them.
package eventstreamvectors

import (
	"encoding/binary"

	"github.com/streamtap/streamtap/capture"
)

// Vector is one test vector: its upstream name (positive-all-headers, …)
// and its bytes.
type Vector struct {
	Name  string
	Bytes []byte
}

// payload is the upstream vectors' payload.
const payload = "{'foo':'bar'}"

// All returns the vectors: five that decode, four whose prelude or
// message CRC fails (a positive one with one byte changed, where the
// upstream file changed it).
func All() []Vector {
	h := capture.AppendEventStreamHeader
	be32 := func(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }
	be64 := func(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }
	contentType := h(nil, "content-type", capture.EventStreamString, []byte("application/json"))
	eventType := h(nil, "event-type", capture.EventStreamInt, be32(40972))

	var all []byte
	all = append(all, eventType...)
	all = append(all, contentType...)
	all = h(all, "bool false", capture.EventStreamFalse, nil)
	all = h(all, "bool true", capture.EventStreamTrue, nil)
	all = h(all, "byte", capture.EventStreamByte, []byte{0xcf})
	all = h(all, "byte buf", capture.EventStreamBytes, []byte("I'm a little teapot!"))
	all = h(all, "timestamp", capture.EventStreamTimestamp, be64(8675309))
	all = h(all, "int16", capture.EventStreamShort, []byte{0, 42})
	all = h(all, "int64", capture.EventStreamLong, be64(42424242))
	all = h(all, "uuid", capture.EventStreamUUID, []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})

	msg := func(headers []byte, p string) []byte {
		return capture.AppendEventStreamMessage(nil, headers, []byte(p))
	}
	oneStr := msg(contentType, payload)
	noHeaders := msg(nil, payload)
	// corrupt returns b with byte i changed to v: the upstream negative
	// vectors are positive ones changed so.
	corrupt := func(b []byte, i int, v byte) []byte {
		c := append([]byte(nil), b...)
		c[i] = v
		return c
	}
	return []Vector{
		{"positive-all-headers", msg(all, payload)},
		{"positive-empty-message", msg(nil, "")},
		{"positive-int32-header", msg(eventType, payload)},
		{"positive-payload-no-headers", noHeaders},
		{"positive-payload-one-str-header", oneStr},
		{"negative-corrupted-header-len", corrupt(oneStr, 7, 0x21)}, // the headers length: the prelude CRC fails
		{"negative-corrupted-headers", corrupt(oneStr, 45, 'a')},    // a header's byte: the message CRC fails
		{"negative-corrupted-length", corrupt(oneStr, 3, 0x3e)},     // the total length: the prelude CRC fails
		{"negative-corrupted-payload", corrupt(noHeaders, 12, '[')}, // the payload: the message CRC fails
	}
}

// Get returns the vector named name; it panics on a name it does not
// make, which is a test's mistake.
func Get(name string) []byte {
	for _, v := range All() {
		if v.Name == name {
			return v.Bytes
		}
	}
	panic("eventstreamvectors: no vector " + name)
}
