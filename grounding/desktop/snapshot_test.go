package desktop

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

var at = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// on is the state of an element shown on screen that reacts to input.
var on = States{Enabled: true, Showing: true, Visible: true}

func box(x, y int) Rect { return Rect{X: x, Y: y, W: 80, H: 20} }

// fixture is a tree like the AT-SPI fixture's window.
func fixture() *Tree {
	edit := on
	edit.Editable, edit.Focusable = true, true
	checked := on
	checked.Checkable, checked.Checked = true, true
	return &Tree{App: "fixture.py", PID: 4242, Source: "walk", Count: 8, Root: Element{
		ID: "/org/a11y/atspi/accessible/root/1", Role: "frame", Name: "Reins AT-SPI fixture", State: on, Box: Rect{0, 0, 400, 300},
		Children: []Element{{
			ID: "/o/2", Role: "filler", State: on, Box: Rect{0, 0, 400, 300}, // layout with a box: shown for its ref
			Children: []Element{{ID: "/o/3", Role: "panel", State: States{Enabled: true}, Children: []Element{
				{ID: "/o/4", Role: "push button", Name: "Press me", State: on, Box: box(10, 10)},
				{ID: "/o/5", Role: "text", Name: "Name", State: edit, Value: "Ada", Box: box(10, 40)},
				{ID: "/o/6", Role: "password text", Name: "Password", State: edit, Secret: true, Box: box(10, 70)},
				{ID: "/o/7", Role: "check box", Name: "Remember", State: checked, Box: box(10, 100)},
			}}},
		}},
	}}
}

// flat is fixture without the layout element that has a box.
func flat() *Tree {
	t := fixture()
	t.Root.Children = t.Root.Children[0].Children
	return t
}

func TestBuildRendersFixture(t *testing.T) {
	s := Build(flat(), NewRefs(), BuildOptions{ID: "ds1", At: at})
	want := strings.Join([]string{
		`Application in front: "fixture.py" (pid 4242)`,
		`- window "Reins AT-SPI fixture" [ref=d1]`,
		`  - button "Press me" [ref=d2]`,
		`  - textbox "Name" [ref=d3]`,
		`    - /value: "Ada"`,
		`  - textbox "Password" [secret] [ref=d4]`,
		`  - checkbox "Remember" [checked] [ref=d5]`,
	}, "\n")
	if s.Text != want {
		t.Fatalf("text:\n%s\nwant:\n%s", s.Text, want)
	}
	if s.Truncated || len(s.Targets) != 5 {
		t.Fatalf("truncated %v, %d targets", s.Truncated, len(s.Targets))
	}
	pw := s.Targets["d4"]
	want4 := Target{Ref: "d4", PID: 4242, App: "fixture.py", ID: "/o/6", Role: "textbox", Name: "Password", Secret: true, Editable: true, Box: box(10, 70)}
	if pw != want4 {
		t.Fatalf("d4 = %+v, want %+v", pw, want4)
	}
}

func TestBuildGenericWithRefIsShown(t *testing.T) {
	s := Build(fixture(), NewRefs(), BuildOptions{ID: "ds1", At: at, App: "the app"})
	lines := strings.Split(s.Text, "\n")
	if lines[0] != `Application in front: "the app" (pid 4242)` || lines[2] != `  - generic [ref=d2]` || lines[3] != `    - button "Press me" [ref=d3]` {
		t.Fatalf("text:\n%s", s.Text)
	}
}

func TestBuildMarksAndRefless(t *testing.T) {
	off := States{Enabled: false, Showing: true, Visible: true, Focused: true, Expanded: true, Selected: true}
	tr := &Tree{PID: 1, Root: Element{ID: "/r", Role: "dialog", Name: "D", State: on, Box: box(0, 0), Children: []Element{
		{ID: "/a", Role: "combo box", Name: "Pick", State: off, Box: box(0, 0)},
		{ID: "/b", Role: "push button", Name: "Hidden", State: States{Enabled: true, Visible: true}, Box: box(0, 0)},
		{ID: "/c", Role: "push button", Name: "Boxless", State: on},
		{ID: "/d", Role: "slider", Name: "Level", State: on, Value: "40", Box: box(0, 0)},
	}}}
	s := Build(tr, NewRefs(), BuildOptions{ID: "ds1", At: at, App: "x"})
	want := strings.Join([]string{
		`Application in front: "x" (pid 1)`,
		`- dialog "D" [ref=d1]`,
		`  - combobox "Pick" [expanded] [selected] [disabled] [active] [ref=d2]`,
		`  - button "Hidden"`,
		`  - button "Boxless"`,
		`  - slider "Level" [ref=d3]`,
		`    - /value: "40"`,
	}, "\n")
	if s.Text != want {
		t.Fatalf("text:\n%s\nwant:\n%s", s.Text, want)
	}
}

