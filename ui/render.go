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

// renderPanes draws the timeline with its title and, beside or under it,
// the side pane shown with its tabs.
func (m *Model) renderPanes() []string {
	ord := m.selected()
	tl := append([]string{m.title()}, strings.Split(m.tl.view(ord, m.focus == 0), "\n")...)
	body := m.panes[m.side].view(ord, m.focus == m.side)
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

// title renders the timeline's title line.
func (m *Model) title() string {
	style := m.st.Title.Blurred
	if m.focus == 0 {
		style = m.st.Title.Focused
	}
	t := style.Render("1 " + m.tl.title())
	if extra := m.tl.status(); extra != "" {
		t += m.st.Muted.Render("  " + extra)
	}
	return fit(t, m.tl.w)
}

// sideTitle renders the tabs of the side panes, numbered by their keys,
// and what the one shown is working on.
func (m *Model) sideTitle() string {
	var parts []string
	for i := 1; i < len(m.panes); i++ {
		label := fmt.Sprintf("%d %s", i+1, m.panes[i].title())
		switch {
		case i == m.side && m.focus == i:
			parts = append(parts, m.st.Title.Focused.Render(label))
		case i == m.side:
			parts = append(parts, m.st.Title.TabActive.Render(label))
		default:
			parts = append(parts, m.st.Title.Tab.Render(label))
		}
	}
	title := strings.Join(parts, "  ")
	if st := m.panes[m.side].status(); st != "" {
		title += m.st.Muted.Render("  " + st)
	}
	return fit(title, m.r.side.w)
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
