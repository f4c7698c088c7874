package diffview

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/streamtap/streamtap/model/streamdiff"
	"github.com/streamtap/streamtap/ui/theme"
)

// rowOrd reads the ordinal a side's timeline row shows: the cursor and
// gutter cells, then the # column. ok is false for any other line; filler
// says the row is a filler.
var rowOrdRE = regexp.MustCompile(`^..\s*(\d+)\s`)

func rowOrd(half string) (ord int, filler, ok bool) {
	if strings.Contains(half, theme.GlyphFiller+theme.GlyphFiller) {
		return -1, true, true
	}
	m := rowOrdRE.FindStringSubmatch(half)
	if m == nil {
		return -1, false, false
	}
	n, _ := strconv.Atoi(m[1])
	return n, false, true
}

// sideBySideRows reads the rows both sides show on each screen line of
// the side by side page: [A, B], -1 for a filler; lines that are not rows
// of both are left out.
func sideBySideRows(t *testing.T, view string) [][2]int {
	t.Helper()
	var out [][2]int
	for _, l := range strings.Split(ansi.Strip(view), "\n") {
		a, b, ok := strings.Cut(l, theme.GlyphSep)
		if !ok {
			continue
		}
		oa, fa, okA := rowOrd(a)
		ob, fb, okB := rowOrd(b)
		if !okA || !okB {
			continue
		}
		if fa && fb {
			t.Errorf("a row is a filler on both sides: %q", l)
		}
		out = append(out, [2]int{oa, ob})
	}
	return out
}

// TestSideBySideLinesUp: side by side, an event and its exact
// counterpart share a screen line, whatever was scrolled or selected, and
// a filler row stands opposite each event the other side lacks: the
// gateway's stream drops a .done and re-cuts the deltas, so after the
// first event only one side has, the rows would otherwise drift apart by
// one line for every such event. Both ways round, at heights that make
// the page scroll.
func TestSideBySideLinesUp(t *testing.T) {
	t.Parallel()
	for _, pair := range [][2]string{{diffOfficial, diffGateway}, {diffGateway, diffOfficial}} {
		for _, h := range []int{16, 24, 45} {
			t.Run(fmt.Sprintf("%s-vs-%s_%d", pair[0], pair[1], h), func(t *testing.T) {
				m := newDiffModel(t, pair[0], pair[1], 160, h)
				links := m.dv.view.links
				fillers := 0
				for step, k := range []string{"g", "j", "j", "j", "n", "n", "G", "tab", "k", "k", "g", "tab", "G"} {
					pressDrain(t, m, k)
					rows := sideBySideRows(t, viewOf(m))
					if len(rows) == 0 {
						t.Fatalf("after %d keys no row shows both sides:\n%s", step+1, plainView(m))
					}
					for _, r := range rows {
						if r[0] < 0 || r[1] < 0 {
							fillers++
							continue
						}
						if b, exact := links.Counterpart(streamdiff.SideA, r[0]); exact && b != r[1] {
							t.Fatalf("after %d keys A#%d shares a line with B#%d, not with its counterpart B#%d:\n%s", step+1, r[0], r[1], b, plainView(m))
						}
						if a, exact := links.Counterpart(streamdiff.SideB, r[1]); exact && a != r[0] {
							t.Fatalf("after %d keys B#%d shares a line with A#%d, not with its counterpart A#%d:\n%s", step+1, r[1], r[0], a, plainView(m))
						}
					}
				}
				if fillers == 0 {
					t.Errorf("no filler row opposite the events only one side has:\n%s", plainView(m))
				}
			})
		}
	}
}

// TestAlignRows: every event is on one row of its side, in order; both
// sides have as many rows; exact counterparts share a row.
func TestAlignRows(t *testing.T) {
	t.Parallel()
	m := newDiffModel(t, diffOfficial, diffGateway, 160, 45)
	a, b := m.dv.view.rows[0], m.dv.view.rows[1]
	if len(a) != len(b) {
		t.Fatalf("%d rows on A, %d on B", len(a), len(b))
	}
	for w, rows := range [][]int32{a, b} {
		next := int32(0)
		for _, o := range rows {
			if o < 0 {
				continue
			}
			if o != next {
				t.Fatalf("side %d: row shows #%d where #%d is due: %v", w, o, next, rows)
			}
			next++
		}
		if n := m.dv.side[w].s.Len(); int(next) != n {
			t.Errorf("side %d: %d events laid out of %d", w, next, n)
		}
	}
	// The official stream has 14 events, the gateway's 9: 4 more deltas
	// and the .done, opposite fillers.
	if len(a) != 14 {
		t.Errorf("%d rows; want 14 (A's events, B's opposite them or fillers): %v / %v", len(a), a, b)
	}
}

// TestSideBySideGolden draws the side by side page at 160×45 on the
// event only A has (its arguments' .done, a filler row opposite it) and
// stacked at 80×24, where each side lists its own events.
func TestSideBySideGolden(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 45}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			m := newDiffModel(t, diffOfficial, diffGateway, size[0], size[1])
			pressDrain(t, m, "n")
			out := viewOf(m)
			checkFits(t, out, size[0], size[1])
			golden.RequireEqual(t, ansi.Strip(out))
		})
	}
}
