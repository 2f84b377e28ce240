package grounding_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/grounding"
)

// budget is the default budget of an agent's read (agentdoor.DefaultBudget).
const budget = 40_000

// tableTab is an orders page of rows rows, as Chromium reports it: a banner,
// a main landmark with a table whose every row holds a checkbox "Select N"
// and a button "Delete N", and a footer with a link.
func tableTab(rows int) *protocol.SnapshotResult {
	id := 0
	next := func() int { id++; return id }
	el := func(role, name string, kids ...*protocol.Node) *protocol.Node {
		return &protocol.Node{Role: role, Name: name, ID: next(), Box: &protocol.Rect{X: 10, Y: float64(20 * id), W: 100, H: 18}, Children: kids}
	}
	head := el("rowgroup", "", el("row", "Order Pick Action", el("columnheader", "Order"), el("columnheader", "Pick"), el("columnheader", "Action")))
	var body []*protocol.Node
	for i := 1; i <= rows; i++ {
		n := strconv.Itoa(i)
		body = append(body, el("row", "Order "+n+" Select "+n+" Delete "+n,
			el("cell", "Order "+n, text("Order "+n)),
			el("cell", "", el("checkbox", "Select "+n)),
			el("cell", "Delete "+n, el("button", "Delete "+n)),
		))
	}
	top := topFrame("d1", 0,
		el("banner", "", el("heading", "Orders"), el("link", "Home")),
		el("main", "", el("heading", "All orders"), el("table", "Orders", head, el("rowgroup", "", body...))),
		el("contentinfo", "", el("link", "Help")),
	)
	top.Viewport = protocol.Viewport{Width: 1200, Height: 700, InnerWidth: 1200, InnerHeight: 700, ClientWidth: 1200, ClientHeight: 700}
	return result(top)
}

var leftOutRe = regexp.MustCompile(`Left out: (\d+) lines with (\d+) refs, from (.+?) on; of those refs, (\d+) in table "Orders" \[ref=(e\d+)\] \(in main \[ref=(e\d+)\]\), (\d+) in contentinfo \[ref=(e\d+)\]\.`)

func TestAutoModeCutsTheInteractiveViewOfAHugeTableToTheBudgetAndSaysWhatIsLeft(t *testing.T) {
	s := mustBuild(t, tableTab(5000), grounding.NewRefs())
	r := render(t, s, grounding.RenderOptions{MaxChars: budget})
	whole := render(t, s, grounding.RenderOptions{Mode: grounding.ModeInteractive})
	t.Logf("full %d, interactive %d, shown %d characters; hint:\n%s", len(s.Text), len(whole.Text), len(r.Text), r.Hint)
	if r.Mode != grounding.ModeInteractive || !r.Truncated || len(r.Text) > budget || len(r.Text) < budget-200 {
		t.Fatalf("mode %q, truncated %v, %d characters", r.Mode, r.Truncated, len(r.Text))
	}
	if !strings.HasPrefix(whole.Text, r.Text) || !strings.HasSuffix(r.Text, "\n") {
		t.Fatal("the cut text is not the interactive view's first lines")
	}
	checkShape(t, r.Text, parseAll(t, r.Text))
	m := leftOutRe.FindStringSubmatch(r.Hint)
	if m == nil {
		t.Fatalf("hint: %s", r.Hint)
	}
	rest := strings.Split(strings.TrimSuffix(whole.Text[len(r.Text):], "\n"), "\n")
	restRefs := strings.Count(whole.Text[len(r.Text):], "[ref=")
	firstRef := ""
	for _, l := range rest {
		if strings.Contains(l, "[ref=") {
			firstRef = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "- "))
			break
		}
	}
	if n, _ := strconv.Atoi(m[1]); n != len(rest) || n != r.Left {
		t.Errorf("the hint says %s lines were left out; %d were (Left %d)", m[1], len(rest), r.Left)
	}
	if m[2] != strconv.Itoa(restRefs) {
		t.Errorf("the hint says %s refs were left out; %d were", m[2], restRefs)
	}
	if m[3] != firstRef {
		t.Errorf("the hint says the cut starts at %s; it starts at %s", m[3], firstRef)
	}
	if s.Elements[m[5]].Role != "table" || s.Elements[m[6]].Role != "main" || s.Elements[m[8]].Role != "contentinfo" {
		t.Errorf("the hint names %s, %s and %s", s.Elements[m[5]].Role, s.Elements[m[6]].Role, s.Elements[m[8]].Role)
	}
	// The footer's line and its link are the 2 refs outside the table.
	if inTable, _ := strconv.Atoi(m[4]); m[7] != "2" || inTable+2 != restRefs {
		t.Errorf("refs in the table %s and in the footer %s, of %d", m[4], m[7], restRefs)
	}
	for _, w := range []string{`ref "` + m[5] + `"`, "max_chars (-1 for no limit)", "find", `mode "viewport"`, "the full snapshot is " + strconv.Itoa(len(s.Text)) + " characters"} {
		if !strings.Contains(r.Hint, w) {
			t.Errorf("the hint does not say %q: %s", w, r.Hint)
		}
	}
	if len(r.Hint) > 1000 {
		t.Errorf("the hint is %d characters", len(r.Hint))
	}

	// Following the hint: the table's subtree, with no limit, holds every
	// line the cut left out of it.
	sub := render(t, s, grounding.RenderOptions{Root: m[5]})
	have := map[string]bool{}
	for _, l := range strings.Split(sub.Text, "\n") {
		have[strings.TrimSpace(l)] = true
	}
	missing := 0
	for _, l := range rest {
		l = strings.TrimSpace(l)
		if !have[l] && !have[strings.TrimSuffix(l, ":")] && !strings.Contains(l, "contentinfo") && !strings.Contains(l, `"Help"`) {
			missing++
		}
	}
	if missing > 0 || strings.Count(sub.Text, `button "Delete `) != 5000 {
		t.Errorf("the table's subtree lacks %d of the lines left out", missing)
	}
	// Cut again, a subtree's hint does not send the agent back to itself.
	again := render(t, s, grounding.RenderOptions{Root: m[5], MaxChars: budget})
	if !again.Truncated || strings.Contains(again.Hint, `ref "`+m[5]+`"`) || strings.Contains(again.Hint, "in table") {
		t.Errorf("the subtree's hint: %s", again.Hint)
	}
}

