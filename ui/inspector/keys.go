package inspector

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/streamtap/streamtap/ui/keys"
	"github.com/streamtap/streamtap/ui/pane"
	"github.com/streamtap/streamtap/ui/plain"
	"github.com/streamtap/streamtap/ui/theme"
)

// Typing says the prompt is open: it takes every key.
func (in *Page) Typing() bool { return in.prompt.active() }

// handleKey routes a key: the prompt while it is open, then the
// inspector's own keys (focus, search, stream, inspect), then the focused
// pane, which gets raw, the key as the root got it.
func (in *Page) handleKey(msg tea.KeyPressMsg, raw tea.Msg) tea.Cmd {
	k := &in.Keys
	if in.prompt.active() {
		return in.handlePromptKey(msg)
	}
	switch {
	case key.Matches(msg, k.Nav.Next):
		in.setFocus((in.focus + 1) % len(in.panes))
	case key.Matches(msg, k.Nav.Prev):
		in.setFocus((in.focus + len(in.panes) - 1) % len(in.panes))
	case key.Matches(msg, k.Nav.Pane):
		in.setFocus(int(msg.String()[0] - '1'))
	case key.Matches(msg, k.Search.Search):
		return in.openPrompt(promptSearch)
	case key.Matches(msg, k.Search.Filter):
		return in.openPrompt(promptFilter)
	case key.Matches(msg, k.Nav.Goto):
		return in.openPrompt(promptGoto)
	case key.Matches(msg, k.Search.NextMatch):
		in.jumpMatch(1)
	case key.Matches(msg, k.Search.PrevMatch):
		in.jumpMatch(-1)
	case key.Matches(msg, k.Inspect.RuleBack):
		in.find.rule.close()
	case key.Matches(msg, k.Search.Clear):
		in.query, in.tl.matches = "", nil
		in.gen++ // drop results still on their way
		in.tl.Invalidate()
		return in.applyFilter("")
	case key.Matches(msg, k.Sessions.Back):
		if in.Back != nil {
			in.Back()
		}
	case key.Matches(msg, k.Stream.Follow):
		in.tl.Follow = !in.tl.Follow
		if in.tl.Follow {
			in.rep.stop()
			in.tl.moveTo(in.tl.len() - 1)
			in.tl.Follow = true
		}
	case key.Matches(msg, k.Stream.Lesson):
		in.setLesson(!in.les.on)
	case key.Matches(msg, k.Stream.Reveal):
		in.tl.Reveal = !in.tl.Reveal
		if in.tl.Reveal {
			return in.Flash("rows shown as they come: up to the selected event", false)
		}
		return in.Flash("every row shown", false)
	case key.Matches(msg, k.Stream.Play) && in.les.on:
		in.tl.moveTo(in.tl.cursor + 1) // a lesson steps one event a press
	case key.Matches(msg, k.Stream.Play):
		return in.togglePlay()
	case key.Matches(msg, k.Stream.StepBack):
		in.rep.playing = false
		in.tl.moveTo(in.tl.cursor - 1)
	case key.Matches(msg, k.Stream.StepFwd):
		in.rep.playing = false
		in.tl.moveTo(in.tl.cursor + 1)
	case key.Matches(msg, k.Stream.Faster):
		in.rep.speed = min(in.rep.speed*2, 64)
		return in.speedNotice()
	case key.Matches(msg, k.Stream.Slower):
		in.rep.speed = max(in.rep.speed/2, 1.0/16)
		return in.speedNotice()
	case key.Matches(msg, k.Stream.Save):
		return in.saveCmd()
	case key.Matches(msg, k.Inspect.Raw):
		in.det.raw = !in.det.raw
		if in.focus == 0 {
			in.side = in.indexOf(in.det)
		}
	case key.Matches(msg, k.Inspect.Explain) && in.les.on && in.les.compact:
		in.toggleLessonExplain()
	case key.Matches(msg, k.Inspect.Explain):
		in.toggleExplain()
	case key.Matches(msg, k.View.Zoom):
		in.zoom = !in.zoom
		in.SetSize(in.w, in.h)
	case key.Matches(msg, k.Inspect.Copy):
		return in.copyCmd()
	case key.Matches(msg, k.Inspect.NextFinding):
		return in.jumpFinding(1)
	case key.Matches(msg, k.Inspect.PrevFinding):
		return in.jumpFinding(-1)
	case key.Matches(msg, k.Inspect.OpenFinding):
		return in.openFinding()
	case key.Matches(msg, k.Inspect.NextSlow):
		if i := in.tl.nextSlow(1); i >= 0 {
			in.tl.moveTo(i)
		}
	case key.Matches(msg, k.Inspect.PrevSlow):
		if i := in.tl.nextSlow(-1); i >= 0 {
			in.tl.moveTo(i)
		}
	default:
		return in.panes[in.focus].Update(raw)
	}
	return nil
}

// setFocus gives the keys to pane f, and shows it beside the timeline
// when it is a side pane.
func (in *Page) setFocus(f int) {
	if f < 0 || f >= len(in.panes) {
		return
	}
	in.focus = f
	if f != 0 {
		in.side = f
	}
}