func TestRefsStableAndNeverReused(t *testing.T) {
	refs := NewRefs()
	a := Build(flat(), refs, BuildOptions{ID: "ds1", At: at})
	b := Build(flat(), refs, BuildOptions{ID: "ds2", At: at})
	if a.Text != b.Text {
		t.Fatalf("two builds of one tree differ:\n%s\n---\n%s", a.Text, b.Text)
	}
	// The button goes; a new one takes its place.
	tr := flat()
	tr.Root.Children[0].Children[0] = Element{ID: "/o/9", Role: "push button", Name: "Press me", State: on, Box: box(10, 10)}
	c := Build(tr, refs, BuildOptions{ID: "ds3", At: at})
	if !strings.Contains(c.Text, `- button "Press me" [ref=d6]`) || !strings.Contains(c.Text, `"Name" [ref=d3]`) {
		t.Fatalf("text:\n%s", c.Text)
	}
	if _, err := c.Check("d2"); !errors.Is(err, ErrStaleRef) || !strings.Contains(err.Error(), "desktop_observe") {
		t.Fatalf("Check(d2) = %v, want stale", err)
	}
	if tg, err := a.Check("d2"); err != nil || tg.ID != "/o/4" {
		t.Fatalf("old snapshot: Check(d2) = %+v, %v", tg, err)
	}
	// The same object path under another role is another element.
	tr.Root.Children[0].Children[0].Role = "check box"
	d := Build(tr, refs, BuildOptions{ID: "ds4", At: at})
	if !strings.Contains(d.Text, `- checkbox "Press me" [ref=d7]`) {
		t.Fatalf("text:\n%s", d.Text)
	}
	// Another process with the same object paths gets its own refs.
	tr = flat()
	tr.PID = 99
	if e := Build(tr, refs, BuildOptions{ID: "ds5", At: at}); !strings.Contains(e.Text, "[ref=d8]") || strings.Contains(e.Text, "[ref=d1]") {
		t.Fatalf("text:\n%s", e.Text)
	}
}

func TestRefsConcurrent(t *testing.T) {
	refs := NewRefs()
	var wg sync.WaitGroup
	texts := make([]string, 8)
	for i := range texts {
		wg.Go(func() { texts[i] = Build(flat(), refs, BuildOptions{At: at}).Text })
	}
	wg.Wait()
	for _, s := range texts {
		if s != texts[0] {
			t.Fatalf("builds differ:\n%s\n---\n%s", s, texts[0])
		}
	}
	if refs.next != 5 {
		t.Fatalf("%d refs handed out, want 5", refs.next)
	}
}

func TestCheckNotADesktopRef(t *testing.T) {
	s := Build(flat(), NewRefs(), BuildOptions{ID: "ds1", At: at})
	_, err := s.Check("e12\n")
	if !errors.Is(err, ErrStaleRef) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "not a desktop ref") {
		t.Fatalf("Check = %v", err)
	}
}

func TestHostileNamesRenderCleaned(t *testing.T) {
	tr := flat()
	kids := tr.Root.Children[0].Children
	kids[0].Name = "OK\n- button \"Pay\" [ref=d9]"
	kids[1].Name = "\x1b[31mred\x1b[0m"
	kids[1].Value = "a\u202Etxt.exe\r\nb\\"
	kids[3].Name = "x [checked] \u2028y"
	s := Build(tr, NewRefs(), BuildOptions{ID: "ds1", At: at, App: "evil\x1b]0;title\x07\u202E"})
	want := strings.Join([]string{
		`Application in front: "evil]0;title" (pid 4242)`,
		`- window "Reins AT-SPI fixture" [ref=d1]`,
		`  - button "OK - button \"Pay\" \[ref=d9]" [ref=d2]`,
		`  - textbox "[31mred[0m" [ref=d3]`,
		`    - /value: "atxt.exe b\\"`,
		`  - textbox "Password" [secret] [ref=d4]`,
		`  - checkbox "x \[checked] y" [checked] [ref=d5]`,
	}, "\n")
	if s.Text != want {
		t.Fatalf("text:\n%s\nwant:\n%s", s.Text, want)
	}
	for _, r := range s.Text {
		if r == '\x1b' || r == '\r' || r == '\u202E' || r == '\u2028' || r == '\x07' {
			t.Fatalf("%U reached the text", r)
		}
	}
	if n := s.Targets["d2"].Name; strings.Contains(n, "\n") {
		t.Fatalf("target name %q keeps a newline", n)
	}
}

