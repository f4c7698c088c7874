package streamdiff

import (
	"bytes"
	"slices"
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/samples"
)

// TestFingerprintsEveryWay: an event's fingerprint is the same whichever
// way its session was built: scanned by the session (Assemble), by a
// batch told the session's scan (as a pipelined read does), or by a batch
// that was not, whose fingerprints the recorder computes by walking each
// event. Two sides read differently (one file piped, the other not) must
// still match event for event.
func TestFingerprintsEveryWay(t *testing.T) {
	for _, ig := range []Ignore{NewIgnore(DefaultIgnore()...), NewIgnore()} {
		fingerprintsEveryWay(t, ig)
	}
}

// fingerprintsEveryWay is TestFingerprintsEveryWay with ig ignored: with
// less than the default, the recorder keeps a second fingerprint for the
// alignment, which must agree too.
func fingerprintsEveryWay(t *testing.T, ig Ignore) {
	for _, sm := range samples.List() {
		data := sampleBytes(t, sm.Name)
		want := Build("A", data, capture.FormatAuto, ig).rec
		for _, told := range []bool{true, false} {
			got := buildBatched(data, ig, told)
			if got.Len() != want.Len() {
				t.Fatalf("%s (told %v): recorded %d events; want %d", sm.Name, told, got.Len(), want.Len())
			}
			for ord := range int32(want.Len()) {
				if got.fp(ord) != want.fp(ord) {
					t.Errorf("%s (told %v): event %d fingerprint %x; built by the session %x", sm.Name, told, ord, got.fp(ord), want.fp(ord))
				}
				gb, i := got.block(ord)
				wb, _ := want.block(ord)
				if (gb.afp == nil) != (wb.afp == nil) || (gb.afp != nil && gb.afp[i] != wb.afp[i]) {
					t.Errorf("%s (told %v): event %d: the alignment's fingerprints differ", sm.Name, told, ord)
				}
			}
		}
	}
}

// buildBatched models data through batches validated ahead of the
// session, told the session's scan or not.
func buildBatched(data []byte, ig Ignore, told bool) *Recorder {
	opts, rec := Attach(model.Options{Raw: bytes.NewReader(data)}, ig)
	s := model.NewSession(opts)
	b := &model.Batch{KeepRaw: true}
	if told {
		b.Scan = s.ScanOptions()
	}
	fr := capture.NewFramer(capture.FormatAuto)
	emit := func(f *capture.Frame) {
		b.Add(f, false)
		b.ValidateLast()
	}
	fr.Feed(slices.Clone(data), capture.NoTime, emit)
	fr.Finish(capture.NoTime, emit)
	if err := s.AddBatch(b, nil); err != nil {
		panic(err)
	}
	s.End(nil)
	return rec
}