// jumpFinding selects the next (dir 1) or previous event a finding cites,
// and says which finding: its rule and the first line of its message.
func (in *Page) jumpFinding(dir int) tea.Cmd {
	e, i := in.find.next(in.Selected(), dir)
	if e < 0 {
		// Past the last finding (the stream opens on its last event):
		// go round to the first, as n does for matches.
		from := -1
		if dir < 0 {
			from = in.s.Len()
		}
		if e, i = in.find.next(from, dir); e < 0 {
			return nil
		}
	}
	in.find.cursor = i
	in.rep.playing = false
	in.tl.SelectOrd(e)
	return in.flashFinding(i)
}

// flashFinding shows finding i in the status line: its rule id and the
// first line of its message.
func (in *Page) flashFinding(i int) tea.Cmd {
	x := in.find.list[i]
	msg, _, _ := strings.Cut(plain.Truncate(x.Message, plain.LabelMax), "\n")
	return in.Flash(x.Rule+": "+msg, theme.SeverityOf(x.Severity) == theme.SevError)
}

// markedFinding is the first finding (the worst: the list is ordered by
// severity) citing the selected event, or -1.
func (in *Page) markedFinding() int {
	sel := in.Selected()
	if sel < 0 || in.tl.marks[int32(sel)] == 0 {
		return -1
	}
	for i, x := range in.find.list {
		if slices.Contains(x.Events, sel) {
			return i
		}
	}
	return -1
}

// openFinding opens the finding that marks the selected row in the
// findings pane, selected there, and says what it is.
func (in *Page) openFinding() tea.Cmd {
	i := in.markedFinding()
	if i < 0 {
		return nil
	}
	in.find.cursor = i
	in.find.move(0)
	in.find.landedOn(in.Selected())
	in.setFocus(in.indexOf(in.find))
	return in.flashFinding(i)
}

// copyCmd copies the selected call's arguments as of the selected event (a
// .done's once it has come, as the calls pane shows them), or
// the event's data, to the clipboard with OSC 52.
func (in *Page) copyCmd() tea.Cmd {
	ord := in.Selected()
	if ord < 0 {
		return nil
	}
	s := in.s
	text := ""
	if ev := s.Events.At(ord); ev.Item >= 0 && int(ev.Item) < len(s.Items) && s.Items[ev.Item].IsCall() && in.panes[in.side] != pane.Pane(in.det) {
		text = s.Items[ev.Item].FinalArgsAsOf(ord) // what the calls pane shows
	}
	if text == "" {
		raw, err := s.Raw(s.Events.At(ord))
		if err != nil {
			return in.Flash("cannot read the event back", true)
		}
		if data, ok := plain.EventData(raw); ok && !in.det.raw {
			text = string(data)
		} else {
			text = string(raw)
		}
	}
	return tea.Batch(tea.SetClipboard(text), in.Flash(fmt.Sprintf("copied %d bytes", len(text)), false))
}

// savedMsg reports a save.
type savedMsg struct {
	path string
	err  error
}

func (in *Page) saveCmd() tea.Cmd {
	if in.Opts.Save == nil {
		return nil
	}
	save, n := in.Opts.Save, in.s.Bytes()
	return func() tea.Msg {
		path, err := save(n)
		return savedMsg{path, err}
	}
}

func (in *Page) handleSaved(msg savedMsg) tea.Cmd {
	if msg.err != nil {
		return in.Flash("save failed: "+msg.err.Error(), true)
	}
	return in.Flash("saved to "+msg.path, false)
}

