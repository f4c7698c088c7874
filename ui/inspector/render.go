package ui

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// body draws the timeline (panes[0]) with its title and, beside or under
// it, the side pane shown with its tabs.
func (in *inspector) body() []string {
	if in.zoom {
		return in.zoomedBody()
	}
	ord := in.selected()
	tl := append([]string{in.title()}, strings.Split(in.panes[0].view(ord, in.focus == 0), "\n")...)
	body := in.panes[in.side].view(ord, in.focus == in.side)
	side := append([]string{in.sideTitle()}, strings.Split(body, "\n")...)
	if in.r.stacked {
		return append(tl, side...)
	}
	out := make([]string, len(tl))
	sep := in.st.Sep.Render(glyphSep)
	for i := range tl {
		s := ""
		if i < len(side) {
			s = side[i]
		}
		out[i] = tl[i] + sep + s
	}
	return out
}

// title renders the timeline's title line.
func (in *inspector) title() string {
	style := in.st.Title.Blurred
	if in.focus == 0 {
		style = in.st.Title.Focused
	}
	t := style.Render("1 " + in.panes[0].title())
	if extra := in.panes[0].status(); extra != "" {
		t += in.st.Muted.Render("  " + extra)
	}
	return fit(t, in.r.timeline.w)
}

// sideTitle renders the tabs of the side panes, numbered by their keys,
// and what the one shown is working on. When they do not all fit with
// it, the tabs not shown keep only their numbers, so that the status
// stays in view.
func (in *inspector) sideTitle() string {
	status := ""
	if st := in.panes[in.side].status(); st != "" {
		status = in.st.Muted.Render("  " + st)
	}
	title := in.tabs(false)
	if ansi.StringWidth(title+status) > in.r.side.w {
		title = in.tabs(true)
	}
	return fit(title+status, in.r.side.w)
}

// tabs renders the side panes' tabs; short leaves the names out of the
// ones not shown.
func (in *inspector) tabs(short bool) string {
	var parts []string
	for i := 1; i < len(in.panes); i++ {
		label := strconv.Itoa(i+1) + " " + in.panes[i].title()
		switch {
		case i == in.side && in.focus == i:
			parts = append(parts, in.st.Title.Focused.Render(label))
		case i == in.side:
			parts = append(parts, in.st.Title.TabActive.Render(label))
		case short:
			parts = append(parts, in.st.Title.Tab.Render(strconv.Itoa(i+1)))
		default:
			parts = append(parts, in.st.Title.Tab.Render(label))
		}
	}
	sep := "  "
	if short {
		sep = " "
	}
	return strings.Join(parts, sep)
}

// status draws the status bar.
func (in *inspector) status() string { return in.bar.view(in.statusInfo()) }

func (in *inspector) statusInfo() statusInfo {
	e, w, i := in.find.counts()
	info := statusInfo{
		source: in.o.Source, live: in.live, follow: in.tl.follow, filter: in.filt.text,
		errs: e, warns: w, infos: i, checks: in.o.Checks != nil, notice: in.note.text, noticeErr: in.note.isErr,
	}
	if in.o.TotalBytes > 0 {
		info.totalBytes = in.o.TotalBytes
	}
	if in.source != "" {
		info.source = in.source
	}
	if in.rep.playing {
		info.replay = "▶ replay " + speedText(in.rep.speed)
	}
	return info
}
