package keys

import (
	"slices"

	"charm.land/bubbles/v2/key"
)

// Map holds every binding, grouped the way the full help shows them.
type Map struct {
	Nav struct {
		Up, Down, Top, Bottom, HalfUp, HalfDown, PageUp, PageDown, Goto, Next, Prev, Pane key.Binding
	}
	Inspect struct {
		Raw, Explain, Copy, NextFinding, PrevFinding, OpenFinding, Cited, Rule, RuleBack, NextSlow, PrevSlow key.Binding
	}
	Search struct {
		Search, NextMatch, PrevMatch, Filter, Clear key.Binding
	}
	Stream struct {
		Follow, Play, StepBack, StepFwd, Faster, Slower, Save, Lesson, Reveal key.Binding
	}
	// View changes what a pane shows of itself: zoom, and the lanes
	// pane's horizontal scroll.
	View struct {
		Zoom, Left, Right key.Binding
	}
	// Sessions is the proxy's sessions list.
	Sessions struct {
		Open, Back, Follow, Filter, Sort, Mark, Diff key.Binding
	}
	// Diff is the page of `streamtap A --diff B`, both streams side by
	// side.
	Diff struct {
		Side, NextDiff, PrevDiff, Open key.Binding
	}
	App struct {
		Help, Quit key.Binding
	}
	// Prompt is active while typing a search, filter or go-to; the text
	// input's own keys (cursor moves, ctrl+u, …) apply too.
	Prompt struct {
		Accept, Cancel key.Binding
	}
}

