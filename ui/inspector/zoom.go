package ui

import "strings"

// zoomed returns the layout r with the panes taking the whole body, the
// timeline and the side pane alike: zoomed, the inspector shows the
// focused pane alone (the z key), whichever it is, and tab or a number key
// shows another the same way.
func zoomed(r rects) rects {
	body := rect{0, 0, r.status.w, r.help.y}
	r.stacked = false
	r.timeline, r.side = body, body
	return r
}

// zoomedPane is the pane a zoomed inspector shows: the focused one.
func (in *inspector) zoomedPane() int { return in.focus }

// zoomedBody draws the focused pane alone, with its title: the
// timeline's, or the side panes' tabs.
func (in *inspector) zoomedBody() []string {
	i := in.zoomedPane()
	title := in.title
	if i != 0 {
		title = in.sideTitle
	}
	view := in.panes[i].view(in.selected(), true) // first: the title says what it found
	return append([]string{title()}, strings.Split(view, "\n")...)
}
