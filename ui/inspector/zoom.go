package inspector

import (
	"strings"

	"github.com/streamtap/streamtap/ui/cell"
)

// zoomed returns the layout r with the panes taking the whole body, the
// timeline and the side pane alike: zoomed, the inspector shows the
// focused pane alone (the z key), whichever it is, and tab or a number key
// shows another the same way.
func zoomed(r rects) rects {
	body := cell.Rect{X: 0, Y: 0, W: r.status.W, H: r.help.Y}
	r.stacked = false
	r.timeline, r.side = body, body
	return r
}

// zoomedPane is the pane a zoomed inspector shows: the focused one.
func (in *Page) zoomedPane() int { return in.focus }

// zoomedBody draws the focused pane alone, with its title: the
// timeline's, or the side panes' tabs.
func (in *Page) zoomedBody() []string {
	i := in.zoomedPane()
	title := in.title
	if i != 0 {
		title = in.sideTitle
	}
	view := in.panes[i].View(in.Selected(), true) // first: the title says what it found
	return append([]string{title()}, strings.Split(view, "\n")...)
}
