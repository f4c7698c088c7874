package inspector

import (
	"fmt"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/streamtap/streamtap/model"
	"github.com/streamtap/streamtap/ui/cell"
	"github.com/streamtap/streamtap/ui/keys"
	"github.com/streamtap/streamtap/ui/pane"
)

// echoPane is a pane that exists only in this file: it lists the keys it
// was given and the results of its work, to show that a pane is one type
// plus one registration line.
type echoPane struct {
	pane.Base
	name   string
	keys   *keys.Map
	s      *model.Session
	w, h   int
	got    []string
	worked int // results of work received
	asked  int // work started
}

// echoWorkMsg is the result of the echo pane's work.
type echoWorkMsg struct{ n int }

func (p *echoPane) Title() string            { return p.name }
func (p *echoPane) Attach(s *model.Session)  { p.s = s }
func (p *echoPane) SetSize(w, h int)         { p.w, p.h = w, max(h, 1) }
func (p *echoPane) ShortHelp() []key.Binding { return []key.Binding{p.keys.Nav.Top, p.keys.Nav.Bottom} }

func (p *echoPane) View(sel int, focused bool) string {
	lines := []string{
		fmt.Sprintf("%s of event #%d of %d, focused %v", p.name, sel, p.s.Len(), focused),
		"got " + strings.Join(p.got, " "),
		fmt.Sprintf("worked %d", p.worked),
	}
	return strings.Join(cell.Block(lines, p.w, p.h), "\n")
}

func (p *echoPane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		p.got = append(p.got, msg.String())
	case echoWorkMsg:
		p.worked += msg.n
	}
	return nil
}

// Work asks for one piece of work, once.
func (p *echoPane) Work(int) tea.Cmd {
	if p.asked > 0 {
		return nil
	}
	p.asked++
	return tea.Batch(func() tea.Msg { return echoWorkMsg{1} }, func() tea.Msg { return echoWorkMsg{2} })
}

// TestRegisterPane registers panes the inspector has never heard of:
// each gets the next number key and a tab, shows in the help, receives
// keys while focused (and only then), renders beside the timeline, and
// gets the results of its work back.
func TestRegisterPane(t *testing.T) {
	t.Parallel()
	m := newProgram(newSession(sampleBytes(t, goldenSample)), Options{Source: "test"})
	echo := Register(m.insp, &echoPane{name: "echo", keys: &m.Keys}) // the registration line
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.insp.tl.SelectOrd(7)

	press(m, "?")
	if v := plainView(m); !strings.Contains(v, "1-7") || !strings.Contains(v, "jump to pane") {
		t.Fatalf("the full help should offer 1-7 with a seventh pane:\n%s", v)
	}
	press(m, "esc")
	_, work := m.Update(keyMsg("7")) // shown: it starts its work
	if got := focusName(m); got != "echo" {
		t.Fatalf("6 focused %q; want the registered pane", got)
	}
	v := plainView(m)
	for _, want := range []string{"7 echo", "echo of event #7 of 40, focused true", "g first", "G last"} {
		if !strings.Contains(v, want) {
			t.Errorf("with the echo pane focused the screen lacks %q:\n%s", want, v)
		}
	}
	press(m, "j", "k", "ctrl+d")
	if got := strings.Join(echo.got, " "); got != "j k ctrl+d" {
		t.Errorf("the focused pane got %q; want j k ctrl+d", got)
	}
	press(m, "1", "j")
	if got := strings.Join(echo.got, " "); got != "j k ctrl+d" || m.insp.Selected() != 8 {
		t.Errorf("with the timeline focused the echo pane got %q and the selection is %d; want no new key and 8", got, m.insp.Selected())
	}
	if v := plainView(m); !strings.Contains(v, "echo of event #8 of 40, focused false") {
		t.Errorf("the echo pane should stay beside the timeline, following the selection:\n%s", v)
	}

	// Its work's results come back to it, batched or not.
	settle(m, work)
	if echo.worked != 3 {
		t.Errorf("the echo pane got %d from its work; want 1+2", echo.worked)
	}
	if v := plainView(m); !strings.Contains(v, "worked 3") {
		t.Errorf("screen after the work:\n%s", v)
	}

	// tab goes on from the last pane to the timeline.
	press(m, "7", "tab")
	if got := focusName(m); got != "timeline" {
		t.Errorf("tab after the last pane focused %q; want timeline", got)
	}
	checkFits(t, viewOf(m), 120, 40)
	if strings.Count(ansi.Strip(viewOf(m)), "7 echo") != 1 {
		t.Errorf("the tab should show once:\n%s", plainView(m))
	}
}

// TestRegisterPaneEighth: an eighth pane gets the key 8, which no
// binding had before it came.
func TestRegisterPaneEighth(t *testing.T) {
	m := newProgram(newSession(sampleBytes(t, goldenSample)), Options{Source: "test"})
	Register(m.insp, &echoPane{name: "echo", keys: &m.Keys})
	Register(m.insp, &echoPane{name: "other", keys: &m.Keys})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	press(m, "8")
	if got := focusName(m); got != "other" {
		t.Fatalf("8 focused %q; want the eighth pane", got)
	}
	v := plainView(m)
	for _, want := range []string{"7 echo", "8 other", "other of event #0 of 40, focused true", "1-8 jump to pane"} {
		if !strings.Contains(v, want) {
			t.Errorf("the screen lacks %q:\n%s", want, v)
		}
	}
}
