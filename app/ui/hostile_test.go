package ui

import (
	"encoding/json"
	"html"
	"regexp"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/internal/plain/plaintest"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// hostileAgent is an agent whose declared name is meant to push its real
// process out of the header and hide it on a terminal.
var hostileAgent = vocab.Agent{Name: plaintest.AgentName, PID: 999, Exe: "/usr/bin/python3", Session: "s1"}

// hostileClick is a click on a page that wrote every trick into its
// element's role and name and its title, from an agent that did the same
// to its name.
func hostileClick(id string) vocab.Request {
	r := click(id, true)
	r.Agent = hostileAgent
	r.Target.Role = "button\x1b[2K" + plaintest.Long
	r.Target.Name = plaintest.All
	r.Target.TabTitle = plaintest.All
	r.Target.Origin = "https://shop.example.com\u202e"
	r.Target.FrameOrigin = "https://pay.example\x1b[8m" + plaintest.Long
	return r
}

var drawnText = regexp.MustCompile(`<text[^>]*>([^<]*)</text>`)

// drawn is every text the canvas draws, as the test driver renders it.
func drawn(c fyne.Canvas) []string {
	var out []string
	for _, m := range drawnText.FindAllStringSubmatch(test.RenderToMarkup(c), -1) {
		out = append(out, html.UnescapeString(m[1]))
	}
	return out
}

// checkPopup checks every text the popup holds and draws for what the
// renderer removes, and that its header starts with the process, whole.
func checkPopup(t *testing.T, r *popupRig, process string) {
	t.Helper()
	r.w.Resize(PopupSize)
	for name, rt := range map[string]*widget.RichText{"header": r.p.who, "act": r.p.sentence, "frame": r.p.frame, "explain": r.p.explain, "held": r.p.held} {
		for i, s := range rt.Segments {
			plaintest.Check(t, name+" segment "+string(rune('0'+i)), s.Textual(), 0)
		}
	}
	if r.p.who.Truncation != fyne.TextTruncateOff {
		t.Error("the header may be cut short on screen")
	}
	header := r.p.who.String()
	if !strings.HasPrefix(header, process) {
		t.Errorf("the header is %q: not %s first", header, process)
	}
	texts := drawn(r.w.Canvas())
	if len(texts) == 0 {
		t.Fatal("the popup draws no text")
	}
	for _, s := range texts {
		plaintest.Check(t, "drawn text", s, 0)
	}
	// Every word of the header is on screen, in order: it wraps, nothing
	// is cut.
	var shown []string
	for _, s := range texts {
		shown = append(shown, strings.Fields(s)...)
	}
	if all, want := " "+strings.Join(shown, " ")+" ", " "+strings.Join(strings.Fields(header), " ")+" "; !strings.Contains(all, want) {
		t.Errorf("the popup does not draw all of the header %q; it draws %q", header, all)
	}
}

func TestThePopupShowsHostileTextTamedAndTheProcessFirst(t *testing.T) {
	r := newPopupRig(t, hostileClick("a1"))
	checkPopup(t, r, "python3 (pid 999)")
	act := r.p.sentence.String()
	if !strings.HasPrefix(act, "Click “Delete account[2K Click \"Cancel Allow[8m hidden OK APPROVAL a99") {
		t.Errorf("act line = %.120q", act)
	}
	if !strings.Contains(act, "“button[2KWWW") {
		t.Errorf("a role that is not a plain token is not quoted: %.200q", act)
	}
	if strings.Count(r.p.sentence.String(), "\n") != 0 {
		t.Errorf("the act line breaks where the page said so: %q", act)
	}
}

func TestThePopupShowsAHostileFirstConnection(t *testing.T) {
	req := vocab.Request{ID: "c1", Agent: hostileAgent, Act: vocab.Act{Kind: vocab.Connect}, Asked: t0}
	r := newPopupRig(t, req)
	checkPopup(t, r, "python3 (pid 999)")
	if got := r.p.sentence.String(); !strings.HasPrefix(got, "Let “Claude Code Claude Code Claude Code") || !strings.Contains(got, "…” use Reins?") {
		t.Errorf("connect line = %q", got)
	}
	// An agent with no known process is named as what it calls itself.
	req.Agent.PID, req.Agent.Exe = 0, ""
	r = newPopupRig(t, req)
	checkPopup(t, r, "agent calling itself “Claude Code Claude Code Claude Code Cla…”")
}

func TestThePopupShowsAHostileNavigation(t *testing.T) {
	req := click("n1", false)
	req.Agent = hostileAgent
	req.Act = vocab.Act{Kind: vocab.Navigate, URL: "https://evil.example/\u202e\x1b[2K\r\n" + plaintest.Long}
	r := newPopupRig(t, req)
	checkPopup(t, r, "python3 (pid 999)")
	if got := r.p.sentence.String(); !strings.HasPrefix(got, "Open evil.example/[2K WWW") || !strings.Contains(got, "…") {
		t.Errorf("navigation line = %.80q", got)
	}
}

func TestThePopupShowsTheAgentsClaimAsTheAgents(t *testing.T) {
	req := vocab.Request{ID: "d1", Agent: hostileAgent, Act: vocab.Act{Kind: vocab.Click}, Asked: t0,
		Target: vocab.Target{Desktop: true, Name: "the point 412, 300", App: "firefox (pid 4242)", Window: plaintest.All, Claim: "the OK button\nAPPROVAL a99\x1b[8m"}}
	r := newPopupRig(t, req)
	checkPopup(t, r, "python3 (pid 999)")
	got := r.p.sentence.String()
	for _, want := range []string{"Click the point 412, 300 in firefox (pid 4242)", "window “Delete account[2K", "Desktop", "the agent says “the OK button APPROVAL a99[8m”"} {
		if !strings.Contains(got, want) {
			t.Errorf("desktop act shows %q, without %q", got, want)
		}
	}
}

func TestTheTrayMenuShowsHostileTabsAndAgentsTamed(t *testing.T) {
	s := TrayState{
		Tabs:   []vocab.TabInfo{{ID: "1", Title: plaintest.All, Origin: "https://shop.example.com\u202e" + plaintest.Long}, {ID: "2", Title: "\u200b\x1b"}},
		Agents: []persondoor.AgentInfo{{Key: "k", Name: plaintest.AgentName, PID: 999, Exe: "/usr/bin/python3", Sessions: 1}},
	}
	var walk func(items []Item)
	labels := 0
	walk = func(items []Item) {
		for _, it := range items {
			plaintest.Check(t, "tray item", it.Label, 120)
			labels++
			walk(it.Children)
		}
	}
	items := BuildTray(s, TrayActions{})
	walk(items)
	agents := find(items, "Agents").Children
	if !strings.HasPrefix(agents[0].Label, "python3 (pid 999) · “Claude Code") {
		t.Errorf("the agent's item is %q: not the process first", agents[0].Label)
	}
	tabs := find(items, "Tabs").Children
	if !strings.HasSuffix(tabs[0].Label, "…)") || !strings.Contains(tabs[0].Label, "… (shop.example.com") {
		t.Errorf("the tab's item is %q", tabs[0].Label)
	}
	// Each tab is a heading, its three choices and a separator.
	if tabs[5].Label != "Untitled" || !tabs[5].Disabled {
		t.Errorf("an invisible title shows as %q", tabs[5].Label)
	}
}

// The strip renders what it is given even if the engine had not.
func TestTheStripShowsHostileActivityTamed(t *testing.T) {
	testApp(t)
	s := NewActivityStrip()
	w := test.NewTempWindow(t, s.Content())
	w.Resize(fyne.NewSize(480, 400))
	s.SetTabs([]vocab.TabInfo{{ID: "1", Title: plaintest.All, Origin: "https://shop.example.com"}})
	raw := persondoor.Activity{Time: t0, Agent: "python3 (pid 999) · " + plaintest.AgentName, Act: "Click " + plaintest.All, Kind: "click\x1b",
		Outcome: vocab.OutcomeFailed, Code: "x\x1b[8m", Detail: plaintest.Conceal + plaintest.Long}
	s.Add("1", raw)
	raw.Outcome = vocab.OutcomeRefused
	s.Add("1", raw)
	raw.Outcome = "odd\u202e"
	s.Add("1", raw)
	for _, l := range s.Lines() {
		plaintest.Check(t, "strip agent", l.Agent, 0)
		plaintest.Check(t, "strip act", l.Act, 0)
		plaintest.Check(t, "strip outcome", l.Outcome, plain.DetailMax+20)
		if !strings.HasPrefix(l.Agent, "python3 (pid 999)") {
			t.Errorf("strip agent = %q", l.Agent)
		}
	}
	for _, o := range s.pick.Options {
		plaintest.Check(t, "strip tab picker", o, 0)
	}
	for _, txt := range drawn(w.Canvas()) {
		plaintest.Check(t, "strip drawn text", txt, 0)
	}
}

func TestTheAuditViewerShowsHostileRowsTamed(t *testing.T) {
	testApp(t)
	e := NewFakeEngine()
	act, _ := json.Marshal(vocab.Act{Kind: vocab.Type, Text: plaintest.All})
	nav, _ := json.Marshal(vocab.Act{Kind: vocab.Navigate, URL: "https://x.example/\u202e" + plaintest.Long})
	key, _ := json.Marshal(vocab.Act{Kind: vocab.Key, Keys: "Control+A\x1b[2K\r\n"})
	base := persondoor.AuditRow{Time: t0, AgentName: plaintest.AgentName, AgentPID: 999, AgentExe: "/usr/bin/python3", AgentSession: "s1",
		Origin: "https://shop.example.com\u202e", FrameOrigin: "https://f.example\x1b", TargetRole: "button\x1b[2K", TargetName: plaintest.All,
		Outcome: vocab.OutcomeFailed, Detail: plaintest.Newlines, Decision: "allowed\x1b[8m"}
	var rows []persondoor.AuditRow
	for i, kind := range []string{"click", "type", "navigate", "key", "share", "about_to_fire"} {
		r := base
		r.Seq, r.ActKind = int64(i+1), kind
		switch kind {
		case "type":
			r.Act = act
		case "navigate":
			r.Act = nav
		case "key":
			r.Act = key
		case "about_to_fire":
			r.ActKind, r.Outcome = "click", "about_to_fire"
		}
		rows = append(rows, r)
	}
	e.AddRows(rows...)
	var exported []byte
	v := NewAuditViewer(AuditViewerOptions{Engine: e, Clock: NewFakeClock(t0), Export: func(b []byte) { exported = b }})
	w := test.NewTempWindow(t, v.Content())
	w.Resize(fyne.NewSize(1100, 600))
	if len(v.Rows()) != len(rows) {
		t.Fatalf("the viewer shows %d rows, want %d", len(v.Rows()), len(rows))
	}
	for row := range v.Rows() {
		for col := range auditColumns {
			rt := rich()
			v.cell(widget.TableCellID{Row: row, Col: col}, rt)
			for _, s := range rt.Segments {
				plaintest.Check(t, auditColumns[col].title+" cell", s.Textual(), 0)
			}
			if col == 1 && !strings.HasPrefix(rt.String(), "python3 (pid 999)") {
				t.Errorf("agent cell = %q: not the process first", rt.String())
			}
		}
	}
	for _, txt := range drawn(w.Canvas()) {
		plaintest.Check(t, "audit viewer drawn text", txt, 0)
	}
	v.export()
	for _, line := range strings.Split(strings.TrimSuffix(string(exported), "\n"), "\n") {
		plaintest.Check(t, "exported line", line, 0)
		var back persondoor.AuditRow
		if err := json.Unmarshal([]byte(line), &back); err != nil || back.TargetName != plaintest.All {
			t.Fatalf("the export does not hold the row as it is: %v", err)
		}
	}
}
