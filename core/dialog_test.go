package core_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/approvals"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/deskread"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// chromiumPID is the fake browser's process in front.
const chromiumPID = 4242

func confirmDialog() *deskread.JSDialog {
	return &deskread.JSDialog{ID: ":1.2/dialog/5", Title: "shop.example.com says", Message: "Delete the draft?", Buttons: []string{"Cancel", "OK"}, Focused: true}
}

// dialogFixture is a shop tab whose page is stopped by d: Chromium in front
// shows it, and the page answers no snapshot.
func dialogFixture(t *testing.T, d *deskread.JSDialog) *fixture {
	f := newFixture(t, 5*time.Second)
	f.Exec.SetFrontmost(executor.App{Name: "Chromium", Exe: "/usr/lib/chromium/chromium", PID: chromiumPID, Class: "chromium.Chromium"})
	f.Read.SetJSDialog(chromiumPID, d)
	return f
}

// stoppedSnapshot reads the tab while its page does not answer, as the
// bridge's request timeout would end it.
func (f *fixture) stoppedSnapshot() error {
	f.Browser.Hold(protocol.MethodSnapshot)
	defer f.Browser.Release(protocol.MethodSnapshot)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := f.agent.Snapshot(ctx, f.tab)
	return err
}

func TestAPageStoppedByADialogIsRefusedDialogOpenWithItsMessage(t *testing.T) {
	cases := []struct {
		name string
		d    deskread.JSDialog
		want string
	}{
		{"confirm", *confirmDialog(), "a JavaScript confirm dialog; the page's message says “Delete the draft?”"},
		{"alert", deskread.JSDialog{ID: "a", Title: "shop.example.com says", Message: "Saved.", Buttons: []string{"OK"}, Focused: true}, "a JavaScript alert dialog; the page's message says “Saved.”"},
		{"prompt", deskread.JSDialog{ID: "p", Title: "shop.example.com says", Message: "Your name?", Buttons: []string{"Cancel", "OK"}, Field: true, Focused: true}, "a JavaScript prompt dialog; the page's message says “Your name?”"},
		{"leave", deskread.JSDialog{ID: "l", Title: "Leave site?", Message: "Changes you made may not be saved.", Buttons: []string{"Leave", "Cancel"}, Focused: true}, "the browser's “Leave site?” question"},
		{"unread message", deskread.JSDialog{ID: "u", Title: "shop.example.com says", Buttons: []string{"Cancel", "OK"}, Focused: true}, "a JavaScript confirm dialog; Reins could not read its message"},
		{"only its window's title read", deskread.JSDialog{ID: "t", Title: "shop.example.com says", TitleOnly: true}, "a JavaScript dialog; Reins could not read its message"},
		{"page text with a line break", deskread.JSDialog{ID: "x", Title: "shop.example.com says", Message: "Pay\n[ref=e1] now", Buttons: []string{"OK"}, Focused: true}, "“Pay [ref=e1] now”"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := dialogFixture(t, &tc.d)
			f.SetShare(f.tab, vocab.ReadOnly)
			err := f.stoppedSnapshot()
			if codeOf(err) != vocab.CodeDialogOpen {
				t.Fatalf("got %v, want dialog_open", err)
			}
			for _, want := range []string{tc.want, "browser_handle_dialog on tab " + f.tab} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the refusal %q does not say %q", err, want)
				}
			}
			rows := f.rows(persondoor.AuditFilter{Limit: 1})
			if len(rows) != 1 || rows[0].Code != vocab.CodeDialogOpen || rows[0].Outcome != vocab.OutcomeRefused {
				t.Errorf("the newest row %+v, want the refused read with dialog_open", rows)
			}
		})
	}
}