// UpdateKeys enables the keys the inspector's state allows.
func (in *Page) UpdateKeys() {
	k := &in.Keys
	has := in.s.Len() > 0
	// Always there while the inspector is shown (the sessions list turns
	// them off while it is).
	for _, b := range []*key.Binding{
		&k.Search.Search, &k.Search.Filter, &k.Stream.StepBack, &k.Stream.StepFwd,
		&k.Inspect.Raw, &k.Inspect.Explain, &k.Nav.Next, &k.Nav.Prev, &k.Nav.Pane,
		&k.Nav.Goto, &k.View.Zoom,
	} {
		b.SetEnabled(true)
	}
	k.Search.NextMatch.SetEnabled(len(in.tl.matches) > 0)
	k.Search.PrevMatch.SetEnabled(len(in.tl.matches) > 0)
	k.Search.Clear.SetEnabled(in.query != "" || !in.filt.empty())
	k.Stream.Save.SetEnabled(in.Opts.Save != nil && has)
	k.Inspect.NextSlow.SetEnabled(in.tl.hasSlow()) // untimed, s and S have nowhere to go
	k.Inspect.PrevSlow.SetEnabled(in.tl.hasSlow())
	k.Stream.Follow.SetEnabled(in.Live)
	k.Inspect.Copy.SetEnabled(has)
	k.Inspect.NextFinding.SetEnabled(len(in.find.list) > 0)
	k.Inspect.PrevFinding.SetEnabled(len(in.find.list) > 0)
	k.Inspect.OpenFinding.SetEnabled(in.focus == 0 && in.tl.Gutter == nil && in.markedFinding() >= 0)
	k.Stream.Play.SetEnabled(has)
	// The speed is set before a replay as well as during one; a lesson
	// steps by hand and has none.
	k.Stream.Faster.SetEnabled(has && !in.les.on)
	k.Stream.Slower.SetEnabled(has && !in.les.on)
	k.Stream.Lesson.SetEnabled(has || in.les.on)
	// A live stream shows its rows as they come already.
	k.Stream.Reveal.SetEnabled((has && !in.Live) || in.tl.Reveal)
	switch {
	case in.les.on && in.les.compact && in.les.expand:
		k.Inspect.Explain.SetHelp("x", "calls")
	case in.les.on && in.les.compact:
		k.Inspect.Explain.SetHelp("x", "explain")
	default:
		k.Inspect.Explain.SetHelp("x", "explain event")
	}
	if in.les.on {
		k.Stream.Play.SetHelp("space", "next event")
		k.Stream.Lesson.SetHelp("L", "leave lesson")
	} else {
		k.Stream.Play.SetHelp("space", "replay/pause")
		k.Stream.Lesson.SetHelp("L", "lesson mode")
	}
	k.Sessions.Back.SetEnabled(in.Back != nil)
	in.updatePaneKeys()
	for i, p := range in.panes {
		p.UpdateKeys(i == in.focus)
	}
}

// paneKeys holds the number keys of up to nine panes.
var paneKeys = [...]string{"1", "2", "3", "4", "5", "6", "7", "8", "9"}

// updatePaneKeys binds a number key to each pane (the first nine).
func (in *Page) updatePaneKeys() {
	k := &in.Keys.Nav.Pane
	n := min(len(in.panes), len(paneKeys))
	if len(k.Keys()) == n {
		return
	}
	k.SetKeys(paneKeys[:n]...)
	k.SetHelp(fmt.Sprintf("1-%d", n), k.Help().Desc)
}

// ShortHelp is the focused pane's keys, then the inspector's.
func (in *Page) ShortHelp() []key.Binding {
	k := &in.Keys
	if in.prompt.active() {
		return []key.Binding{k.Prompt.Accept, k.Prompt.Cancel}
	}
	out := slices.Clip(in.panes[in.focus].ShortHelp()) // appended to, not changed
	if in.les.on && in.focus == 0 {
		// A lesson's own keys first, where a projector's 80 columns
		// still show them: the next event, the explanation, leaving.
		lead := []key.Binding{k.Stream.Play}
		if in.les.compact {
			lead = append(lead, k.Inspect.Explain)
		}
		lead = append(lead, k.Stream.Lesson, k.Stream.Reveal)
		out = append(lead, slices.DeleteFunc(out, func(b key.Binding) bool {
			return slices.Equal(b.Keys(), k.Stream.Play.Keys()) || slices.Equal(b.Keys(), k.Stream.Follow.Keys())
		})...)
	} else if i := slices.IndexFunc(out, func(b key.Binding) bool { return slices.Equal(b.Keys(), k.Stream.Play.Keys()) }); i >= 0 {
		// The replay's speed next to it, so that it is set before space
		// (one entry for both keys); in a lesson, how to leave it.
		out[i] = k.Stream.Play // its help says what space does now
		speed := speedKey
		speed.SetEnabled(k.Stream.Faster.Enabled())
		switch {
		case in.les.on:
			out = slices.Insert(out, i+1, speed, k.Stream.Lesson, k.Stream.Reveal)
		case in.rep.started:
			out = slices.Insert(out, i+1, speed, k.Stream.Reveal)
		default:
			out = slices.Insert(out, i+1, speed)
		}
	}
	if in.zoom {
		out = withUnzoom(out, k.View.Zoom)
	}
	if in.Back != nil {
		out = append(out, k.Sessions.Back)
	}
	return append(out, k.Nav.Next, k.Nav.Pane, k.App.Help, k.App.Quit)
}

// speedKey is - and + as one entry of the short help, beside space.
var speedKey = key.NewBinding(key.WithKeys("-", "+"), key.WithHelp("-/+", "speed"))

// withUnzoom is a zoomed pane's help: its keys, and z saying that it
// brings both panes back, whether the pane offered z or not.
func withUnzoom(keys []key.Binding, zoom key.Binding) []key.Binding {
	unzoom := zoom
	unzoom.SetHelp(zoom.Help().Key, "unzoom")
	out := make([]key.Binding, 0, len(keys)+1)
	for _, b := range keys {
		if !slices.Equal(b.Keys(), zoom.Keys()) {
			out = append(out, b)
		}
	}
	return append(out, unzoom)
}

// HelpLine is the prompt being typed, or the short help.
func (in *Page) HelpLine() string {
	if in.prompt.active() {
		return in.prompt.view(&in.Styles, in.w)
	}
	return keys.ShortHelp(&in.Styles, in.ShortHelp(), in.w)
}
