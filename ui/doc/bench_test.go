package doc

import (
	"fmt"
	"testing"
)

// BenchmarkIndexDoc measures laying out a whole document off the event
// loop (what G waits for), as throughput.
func BenchmarkIndexDoc(b *testing.B) {
	for _, sz := range []int{1 << 20, size20M} {
		src := []byte(`{"content":` + jsonString(payloadText(sz)) + `}`)
		b.Run(fmt.Sprintf("bytes=%d", sz), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				sp := &Spec{Src: src, Mode: JSON, W: 117, MarkStart: -1, MarkEnd: -1}
				d := &Layout{Spec: sp, front: sp.start()}
				d.marks = []layoutState{d.front}
				for !d.Done() {
					d.Apply(d.IndexCmd()().(IndexedMsg))
				}
			}
		})
	}
}

// BenchmarkIndexText measures laying out a whole message text (prose,
// wrapped between words) off the event loop, as throughput.
func BenchmarkIndexText(b *testing.B) {
	src := []byte(payloadText(1 << 20))
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		sp := &Spec{Src: src, Mode: Text, W: 117, Prefix: "  ", MarkStart: -1, MarkEnd: -1}
		d := &Layout{Spec: sp, front: sp.start()}
		d.marks = []layoutState{d.front}
		for !d.Done() {
			d.Apply(d.IndexCmd()().(IndexedMsg))
		}
	}
}
