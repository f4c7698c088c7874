package lanes

import "fmt"

// Scroll says where the pane's view stands: the first lane column shown,
// how many lane columns fit, and the first row shown.
func (p *Pane) Scroll() (col0, visible, top int) { return p.col0, p.geo.vis, p.top }

// IndexState is how far the pane's index of the session has come.
type IndexState struct {
	Scanned int // events indexed
	Rows    int // rows they make
	Behind  int // events the session has that the index has not seen
	// Layout prints the rows, the cells past each row's first and the
	// order of the lanes: equal for two indexes that would draw alike.
	Layout string
}

// Index says how far the pane's index has come, for the tests that hold
// an index built as events arrive to one built at once.
func (p *Pane) Index() IndexState {
	x := &p.idx
	return IndexState{
		Scanned: x.scanned, Rows: len(x.rows), Behind: x.behind(),
		Layout: fmt.Sprint(x.rows, x.extra, x.columns()),
	}
}