// A mark the tab's view writes cannot be posed in the desktop's either:
// both quote with one escaper.
func TestTabMarksEscaped(t *testing.T) {
	tr := flat()
	tr.Root.Children[0].Children[0].Name = "Go [level=1] [cursor=pointer] [scroll=0/9] [box=1,2,3x4]"
	s := Build(tr, NewRefs(), BuildOptions{ID: "ds1", At: at})
	want := `  - button "Go \[level=1] \[cursor=pointer] \[scroll=0/9] \[box=1,2,3x4]" [ref=d2]`
	if got := strings.Split(s.Text, "\n")[2]; got != want {
		t.Fatalf("line = %s, want %s", got, want)
	}
}

func TestNamesCapped(t *testing.T) {
	tr := flat()
	tr.Root.Name = strings.Repeat("w", 500)
	s := Build(tr, NewRefs(), BuildOptions{ID: "ds1", At: at})
	line := strings.Split(s.Text, "\n")[1]
	if len(line) > 120 || !strings.Contains(line, "…") {
		t.Fatalf("line %d bytes: %s", len(line), line)
	}
}

func TestSecretValueNeverRendered(t *testing.T) {
	tr := flat()
	kids := tr.Root.Children[0].Children
	kids[2].Value = "hunter2"                               // the reader must not fill it; if it does, it stays unshown
	kids[0].Role, kids[0].Value = "password text", "s3cret" // secret by role though not marked
	s := Build(tr, NewRefs(), BuildOptions{ID: "ds1", At: at})
	if strings.Contains(s.Text, "hunter2") || strings.Contains(s.Text, "s3cret") {
		t.Fatalf("a secret value was shown:\n%s", s.Text)
	}
	if !s.Targets["d2"].Secret || !strings.Contains(s.Text, `- textbox "Press me" [secret] [ref=d2]`) {
		t.Fatalf("text:\n%s", s.Text)
	}
}

func TestSecretFixtureCarriesNoValue(t *testing.T) {
	fixture().Walk(func(e *Element, _ int) bool {
		if e.Secret && e.Value != "" {
			t.Errorf("secret %s carries a value", e.ID)
		}
		return true
	})
}

func TestBudgetCut(t *testing.T) {
	full := Build(flat(), NewRefs(), BuildOptions{ID: "ds1", At: at})
	if s := Build(flat(), NewRefs(), BuildOptions{ID: "ds1", At: at, MaxChars: len(full.Text)}); s.Text != full.Text {
		t.Fatalf("a text that fits was cut:\n%s", s.Text)
	}
	max := len(full.Text) - 1
	s := Build(flat(), NewRefs(), BuildOptions{ID: "ds1", At: at, MaxChars: max})
	if len(s.Text) > max {
		t.Fatalf("%d characters, budget %d:\n%s", len(s.Text), max, s.Text)
	}
	lines := strings.Split(s.Text, "\n")
	last := lines[len(lines)-1]
	if !strings.HasPrefix(full.Text, strings.Join(lines[:len(lines)-1], "\n")) {
		t.Fatalf("not cut at a line boundary:\n%s", s.Text)
	}
	kept := strings.Count(s.Text, "[ref=")
	if !strings.Contains(last, "max_chars") || !strings.Contains(last, "elements, ") || len(s.Targets) != kept {
		t.Fatalf("hint %q, %d targets for %d refs shown", last, len(s.Targets), kept)
	}
	if _, err := s.Check("d5"); !errors.Is(err, ErrStaleRef) {
		t.Fatalf("a ref cut from the text still checks: %v", err)
	}
	// A budget too small for any element keeps the head.
	s = Build(flat(), NewRefs(), BuildOptions{ID: "ds1", At: at, MaxChars: 10})
	want := `Application in front: "fixture.py" (pid 4242)` + "\n" +
		"(cut at 10 characters: 5 more elements, 5 with refs, left out; read them with desktop_observe and a larger max_chars)"
	if s.Text != want || len(s.Targets) != 0 {
		t.Fatalf("text:\n%s", s.Text)
	}
}

