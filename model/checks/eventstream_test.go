package checks

import (
	"encoding/binary"
	"hash/crc32"
	"slices"
	"strings"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/internal/eventstreamvectors"
	"github.com/streamtap/streamtap/model/internal/modeltest"
)

// eventStreamCases are the framing rules of the AWS event stream
// encoding, on a sound ConverseStream damaged a byte at a time (the
// Bedrock dialects' own rules are their package's).
func eventStreamCases() []ruleCase {
	base := modeltest.ConvBase()
	join := func(events []string) string { return strings.Join(events, "") }
	with, flip := modeltest.WithEvent, modeltest.FlipByte
	short := "\x00\x00\x00\x0c\x00\x00\x00\x00" // total 12, a valid CRC: too short for a message
	short = string(binary.BigEndian.AppendUint32([]byte(short), crc32.ChecksumIEEE([]byte(short))))
	return []ruleCase{
		hit(fESPreludeCRC, "length byte damaged", join(with(base, 1, flip(base[1], 2))), 1),
		miss(fESPreludeCRC, "sound", join(base)),
		hit(fESMessageCRC, "payload byte damaged", join(with(base, 5, flip(base[5], len(base[5])-10))), 5),
		miss(fESMessageCRC, "sound", join(base)),
		hit(fESLength, "a prelude of 12 bytes", join(with(base, 2, short, base[2])), 2),
		miss(fESLength, "sound", join(base)),
		hit(fESException, "throttled mid-stream", join(append(slices.Clone(base[:6]), modeltest.ESExceptionOf("throttlingException", "Too many requests"))), 6),
		miss(fESException, "no exception", join(base)),
		hit(fUnterminated, "event stream cut mid-message", join(base)[:len(join(base))-7], 9),
	}
}

// TestEventStreamVectors: the encoding's test vectors (the AWS SDK's, in
// internal/eventstreamvectors) yield exactly the transport findings
// their names call for.
func TestEventStreamVectors(t *testing.T) {
	for _, v := range eventstreamvectors.All() {
		name, data := v.Name, v.Bytes
		rep := CheckBytes(data, capture.FormatAuto, Strict)
		var got []string
		for _, f := range rep.Findings {
			got = append(got, f.Rule)
		}
		want := ""
		switch {
		case strings.Contains(name, "corrupted-length"), strings.Contains(name, "corrupted-header-len"):
			want = fESPreludeCRC
		case strings.Contains(name, "corrupted-headers"), strings.Contains(name, "corrupted-payload"):
			want = fESMessageCRC
		case strings.Contains(name, "positive-empty-message"):
			want = fNoData // no payload at all
		case strings.HasPrefix(name, "positive-"):
			want = fInvalidJSON // the vectors' payload is {'foo':'bar'}
		}
		if strings.Join(got, " ") != want {
			t.Errorf("%s: findings %q; want %q", name, got, want)
			for _, f := range rep.Findings {
				t.Logf("%s %s: %s", f.Severity, f.Rule, f.Message)
			}
		}
	}
}