// Default builds the key map. Keys are the ones users of less, vim,
// k9s and lazygit already know.
func Default() Map {
	var k Map
	b := key.NewBinding
	k.Nav.Up = b(key.WithKeys("k", "up"), key.WithHelp("↑/k", "up"))
	k.Nav.Down = b(key.WithKeys("j", "down"), key.WithHelp("↓/j", "down"))
	k.Nav.Top = b(key.WithKeys("g", "home"), key.WithHelp("g", "first"))
	k.Nav.Bottom = b(key.WithKeys("G", "end"), key.WithHelp("G", "last"))
	k.Nav.HalfUp = b(key.WithKeys("ctrl+u"), key.WithHelp("ctrl+u", "half page up"))
	k.Nav.HalfDown = b(key.WithKeys("ctrl+d"), key.WithHelp("ctrl+d", "half page down"))
	k.Nav.PageUp = b(key.WithKeys("pgup", "ctrl+b"), key.WithHelp("pgup", "page up"))
	k.Nav.PageDown = b(key.WithKeys("pgdown", "ctrl+f"), key.WithHelp("pgdn", "page down"))
	k.Nav.Goto = b(key.WithKeys(":"), key.WithHelp(":N", "go to event N"))
	k.Nav.Next = b(key.WithKeys("tab"), key.WithHelp("tab", "next pane"))
	k.Nav.Prev = b(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "prev pane"))
	k.Nav.Pane = b(key.WithKeys("1", "2", "3", "4", "5", "6"), key.WithHelp("1-6", "jump to pane"))

	k.Inspect.Raw = b(key.WithKeys("r"), key.WithHelp("r", "raw/pretty"))
	k.Inspect.Explain = b(key.WithKeys("x"), key.WithHelp("x", "explain event"))
	k.Inspect.Copy = b(key.WithKeys("y"), key.WithHelp("y", "copy args/event"))
	k.Inspect.NextFinding = b(key.WithKeys("e"), key.WithHelp("e", "next finding"))
	k.Inspect.PrevFinding = b(key.WithKeys("E"), key.WithHelp("E", "prev finding"))
	k.Inspect.Cited = b(key.WithKeys("enter"), key.WithHelp("enter", "cited events"))
	// Rule is the findings pane's: the selected finding's rule text, which
	// RuleBack (on only while it shows) leaves, before esc clears anything.
	k.Inspect.Rule = b(key.WithKeys("o"), key.WithHelp("o", "finding's rule text"), key.WithDisabled())
	k.Inspect.RuleBack = b(key.WithKeys("esc"), key.WithHelp("esc", "back to findings"), key.WithDisabled())
	// OpenFinding is enter on a timeline row a finding marks; the
	// inspector enables it only there.
	k.Inspect.OpenFinding = b(key.WithKeys("enter"), key.WithHelp("enter", "open marked row's finding"), key.WithDisabled())
	k.Inspect.NextSlow = b(key.WithKeys("s"), key.WithHelp("s", "next slow gap"))
	k.Inspect.PrevSlow = b(key.WithKeys("S"), key.WithHelp("S", "prev slow gap"))

	k.Search.Search = b(key.WithKeys("/"), key.WithHelp("/", "search"))
	k.Search.NextMatch = b(key.WithKeys("n"), key.WithHelp("n", "next match"))
	k.Search.PrevMatch = b(key.WithKeys("N"), key.WithHelp("N", "prev match"))
	k.Search.Filter = b(key.WithKeys("\\"), key.WithHelp(`\`, "filter events"))
	k.Search.Clear = b(key.WithKeys("esc"), key.WithHelp("esc", "clear search"))

	k.Stream.Follow = b(key.WithKeys("f"), key.WithHelp("f", "follow tail"))
	k.Stream.Play = b(key.WithKeys("space"), key.WithHelp("space", "replay/pause"))
	k.Stream.StepBack = b(key.WithKeys("["), key.WithHelp("[", "step back"))
	k.Stream.StepFwd = b(key.WithKeys("]"), key.WithHelp("]", "step forward"))
	k.Stream.Faster = b(key.WithKeys("+", "="), key.WithHelp("+", "faster"))
	k.Stream.Slower = b(key.WithKeys("-"), key.WithHelp("-", "slower"))
	k.Stream.Save = b(key.WithKeys("w"), key.WithHelp("w", "save capture"))
	k.Stream.Lesson = b(key.WithKeys("L"), key.WithHelp("L", "lesson mode"))
	k.Stream.Reveal = b(key.WithKeys("v"), key.WithHelp("v", "reveal rows"))

	k.View.Zoom = b(key.WithKeys("z"), key.WithHelp("z", "zoom pane"))
	k.View.Left = b(key.WithKeys("h", "left"), key.WithHelp("h/←", "lanes left"))
	k.View.Right = b(key.WithKeys("l", "right"), key.WithHelp("l/→", "lanes right"))

	// Off until the proxy's sessions list turns them on.
	k.Sessions.Open = b(key.WithKeys("enter"), key.WithHelp("enter", "open session"), key.WithDisabled())
	k.Sessions.Back = b(key.WithKeys("esc"), key.WithHelp("esc", "sessions list"), key.WithDisabled())
	k.Sessions.Follow = b(key.WithKeys("f"), key.WithHelp("f", "follow newest"), key.WithDisabled())
	k.Sessions.Filter = b(key.WithKeys("/"), key.WithHelp("/", "filter sessions"), key.WithDisabled())
	k.Sessions.Sort = b(key.WithKeys("s"), key.WithHelp("s", "sort by findings"), key.WithDisabled())
	k.Sessions.Mark = b(key.WithKeys("m"), key.WithHelp("m", "mark for diff"), key.WithDisabled())
	k.Sessions.Diff = b(key.WithKeys("d"), key.WithHelp("d", "diff marked"), key.WithDisabled())

	// Off until the diff page turns them on.
	k.Diff.Side = b(key.WithKeys("tab"), key.WithHelp("tab", "other side"), key.WithDisabled())
	k.Diff.NextDiff = b(key.WithKeys("n"), key.WithHelp("n", "next diff"), key.WithDisabled())
	k.Diff.PrevDiff = b(key.WithKeys("N"), key.WithHelp("N", "prev diff"), key.WithDisabled())
	k.Diff.Open = b(key.WithKeys("enter"), key.WithHelp("enter", "inspect side"), key.WithDisabled())

	k.App.Help = b(key.WithKeys("?"), key.WithHelp("?", "help"))
	k.App.Quit = b(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit"))

	k.Prompt.Accept = b(key.WithKeys("enter"), key.WithHelp("enter", "apply"))
	k.Prompt.Cancel = b(key.WithKeys("esc"), key.WithHelp("esc", "cancel"))
	return k
}

// Group is one category of bindings: a column of the full help, a
// part of the key table of docs/inspector.md.
type Group struct {
	Name     string
	Bindings []key.Binding
}

// Groups lists every binding once, by category, in the order the full
// help and the key table of docs/inspector.md show them: the one list
// both are made from (a test holds the document to it).
func (k *Map) Groups() []Group {
	n, i, s, st, ss, a, p := &k.Nav, &k.Inspect, &k.Search, &k.Stream, &k.Sessions, &k.App, &k.Prompt
	d := &k.Diff
	v := &k.View
	return []Group{
		{"Navigate", []key.Binding{n.Up, n.Down, n.Top, n.Bottom, n.HalfUp, n.HalfDown, n.PageUp, n.PageDown, n.Goto, n.Next, n.Prev, n.Pane}},
		{"Inspect", []key.Binding{i.Raw, i.Explain, i.Copy, i.NextFinding, i.PrevFinding, i.OpenFinding, i.Cited, i.Rule, i.RuleBack, i.NextSlow, i.PrevSlow}},
		{"Search", []key.Binding{s.Search, s.NextMatch, s.PrevMatch, s.Filter, s.Clear}},
		{"Stream", []key.Binding{st.Follow, st.Play, st.StepBack, st.StepFwd, st.Faster, st.Slower, st.Save, st.Lesson, st.Reveal}},
		{"View", []key.Binding{v.Zoom, v.Left, v.Right}},
		{"Sessions", []key.Binding{ss.Open, ss.Back, ss.Follow, ss.Filter, ss.Sort, ss.Mark, ss.Diff}},
		{"Diff", []key.Binding{d.Side, d.NextDiff, d.PrevDiff, d.Open}},
		{"App", []key.Binding{a.Help, a.Quit}},
		{"Prompt", []key.Binding{p.Accept, p.Cancel}},
	}
}

// FullHelp is the full help's columns: the groups, with the proxy's
// sessions keys under Navigate while its list is in use (and left out
// otherwise), the diff page's only on that page, and without the
// prompt's, which the help's own line names. Only the keys enabled now
// are listed, so that the help of each page (the inspector, the diff
// page, the sessions list) lists what works there and nothing that
// does nothing; a group left empty goes.
func (k *Map) FullHelp() []Group {
	out := k.fullHelpGroups()
	kept := out[:0]
	for _, g := range out {
		var on []key.Binding
		for _, b := range g.Bindings {
			if b.Enabled() {
				on = append(on, b)
			}
		}
		if len(on) > 0 {
			kept = append(kept, Group{Name: g.Name, Bindings: on})
		}
	}
	return kept
}

// fullHelpGroups is FullHelp before the keys that are off now go.
func (k *Map) fullHelpGroups() []Group {
	proxy := k.Sessions.Open.Enabled() || k.Sessions.Back.Enabled()
	var out []Group
	for _, g := range k.Groups() {
		switch g.Name {
		case "Prompt":
		case "Diff":
			if k.Diff.Open.Enabled() { // only on the diff page
				out = append(out, g)
			}
		case "Sessions":
			if nav := slices.IndexFunc(out, func(g Group) bool { return g.Name == "Navigate" }); proxy && nav >= 0 {
				out[nav].Bindings = append(out[nav].Bindings, g.Bindings...)
			}
		default:
			out = append(out, g)
		}
	}
	return out
}