func TestEveryModeIsWithinTheBudget(t *testing.T) {
	s := mustBuild(t, tableTab(5000), grounding.NewRefs())
	for _, mode := range []string{grounding.ModeAuto, grounding.ModeFull, grounding.ModeInteractive, grounding.ModeViewport} {
		r := render(t, s, grounding.RenderOptions{Mode: mode, MaxChars: budget})
		if len(r.Text) > budget {
			t.Errorf("mode %s: %d characters", mode, len(r.Text))
		}
		if r.Truncated != strings.Contains(r.Hint, "Left out:") {
			t.Errorf("mode %s: truncated %v, hint %q", mode, r.Truncated, r.Hint)
		}
		parseAll(t, r.Text)
	}
	full := render(t, s, grounding.RenderOptions{Mode: grounding.ModeFull, MaxChars: budget})
	if !full.Truncated || !strings.Contains(full.Hint, `mode "interactive"`) {
		t.Errorf("full mode's hint: %s", full.Hint)
	}
	vp := render(t, s, grounding.RenderOptions{Mode: grounding.ModeViewport, MaxChars: budget})
	if vp.Truncated || vp.Below == 0 || !strings.Contains(vp.Hint, "below") {
		t.Errorf("the viewport: truncated %v, below %d, hint %q", vp.Truncated, vp.Below, vp.Hint)
	}
}

func TestASmallPageIsNotCut(t *testing.T) {
	s := mustBuild(t, tableTab(3), grounding.NewRefs())
	r := render(t, s, grounding.RenderOptions{MaxChars: budget})
	if r.Truncated || r.Hint != "" || r.Text != s.Text || r.Mode != grounding.ModeFull {
		t.Errorf("a small page: mode %s, truncated %v, hint %q", r.Mode, r.Truncated, r.Hint)
	}
}

func TestACutBeforeTheFirstLineKeepsNothingAndSaysSo(t *testing.T) {
	s := mustBuild(t, tableTab(3), grounding.NewRefs())
	r := render(t, s, grounding.RenderOptions{MaxChars: 5})
	if r.Text != "" || !r.Truncated || !strings.Contains(r.Hint, "after 0 of its") || !strings.Contains(r.Hint, "from banner [ref=e1] on") {
		t.Errorf("text %q, hint %s", r.Text, r.Hint)
	}
}

