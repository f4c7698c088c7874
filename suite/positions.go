package suite

import (
	"bytes"
	"cmp"
	"errors"
	"io"
	"slices"

	"github.com/streamtap/streamtap/capture"
	"github.com/streamtap/streamtap/model"
)

// Place is where an event is in its input: its first byte's offset, its
// length in bytes, and the line it starts on (from 1, counting "\n").
type Place struct {
	Offset, Len int64
	Line        int
}

// Positions records where each event of a session starts, so that a
// report can point at the bytes and lines of the events a finding cites.
// Attach it beside the checks (model.Options.WithObserver). It keeps 8
// bytes an event, only for the formats that point into files (SARIF,
// GitHub): a headless session keeps no events of its own.
type Positions struct {
	offsets []int64
}

// Observe implements model.Observer.
func (p *Positions) Observe(_ *model.Session, ord int, ev *model.Event, _ *capture.Frame) {
	for len(p.offsets) < ord {
		p.offsets = append(p.offsets, -1) // never: the session observes every event
	}
	if ord == len(p.offsets) {
		p.offsets = append(p.offsets, ev.Offset)
	}
}

// Locate returns where each of the events ords is in the input r, whose
// size is size (the session's bytes): offset, length, and line, counted
// by reading r once up to the last of them. An ordinal the session never
// saw is left out.
func (p *Positions) Locate(r io.ReaderAt, size int64, ords []int) (map[int]Place, error) {
	type want struct {
		ord int
		off int64
	}
	var wants []want
	for _, o := range ords {
		if o >= 0 && o < len(p.offsets) && p.offsets[o] >= 0 {
			wants = append(wants, want{o, p.offsets[o]})
		}
	}
	if len(wants) == 0 {
		return nil, nil
	}
	slices.SortFunc(wants, func(a, b want) int { return cmp.Compare(a.off, b.off) })
	places := make(map[int]Place, len(wants))
	buf := make([]byte, 64<<10)
	var pos int64 // bytes counted so far
	line := 1
	for _, w := range wants {
		for pos < w.off {
			n := int(min(int64(len(buf)), w.off-pos))
			got, err := r.ReadAt(buf[:n], pos)
			line += bytes.Count(buf[:got], []byte{'\n'})
			pos += int64(got)
			if err != nil && (!errors.Is(err, io.EOF) || got < n) {
				return places, err
			}
		}
		end := size
		if w.ord+1 < len(p.offsets) {
			end = p.offsets[w.ord+1]
		}
		places[w.ord] = Place{Offset: w.off, Len: max(end-w.off, 0), Line: line}
	}
	return places, nil
}
