package inspector

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/streamtap/streamtap/ui/cell"
	"github.com/streamtap/streamtap/ui/theme"
)

// Body draws the timeline (panes[0]) with its title and, beside or under
// it, the side pane shown with its tabs.
func (in *Page) Body() []string {
	if in.zoom {
		return in.zoomedBody()
	}
	ord := in.Selected()
	tl := append([]string{in.title()}, strings.Split(in.panes[0].View(ord, in.focus == 0), "\n")...)
	body := in.panes[in.side].View(ord, in.focus == in.side)
	side := append([]string{in.sideTitle()}, strings.Split(body, "\n")...)
	if in.r.stacked {
		return append(tl, side...)
	}
	out := make([]string, len(tl))
	sep := in.Styles.Sep.Render(theme.GlyphSep)
	var ex []string
	if in.r.explain.W > 0 {
		ex = in.explainColumn(ord)
	}
	for i := range tl {
		s := ""
		if i < len(side) {
			s = side[i]
		}
		out[i] = tl[i] + sep + s
		if i < len(ex) {
			out[i] += sep + ex[i]
		}
	}
	return out
}

// title renders the timeline's title line.
func (in *Page) title() string {
	style := in.Styles.Title.Blurred
	if in.focus == 0 {
		style = in.Styles.Title.Focused
	}
	t := style.Render("1 " + in.panes[0].Title())
	if extra := in.panes[0].Status(); extra != "" {
		t += in.Styles.Muted.Render("  " + extra)
	}
	return cell.Fit(t, in.r.timeline.W)
}

// sideTitle renders the tabs of the side panes, numbered by their keys,
// and what the one shown is working on. When they do not all fit with
// it, the tabs not shown are cut to their names' first letters, then the
// status goes, then those tabs keep only their numbers: the panes a key
// reaches stay named as long as they can.
func (in *Page) sideTitle() string {
	status := ""
	if st := in.panes[in.side].Status(); st != "" {
		status = in.Styles.Muted.Render("  " + st)
	}
	w := in.r.side.W
	for _, try := range []struct {
		nameW  int
		status string
	}{{-1, status}, {tabNameShort, status}, {-1, ""}, {tabNameShort, ""}, {0, status}} {
		if title := in.tabs(try.nameW) + try.status; ansi.StringWidth(title) <= w {
			return cell.Fit(title, w)
		}
	}
	return cell.Fit(in.tabs(0)+status, w)
}

// tabNameShort is how many letters of its name a tab not shown keeps
// when the names do not fit whole ("3 call", "5 find").
const tabNameShort = 4

// tabs renders the side panes' tabs; the ones not shown keep nameW
// letters of their names: all of them when nameW < 0, none (the number
// alone) when nameW is 0.
func (in *Page) tabs(nameW int) string {
	var parts []string
	for i := 1; i < len(in.panes); i++ {
		label := strconv.Itoa(i+1) + " " + in.panes[i].Title()
		switch {
		case i == in.side && in.focus == i:
			parts = append(parts, in.Styles.Title.Focused.Render(label))
		case i == in.side:
			parts = append(parts, in.Styles.Title.TabActive.Render(label))
		case nameW == 0:
			parts = append(parts, in.Styles.Title.Tab.Render(strconv.Itoa(i+1)))
		case nameW > 0:
			name, _, _ := strings.Cut(in.panes[i].Title(), " ")
			parts = append(parts, in.Styles.Title.Tab.Render(strconv.Itoa(i+1)+" "+ansi.Truncate(name, nameW, "")))
		default:
			parts = append(parts, in.Styles.Title.Tab.Render(label))
		}
	}
	sep := "  "
	if nameW >= 0 {
		sep = " "
	}
	return strings.Join(parts, sep)
}

// Status draws the status bar.
func (in *Page) Status() string { return in.bar.view(in.statusInfo()) }

func (in *Page) statusInfo() statusInfo {
	e, w, i := in.find.counts()
	info := statusInfo{
		source: in.Opts.Source, live: in.Live, follow: in.tl.Follow, filter: in.filt.text,
		errs: e, warns: w, infos: i, checks: in.Opts.Checks != nil, notice: in.Note.Text, noticeErr: in.Note.IsErr,
	}
	if in.Opts.TotalBytes > 0 {
		info.totalBytes = in.Opts.TotalBytes
	}
	if in.Source != "" {
		info.source = in.Source
	}
	switch {
	case in.rep.playing:
		info.replay = "▶ replay " + speedText(in.rep.speed)
	case in.rep.paused(in.tl.cursor, in.tl.len()):
		info.replay, info.paused = "⏸ paused", true
	}
	info.at = in.midStream()
	if in.les.on {
		info.lesson = in.lessonStatus()
	}
	return info
}