func TestRankedFindPutsTheExactNameFirstThenWholeWordsThenTheRest(t *testing.T) {
	s := mustBuild(t, tableTab(5000), grounding.NewRefs())
	got := s.Ranked("delete 1", "")
	if n := len(s.Find("delete 1", "")); len(got) != n || n != 3*1111 {
		t.Fatalf("Ranked found %d lines, Find %d; want %d", len(got), n, 3*1111)
	}
	want := []string{
		`- button "Delete 1" [ref=`,
		`- cell "Delete 1" [ref=`,
		`- row "Order 1 Select 1 Delete 1" [ref=`,
		`- button "Delete 10" [ref=`,
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w) {
			t.Errorf("line %d = %s, want %s", i, got[i], w)
		}
	}
	// Every button comes before every other substring match.
	lastButton := 0
	firstOther := len(got)
	for i, l := range got[3:] {
		if strings.HasPrefix(l, "- button") {
			lastButton = i
		} else if firstOther == len(got) {
			firstOther = i
		}
	}
	if lastButton > firstOther {
		t.Errorf("a button at %d after another line at %d", lastButton, firstOther)
	}
	if got := s.Ranked("", "checkbox"); len(got) != 5000 || !strings.HasPrefix(got[0], `- checkbox "Select 1" [ref=`) || got[4999] != s.Find("", "checkbox")[4999] {
		t.Errorf("a find by role alone is not in the page's order")
	}
	// A word inside another word is not a whole word.
	words := mustBuild(t, result(topFrame("d1", 0, node("button", "Undelete", 1), node("link", "Delete all", 2), node("heading", "delete", 3))), grounding.NewRefs())
	if got := strings.Join(words.Ranked("delete", ""), "\n"); got != strings.Join([]string{
		`- heading "delete" [ref=e3]`, `- link "Delete all" [ref=e2]`, `- button "Undelete" [ref=e1]`,
	}, "\n") {
		t.Errorf("Ranked(delete) =\n%s", got)
	}
}

func TestADiffCutToABudgetSaysHowManyLinesAreLeft(t *testing.T) {
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, "+ button \"Delete %d\" [ref=e%d]\n", i, i)
	}
	s := grounding.Snapshot{Text: b.String()}
	r := render(t, &s, grounding.RenderOptions{MaxChars: 4000})
	shown := strings.Count(r.Text, "\n")
	if !r.Truncated || len(r.Text) > 4000 || r.Left != 1000-shown || !strings.Contains(r.Hint, fmt.Sprintf("%d more lines", 1000-shown)) {
		t.Errorf("shown %d lines in %d characters; left %d; hint %q", shown, len(r.Text), r.Left, r.Hint)
	}
}

func BenchmarkBuildAndRenderHugeTable(b *testing.B) {
	res := tableTab(5000)
	refs := grounding.NewRefs()
	for _, c := range []struct {
		name string
		max  int
	}{{"budget", budget}, {"nolimit", 0}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			var n int
			for b.Loop() {
				s, err := grounding.Build(res, refs, grounding.BuildOptions{ID: "s"})
				if err != nil {
					b.Fatal(err)
				}
				r, err := s.Render(grounding.RenderOptions{MaxChars: c.max})
				if err != nil {
					b.Fatal(err)
				}
				n = len(r.Text)
			}
			b.ReportMetric(float64(n), "chars")
		})
	}
}

var countsRe = regexp.MustCompile(`Left out: (\d+) lines with (\d+) refs`)

func TestTheCountsOfACutAreTrueAtEveryBudget(t *testing.T) {
	s := mustBuild(t, tableTab(40), grounding.NewRefs())
	for _, mode := range []string{grounding.ModeFull, grounding.ModeInteractive} {
		whole := render(t, s, grounding.RenderOptions{Mode: mode}).Text
		for max := 1; max < len(whole); max += 37 {
			r := render(t, s, grounding.RenderOptions{Mode: mode, MaxChars: max})
			rest := whole[len(r.Text):]
			m := countsRe.FindStringSubmatch(r.Hint)
			if !strings.HasPrefix(whole, r.Text) || len(r.Text) > max || m == nil ||
				m[1] != strconv.Itoa(strings.Count(rest, "\n")) || m[2] != strconv.Itoa(strings.Count(rest, "[ref=")) {
				t.Fatalf("mode %s, max %d: %d characters shown; hint %q; %d lines and %d refs left", mode, max, len(r.Text), r.Hint, strings.Count(rest, "\n"), strings.Count(rest, "[ref="))
			}
		}
	}
}
