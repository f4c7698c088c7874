package diffview

import "github.com/streamtap/streamtap/model/streamdiff"

// alignRows lays the events of two aligned streams, n on A and m on B,
// out as the rows of the side by side page, as a split diff lays out two
// files: an event and its exact counterpart share a row; between two such
// rows, the events of each side that have none pair up row by row, and a
// filler (-1) stands opposite each event the shorter side lacks. Every
// event is on exactly one row of its side, in order. An exact link that
// points back before a row already laid out (an event moved) is laid out
// as one without a counterpart.
//
// It costs O(n+m) and 8 bytes a row, once per comparison.
func alignRows(l *streamdiff.Links, n, m int) (a, b []int32) {
	a = make([]int32, 0, max(n, m))
	b = make([]int32, 0, max(n, m))
	i, j := 0, 0 // the first event of each side not laid out yet
	// gap lays out A's events up to ai and B's up to bj, none of them
	// linked, row by row.
	gap := func(ai, bj int) {
		for i < ai || j < bj {
			x, y := int32(-1), int32(-1)
			if i < ai {
				x, i = int32(i), i+1
			}
			if j < bj {
				y, j = int32(j), j+1
			}
			a, b = append(a, x), append(b, y)
		}
	}
	for ai := 0; ai < n; ai++ {
		bj, exact := l.Counterpart(streamdiff.SideA, ai)
		if !exact || bj < j || bj >= m {
			continue
		}
		if back, ok := l.Counterpart(streamdiff.SideB, bj); !ok || back != ai {
			continue
		}
		gap(ai, bj)
		a, b = append(a, int32(ai)), append(b, int32(bj))
		i, j = ai+1, bj+1
	}
	gap(n, m)
	return a, b
}
