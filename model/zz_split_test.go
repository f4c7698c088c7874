package model

import (
	"testing"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model/jsonscan"
)

func benchStage(b *testing.B, dialect string, validate bool) {
	data, _ := genStream(dialect, benchSize)
	b.SetBytes(int64(len(data)))
	var idx jsonscan.Index
	n := 0
	emit := func(f *capture.Frame) {
		n++
		if validate && f.HasData {
			idx.ScanObject(f.Data, func(k, v []byte) {})
		}
	}
	for b.Loop() {
		fr := capture.NewFramer(capture.FormatAuto)
		for p := data; len(p) > 0; {
			k := min(benchChunk, len(p))
			fr.Feed(p[:k], capture.NoTime, emit)
			p = p[k:]
		}
		fr.Finish(capture.NoTime, emit)
	}
}

func BenchmarkZZFrame(b *testing.B) {
	for _, d := range []string{"responses", "chat", "anthropic"} {
		b.Run(d, func(b *testing.B) { benchStage(b, d, false) })
	}
}
func BenchmarkZZFrameValidate(b *testing.B) {
	for _, d := range []string{"responses", "chat", "anthropic"} {
		b.Run(d, func(b *testing.B) { benchStage(b, d, true) })
	}
}
