package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/capture"
)

// View draws the screen. It costs O(visible rows).
func (m *Model) View() tea.View {
	m.hold(m.openLive())
	defer m.hold(nil)
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "streamtap"
	return v
}

// render builds the screen content.
func (m *Model) render() string {
	if m.w == 0 {
		return ""
	}
	if m.r.tooSmall {
		return fit(fmt.Sprintf("streamtap needs at least %d×%d (now %d×%d)", minWidth, minHeight, m.w, m.h), m.w)
	}
	var lines []string
	switch {
	case m.help:
		body := m.r.side.y + m.r.side.h
		lines = strings.Split(m.fullHelp(m.w, body), "\n")
	case m.screen == screenSessions:
		lines = m.renderSessions()
	default:
		lines = m.renderPanes()
	}
	status := ""
	if m.screen == screenSessions {
		status = m.sessionsStatus()
	} else {
		status = m.bar.view(m.statusInfo())
	}
	lines = append(lines, m.helpBar(m.w), status)
	return strings.Join(lines, "\n")
}

func (m *Model) renderPanes() []string {
	ord := m.selected()
	tlTitle := m.title("timeline", m.focus == focusTimeline, m.tl.w, m.timelineTitleExtra())
	tl := append([]string{tlTitle}, strings.Split(m.tl.view(m.focus == focusTimeline), "\n")...)
	var body string
	switch m.side {
	case focusDetail:
		body = m.det.view(ord)
	case focusDiff:
		body = m.diff.view(ord)
	case focusFindings:
		body = m.find.view(m.focus == focusFindings, ord)
	case focusRequest:
		body = m.req.view()
	default:
		body = m.calls.view(ord)
	}
	side := append([]string{m.sideTitle()}, strings.Split(body, "\n")...)
	if m.r.stacked {
		return append(tl, side...)
	}
	out := make([]string, len(tl))
	sep := m.st.Sep.Render(glyphSep)
	for i := range tl {
		s := ""
		if i < len(side) {
			s = side[i]
		}
		out[i] = tl[i] + sep + s
	}
	return out
}

func (m *Model) timelineTitleExtra() string {
	n := m.tl.len()
	if n == 0 {
		return ""
	}
	extra := fmt.Sprintf("%d/%d", m.tl.cursor+1, n)
	if m.tl.rows != nil {
		extra += fmt.Sprintf(" of %d", m.s.Len())
	}
	return extra
}

// title renders a pane title line.
func (m *Model) title(name string, focused bool, w int, extra string) string {
	style := m.st.Title.Blurred
	if focused {
		style = m.st.Title.Focused
	}
	t := style.Render("1 " + name)
	if extra != "" {
		t += m.st.Muted.Render("  " + extra)
	}
	return fit(t, w)
}

// sideTitle renders the tabs of the side pane.
func (m *Model) sideTitle() string {
	var parts []string
	for f := focusDetail; f < m.panes(); f++ {
		label := fmt.Sprintf("%d %s", f+1, f)
		if f == focusDetail && m.det.raw {
			label += " (raw)"
		}
		if f == focusFindings && m.o.Checks != nil {
			label += fmt.Sprintf(" (%d)", len(m.find.list))
		}
		switch {
		case f == m.side && m.focus == f:
			parts = append(parts, m.st.Title.Focused.Render(label))
		case f == m.side:
			parts = append(parts, m.st.Title.TabActive.Render(label))
		default:
			parts = append(parts, m.st.Title.Tab.Render(label))
		}
	}
	title := strings.Join(parts, "  ")
	if st := m.sideStatus(); st != "" {
		title += m.st.Muted.Render("  " + st)
	}
	return fit(title, m.r.side.w)
}

// sideStatus is what the side pane is working on (reading a big event,
// indexing its layout), or where the detail pane stands in a body longer
// than the screen.
func (m *Model) sideStatus() string {
	switch m.side {
	case focusDetail:
		if st := m.det.status(); st != "" {
			return st
		}
		if n := m.det.total(); n > m.det.bodyH() && m.det.key.ord >= 0 {
			return fmt.Sprintf("line %d/%d", m.det.scroll+1, n)
		}
	case focusCalls:
		return m.calls.status()
	}
	return ""
}

func (m *Model) statusInfo() statusInfo {
	e, w, i := m.find.counts()
	in := statusInfo{
		source: m.o.Source, live: m.live, follow: m.tl.follow, filter: m.filt.text,
		errs: e, warns: w, infos: i, checks: m.o.Checks != nil, notice: m.notice, noticeErr: m.noticeE,
	}
	if m.o.TotalBytes > 0 {
		in.totalBytes = m.o.TotalBytes
	}
	if c := m.cur; c != nil {
		path := c.info.Path
		if !m.o.KeepSecrets {
			path = capture.RedactURL(path)
		}
		in.source = fmt.Sprintf("#%d %s %s", c.info.ID, c.info.Method, path)
	}
	if m.rep.playing {
		in.replay = "▶ replay " + speedText(m.rep.speed)
	}
	return in
}