func TestAStoppedPageWithoutADialogIsNotSaidToHaveOne(t *testing.T) {
	for _, tc := range []struct {
		name            string
		active, focused bool
		setup           func(f *fixture)
	}{
		{"no dialog up", true, true, func(f *fixture) { f.Read.SetJSDialog(chromiumPID, nil) }},
		{"another application in front", true, true, func(f *fixture) {
			f.Exec.SetFrontmost(executor.App{Name: "xterm", Exe: "/usr/bin/xterm", PID: 77})
			f.Read.SetJSDialog(77, confirmDialog())
		}},
		{"the tab hidden behind another", false, true, func(f *fixture) { f.Browser.SetActive(7, false) }},
		{"a window titled for another site", true, true, func(f *fixture) {
			f.Read.SetJSDialog(chromiumPID, &deskread.JSDialog{ID: "t", Title: "elsewhere.example says", TitleOnly: true})
		}},
		{"another window's dialog", true, false, func(f *fixture) {
			f.Browser.SetFocused(7, false)
			d := confirmDialog()
			d.Title = "elsewhere.example says"
			f.Read.SetJSDialog(chromiumPID, d)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := dialogFixture(t, confirmDialog())
			f.SetShare(f.tab, vocab.ReadOnly)
			tc.setup(f)
			waitTabs(f, tc.active, tc.focused)
			if err := f.stoppedSnapshot(); err == nil || codeOf(err) == vocab.CodeDialogOpen {
				t.Errorf("got %v, want the page's silence, not dialog_open", err)
			}
		})
	}
	// Not even when it names the tab's site: another tab on that site may
	// be the one it stops, and its message is not this tab's to tell.
	f := dialogFixture(t, confirmDialog())
	f.SetShare(f.tab, vocab.ReadOnly)
	f.Browser.SetFocused(7, false)
	waitTabs(f, true, false)
	if err := f.stoppedSnapshot(); err == nil || codeOf(err) == vocab.CodeDialogOpen {
		t.Errorf("a dialog naming the tab's site, its window not focused: got %v, want the page's silence", err)
	}
	// Nor a window of the browser's own that is not a page's dialog.
	for name, d := range map[string]deskread.JSDialog{
		"sign-in":           {ID: "s", Title: "shop.example.com says", Buttons: []string{"Cancel", "Sign in"}, Field: true, Secret: true, Focused: true},
		"external protocol": {ID: "x", Title: "Open xdg-open?", Message: "A website wants to open this application.", Buttons: []string{"Open xdg-open", "Cancel"}, Focused: true},
	} {
		f := dialogFixture(t, &d)
		f.SetShare(f.tab, vocab.ReadOnly)
		if err := f.stoppedSnapshot(); err == nil || codeOf(err) == vocab.CodeDialogOpen {
			t.Errorf("%s: got %v, want the page's silence, not dialog_open", name, err)
		}
	}
}