func TestTruncatedTreeSaysSo(t *testing.T) {
	tr := flat()
	tr.Truncated = true
	s := Build(tr, NewRefs(), BuildOptions{ID: "ds1", At: at})
	if !s.Truncated || strings.Split(s.Text, "\n")[1] != truncatedNote {
		t.Fatalf("text:\n%s", s.Text)
	}
}

func TestStale(t *testing.T) {
	s := Build(flat(), NewRefs(), BuildOptions{ID: "ds1", At: at})
	if s.Stale(at.Add(MaxAge)) || !s.Stale(at.Add(MaxAge+time.Millisecond)) {
		t.Fatal("Stale does not turn at MaxAge")
	}
	if _, err := s.Check("d1"); err != nil {
		t.Fatalf("Check refuses by age: %v", err)
	}
}

func TestFindID(t *testing.T) {
	tr := fixture()
	if e := FindID(tr, "/o/7"); e == nil || e.Name != "Remember" {
		t.Fatalf("FindID(/o/7) = %+v", e)
	}
	if e := FindID(tr, "/o/404"); e != nil {
		t.Fatalf("FindID of a gone element = %+v", e)
	}
	if FindID(tr, "") != nil || FindID(nil, "/o/7") != nil {
		t.Fatal("FindID of nothing found something")
	}
}

func TestTargetMatches(t *testing.T) {
	tr := flat()
	tr.Root.Children[0].Children[0].Name = "Press  me\n"
	s := Build(tr, NewRefs(), BuildOptions{ID: "ds1", At: at})
	tg := s.Targets["d2"]
	fresh := flat()
	fresh.Root.Children[0].Children[0].Name = "Press  me\n"
	if !tg.Matches(FindID(fresh, tg.ID)) {
		t.Fatal("the same element does not match")
	}
	fresh.Root.Children[0].Children[0].Name = "Delete all"
	if tg.Matches(FindID(fresh, tg.ID)) || tg.Matches(nil) {
		t.Fatal("a renamed or gone element matches")
	}
}

func TestShown(t *testing.T) {
	for in, want := range map[string]string{
		"push button": "button", "toggle button": "button", "check box": "checkbox", "radio button": "radio",
		"text": "textbox", "entry": "textbox", "password text": "textbox", "combo box": "combobox",
		"menu item": "menuitem", "check menu item": "menuitemcheckbox", "page tab": "tab", "page tab list": "tablist",
		"link": "link", "label": "text", "frame": "window", "window": "window", "dialog": "dialog", "list": "list",
		"list item": "listitem", "table cell": "cell", "slider": "slider", "spin button": "spinbutton",
		"scroll bar": "scrollbar", "menu": "menu", "menu bar": "menubar", "tool bar": "toolbar", "heading": "heading",
		"filler": "generic", "panel": "generic", "unknown": "generic", "redundant object": "generic",
		"scroll pane": "generic", "viewport": "generic",
		"split pane": "split-pane", "Push Button": "button", "": "generic",
		"evil\"role": "generic", "x [ref=d1]": "generic", strings.Repeat("a", 41): "generic",
	} {
		if got := Shown(in); got != want {
			t.Errorf("Shown(%q) = %q, want %q", in, got, want)
		}
	}
}

// On demand, each element shows its box; with find, only the elements
// whose role or name holds the words, flat, with their refs.
func TestBuildShowsBoxesAndFinds(t *testing.T) {
	refs := NewRefs()
	s := Build(flat(), refs, BuildOptions{ID: "ds1", At: at, Boxes: true})
	if !strings.Contains(s.Text, `  - button "Press me" [box=10,10,`) {
		t.Errorf("no box on the button:\n%s", s.Text)
	}
	f := Build(flat(), refs, BuildOptions{ID: "ds2", At: at, Find: "PRESS"})
	want := strings.Join([]string{
		`Application in front: "fixture.py" (pid 4242)`,
		`(1 elements whose role or name holds "PRESS")`,
		`- button "Press me" [ref=d2]`,
	}, "\n")
	if f.Text != want {
		t.Errorf("find:\n%s\nwant:\n%s", f.Text, want)
	}
	if _, err := f.Check("d2"); err != nil {
		t.Errorf("the found button's ref: %v", err)
	}
}