// waitTabs waits for the engine to have taken in the fake browser's
// latest tab list: the tab's active and focused as set.
func waitTabs(f *fixture, active, focused bool) {
	f.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		for _, tab := range f.Tabs() {
			if tab.ID == f.tab && tab.Active == active && tab.Focused == focused {
				return
			}
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("the engine never saw tab %s active %v, focused %v", f.tab, active, focused)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestAnUnsharedTabsDialogIsNotTold(t *testing.T) {
	f := dialogFixture(t, confirmDialog())
	err := f.stoppedSnapshot()
	if codeOf(err) != vocab.CodeShareRequired || strings.Contains(err.Error(), "Delete the draft") {
		t.Errorf("got %v, want grant_required without the dialog's message", err)
	}
}

// dialogAnswer answers the dialog on the tab through the agents' door.
func (f *fixture) dialogAnswer(accept bool, text string) (*agentdoor.ActResult, error) {
	return f.agent.Act(context.Background(), agentdoor.ActRequest{Tab: f.tab, Act: vocab.Act{Kind: vocab.Dialog, Accept: accept, Text: text}})
}

func TestAcceptingADialogIsAskedWithTheRiskRowAndLoggedBeforeItFires(t *testing.T) {
	f := dialogFixture(t, confirmDialog())
	f.SetShare(f.tab, vocab.Control)
	var mu sync.Mutex
	var asked []vocab.Request
	events, stop := f.Subscribe(64)
	defer stop()
	go func() {
		for ev := range events {
			if ev.Kind == persondoor.EventApproval {
				mu.Lock()
				asked = append(asked, *ev.Request)
				mu.Unlock()
				f.Answer(ev.Request.ID, vocab.AllowOnce)
			}
		}
	}()
	var rowsAtFire []persondoor.AuditRow
	f.Exec.BeforeFire = func(audit.Ticket) error {
		rowsAtFire = f.rows(persondoor.AuditFilter{Act: string(vocab.Dialog)})
		return nil
	}
	res, err := f.dialogAnswer(true, "")
	if err != nil {
		t.Fatal(err)
	}
	want := "Press OK in the page's confirm; the page's message says “Delete the draft?”"
	if res.Done != want {
		t.Errorf("done %q, want %q", res.Done, want)
	}
	mu.Lock()
	if len(asked) != 1 || asked[0].Sentence() != want || asked[0].Risk == "" || asked[0].Risk != approvals.Risk(asked[0].Act, asked[0].Target) {
		t.Errorf("asked %+v, want once, with the dialog's risk warning", asked)
	}
	mu.Unlock()
	if len(rowsAtFire) != 1 || rowsAtFire[0].Outcome != vocab.OutcomeAboutToFire {
		t.Errorf("rows when the key fired: %+v, want the committed about-to-fire row", rowsAtFire)
	}
	fired := f.Exec.Fired()
	if len(fired) != 1 || fired[0].Act.Kind != vocab.Dialog || !fired[0].Act.Accept || fired[0].Act.Dialog != vocab.DialogConfirm {
		t.Errorf("fired %+v, want the one dialog answer", fired)
	}
	rows := f.rows(persondoor.AuditFilter{Act: string(vocab.Dialog)})
	if len(rows) != 2 || rows[0].Outcome != vocab.OutcomeDone || rows[1].TargetName != "Delete the draft?" {
		t.Errorf("rows %+v, want the fire row then done, naming the message", rows)
	}
}

func TestDialogAnswersThatCannotFireAreRefusedBeforeAsking(t *testing.T) {
	for _, tc := range []struct {
		name   string
		level  vocab.Level
		d      *deskread.JSDialog
		accept bool
		text   string
		code   string
	}{
		{"read only", vocab.ReadOnly, confirmDialog(), true, "", vocab.CodeControlRequired},
		{"not shared", vocab.None, confirmDialog(), true, "", vocab.CodeShareRequired},
		{"no dialog", vocab.Control, nil, true, "", vocab.CodeBadRequest},
		{"text for a confirm", vocab.Control, confirmDialog(), true, "yes", vocab.CodeBadRequest},
		{"text with a dismissal", vocab.Control, confirmDialog(), false, "yes", vocab.CodeBadRequest},
		{"only its window's title read", vocab.Control, &deskread.JSDialog{ID: "t", Title: "shop.example.com says", TitleOnly: true}, true, "", vocab.CodeNotVisible},
		{"focus elsewhere", vocab.Control, &deskread.JSDialog{ID: "d", Title: "shop.example.com says", Message: "Sure?", Buttons: []string{"Cancel", "OK"}}, true, "", vocab.CodeNotVisible},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := dialogFixture(t, tc.d)
			f.SetShare(f.tab, tc.level)
			a := countAsked(t, f.Engine)
			_, err := f.dialogAnswer(tc.accept, tc.text)
			refusedBeforeAsking(t, f.Engine, a, err, tc.code)
		})
	}
}

func TestADialogReplacedWhileThePersonLooksIsNotAnswered(t *testing.T) {
	f := dialogFixture(t, confirmDialog())
	f.SetShare(f.tab, vocab.Control)
	events, stop := f.Subscribe(64)
	defer stop()
	go func() {
		for ev := range events {
			if ev.Kind == persondoor.EventApproval {
				// The page answered itself and raised another.
				d := confirmDialog()
				d.ID, d.Message = ":1.2/dialog/9", "Delete everything?"
				f.Read.SetJSDialog(chromiumPID, d)
				f.Answer(ev.Request.ID, vocab.AllowOnce)
			}
		}
	}()
	_, err := f.dialogAnswer(true, "")
	if codeOf(err) != vocab.CodeChanged {
		t.Fatalf("got %v, want changed", err)
	}
	if n := len(f.Exec.Fired()); n != 0 {
		t.Errorf("%d acts fired", n)
	}
	for _, row := range f.rows(persondoor.AuditFilter{Act: string(vocab.Dialog)}) {
		if row.Outcome == vocab.OutcomeAboutToFire {
			t.Errorf("a fire row was written: %+v", row)
		}
	}
}

// A prompt's answer is typed only with the focus in its field: with it on
// a button, the text would go nowhere and Enter would send the page's own
// default.
func TestAPromptsAnswerNeedsTheFocusInItsField(t *testing.T) {
	f := dialogFixture(t, &deskread.JSDialog{ID: "p", Title: "shop.example.com says", Message: "Your name?", Buttons: []string{"Cancel", "OK"}, Field: true, Focused: true})
	f.SetShare(f.tab, vocab.Control)
	defer f.AnswerAll(vocab.AllowOnce)()
	if _, err := f.dialogAnswer(true, "Ada"); codeOf(err) != vocab.CodeNotVisible {
		t.Fatalf("typing with the focus on a button: %v, want %s", err, vocab.CodeNotVisible)
	}
	if n := len(f.Exec.Fired()); n != 0 {
		t.Errorf("%d acts fired", n)
	}
}

func TestAPromptsAnswerIsTypedAndSaid(t *testing.T) {
	f := dialogFixture(t, &deskread.JSDialog{ID: "p", Title: "shop.example.com says", Message: "Your name?", Buttons: []string{"Cancel", "OK"}, Field: true, Focused: true, FieldFocused: true})
	f.SetShare(f.tab, vocab.Control)
	stop := f.AnswerAll(vocab.AllowOnce)
	defer stop()
	res, err := f.dialogAnswer(true, "Ada")
	if err != nil {
		t.Fatal(err)
	}
	if want := "Answer the page's prompt with “Ada” and press OK; the page's message says “Your name?”"; res.Done != want {
		t.Errorf("done %q, want %q", res.Done, want)
	}
	if fired := f.Exec.Fired(); len(fired) != 1 || fired[0].Act.Text != "Ada" || fired[0].Act.Dialog != vocab.DialogPrompt {
		t.Errorf("fired %+v", fired)
	}
}

func TestTheRiskTableAsksEveryAcceptedDialog(t *testing.T) {
	target := vocab.Target{Tab: "1", Role: "dialog", Name: "Continue?"}
	tier, ok := approvals.RiskOf(vocab.Act{Kind: vocab.Dialog, Accept: true, Dialog: vocab.DialogConfirm}, target)
	if !ok || !strings.Contains(tier.Name, "dialog") || tier.Warning == "" {
		t.Errorf("accepting: %+v %v, want the dialog row", tier, ok)
	}
	// Dismissing commits nothing, whatever the page's message says.
	if tier, ok := approvals.RiskOf(vocab.Act{Kind: vocab.Dialog, Dialog: vocab.DialogConfirm}, vocab.Target{Tab: "1", Role: "dialog", Name: "Delete your account?"}); ok {
		t.Errorf("dismissing falls under %q", tier.Name)
	}
	// Accepting one whose message says delete is still the dialog's row.
	if tier, _ := approvals.RiskOf(vocab.Act{Kind: vocab.Dialog, Accept: true}, vocab.Target{Name: "Delete your account?"}); !strings.Contains(tier.Name, "dialog") {
		t.Errorf("accepting a delete: %q", tier.Name)
	}
}
