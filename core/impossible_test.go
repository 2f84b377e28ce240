package core_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// asked counts the approvals the person is asked for, answering each with
// allow once.
type asked struct {
	mu       sync.Mutex
	requests []string // guarded by mu: each request's sentence
	activity string   // guarded by mu: the latest activity's sentence
}

func countAsked(t *testing.T, e *coretest.Engine) *asked {
	a := &asked{}
	events, stop := e.Subscribe(256)
	t.Cleanup(stop)
	go func() {
		for ev := range events {
			if ev.Kind == persondoor.EventApproval {
				a.mu.Lock()
				a.requests = append(a.requests, ev.Request.Sentence())
				a.mu.Unlock()
				e.Answer(ev.Request.ID, vocab.AllowOnce)
			}
			if ev.Kind == persondoor.EventActivity {
				a.mu.Lock()
				a.activity = ev.Activity.Act
				a.mu.Unlock()
			}
		}
	}()
	return a
}

// activityLike waits a moment for an activity whose sentence starts with
// want, and returns the latest one's.
func (a *asked) activityLike(want string) string {
	deadline := time.Now().Add(5 * time.Second)
	for {
		a.mu.Lock()
		got := a.activity
		a.mu.Unlock()
		if strings.HasPrefix(got, want) || time.Now().After(deadline) {
			return got
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (a *asked) sentences() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.requests...)
}

// refusedBeforeAsking checks that err is a refusal with code, that the
// person was asked nothing, nothing fired, and the newest audit row says
// refused with the code; it returns that row's act and detail.
func refusedBeforeAsking(t *testing.T, e *coretest.Engine, a *asked, err error, code string) (act, detail string) {
	t.Helper()
	if codeOf(err) != code {
		t.Fatalf("got %v, want a refusal with code %s", err, code)
	}
	if p := e.Pending(); len(p) != 0 {
		t.Errorf("the person is asked about %d acts", len(p))
	}
	if s := a.sentences(); len(s) != 0 {
		t.Errorf("the person was asked: %.200q", s)
	}
	if f := e.Exec.Fired(); len(f) != 0 {
		t.Errorf("%d acts fired", len(f))
	}
	rows, rerr := core.ReadAudit(context.Background(), e.Log, persondoor.AuditFilter{Limit: 1})
	if rerr != nil {
		t.Fatal(rerr)
	}
	if len(rows) != 1 || rows[0].Outcome != vocab.OutcomeRefused || rows[0].Code != code {
		t.Fatalf("the newest audit row = %+v, want refused with %s", rows, code)
	}
	return string(rows[0].Act), rows[0].Detail
}

func TestTypedTextOverTheLimitIsRefusedAndNotKept(t *testing.T) {
	for _, where := range []string{"tab", "desktop"} {
		t.Run(where, func(t *testing.T) {
			f := newFixture(t, 5*time.Second)
			f.SetShare(f.tab, vocab.Control)
			if err := f.SetShare(vocab.DesktopKey, vocab.Control); err != nil {
				t.Fatal(err)
			}
			a := countAsked(t, f.Engine)
			ref, _ := f.snapRef("Search")
			typeText := func(text string) error {
				act := vocab.Act{Kind: vocab.Type, Text: text}
				if where == "desktop" {
					_, err := f.agent.DesktopAct(context.Background(), agentdoor.DesktopActRequest{Act: act})
					return err
				}
				_, err := f.agent.Act(context.Background(), agentdoor.ActRequest{Tab: f.tab, Ref: ref, Act: act})
				return err
			}

			huge := strings.Repeat("secret-ish ", 10<<20/11) // about 10 MB
			n := len(huge)
			err := typeText(huge)
			act, detail := refusedBeforeAsking(t, f.Engine, a, err, vocab.CodeTextTooLong)
			for _, want := range []string{fmt.Sprint(n), fmt.Sprint(agentdoor.MaxTypedText), "split it"} {
				if !strings.Contains(err.Error(), want) || !strings.Contains(detail, want) {
					t.Errorf("the refusal does not say %q: %q; audit detail %q", want, err, detail)
				}
			}
			if len(err.Error()) > 400 || len(act) > 400 || len(detail) > 400 || strings.Contains(act, "secret-ish") {
				t.Errorf("the oversized text was kept: error %d bytes, audit act %.100q (%d bytes), detail %d bytes", len(err.Error()), act, len(act), len(detail))
			}
			if want := fmt.Sprintf(`"overlong":%d`, n); !strings.Contains(act, want) {
				t.Errorf("the audit act %q does not keep the length (%s)", act, want)
			}
			rows, err := core.ReadAudit(context.Background(), f.Log, persondoor.AuditFilter{Limit: 1})
			if err != nil {
				t.Fatal(err)
			}
			if line := persondoor.FormatAuditRow(rows[0]); !strings.Contains(line, fmt.Sprintf("(text of %d characters, too long to type, not stored)", n)) {
				t.Errorf("reins audit prints %q", line)
			}
			want := fmt.Sprintf("Type %d characters (too long to type)", n)
			if got := a.activityLike(want); !strings.HasPrefix(got, want) {
				t.Errorf("the strip says %.300q, want %q", got, want)
			}

			// The limit itself is allowed, in characters, not bytes.
			if err := typeText(strings.Repeat("é", agentdoor.MaxTypedText)); err != nil {
				t.Fatalf("typing %d characters: %v", agentdoor.MaxTypedText, err)
			}
			if got := len(a.sentences()); got != 1 {
				t.Errorf("the person was asked %d times about text at the limit, want once", got)
			}
			if err := typeText(strings.Repeat("é", agentdoor.MaxTypedText+1)); codeOf(err) != vocab.CodeTextTooLong {
				t.Errorf("one character over the limit: %v", err)
			}
		})
	}
}

func TestKeysNoKeyboardHasAreRefusedBeforeAnyoneIsAsked(t *testing.T) {
	f := newFixture(t, 5*time.Second)
	f.SetShare(f.tab, vocab.Control)
	if err := f.SetShare(vocab.DesktopKey, vocab.Control); err != nil {
		t.Fatal(err)
	}
	a := countAsked(t, f.Engine)
	for _, tc := range []struct {
		name string
		act  func() error
		want string
	}{
		{"a chord with a made-up key in a tab", func() error {
			_, err := f.agent.Act(context.Background(), agentdoor.ActRequest{Tab: f.tab, Act: vocab.Act{Kind: vocab.Key, Keys: "Control+Banana"}})
			return err
		}, "Banana"},
		{"a made-up modifier on the desktop", func() error {
			_, err := f.agent.DesktopAct(context.Background(), agentdoor.DesktopActRequest{Act: vocab.Act{Kind: vocab.Key, Keys: "Hyper+K"}})
			return err
		}, "Hyper"},
		{"no key at all", func() error {
			_, err := f.agent.DesktopAct(context.Background(), agentdoor.DesktopActRequest{Act: vocab.Act{Kind: vocab.Key}})
			return err
		}, "empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.act()
			_, detail := refusedBeforeAsking(t, f.Engine, a, err, vocab.CodeUnknownKey)
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(detail, "nothing was asked") {
				t.Errorf("the refusal %q (audit: %q) does not say %q and that nothing was asked", err, detail, tc.want)
			}
		})
	}
	// A real chord still reaches the person.
	if _, err := f.agent.DesktopAct(context.Background(), agentdoor.DesktopActRequest{Act: vocab.Act{Kind: vocab.Key, Keys: "Control+Shift+K"}}); err != nil {
		t.Fatalf("a real chord: %v", err)
	}
	if got := len(a.sentences()); got != 1 {
		t.Errorf("the person was asked %d times about a real chord, want once", got)
	}
}

func TestADesktopPointOffEveryScreenIsRefusedBeforeAnyoneIsAsked(t *testing.T) {
	e := coretest.New(t, coretest.Options{ApprovalTimeout: 5 * time.Second})
	e.Exec.SetScreens([]executor.Screen{{W: 1280, H: 800}, {X: 1280, Y: -200, W: 1080, H: 1920}})
	if err := e.SetShare(vocab.DesktopKey, vocab.Control); err != nil {
		t.Fatal(err)
	}
	a := countAsked(t, e)
	agent := e.Connect(vocab.Agent{Name: "Test agent", PID: 4121, Exe: "/usr/bin/claude"})
	click := func(x, y float64) error {
		_, err := agent.DesktopAct(context.Background(), agentdoor.DesktopActRequest{Act: vocab.Act{Kind: vocab.Click}, X: x, Y: y})
		return err
	}
	for _, p := range [][2]float64{{5000, 20}, {-1, 10}, {100, 800}, {1300, -201}, {2360, 0}} {
		err := click(p[0], p[1])
		_, detail := refusedBeforeAsking(t, e, a, err, vocab.CodeOffScreen)
		for _, want := range []string{fmt.Sprintf("(%.0f, %.0f)", p[0], p[1]), "1280x800 at 0, 0", "1080x1920 at 1280, -200", "pick a point inside one"} {
			if !strings.Contains(err.Error(), want) || !strings.Contains(detail, want) {
				t.Errorf("the refusal of %v does not say %q: %q (audit: %q)", p, want, err, detail)
			}
		}
	}
	// On the second screen, above the first one's top: asked, and fired.
	if err := click(1300, -150); err != nil {
		t.Fatalf("a click on the second screen: %v", err)
	}
	if got := len(a.sentences()); got != 1 || len(e.Exec.Fired()) != 1 {
		t.Errorf("a click on a screen: asked %d times, fired %d acts; want once each", got, len(e.Exec.Fired()))
	}
}

func TestAClickOnATabWhoseWindowIsOffEveryScreenIsRefusedBeforeAnyoneIsAsked(t *testing.T) {
	f := newFixture(t, 5*time.Second)
	f.SetShare(f.tab, vocab.Control)
	// The fake window is at the origin; the only screen is to its right.
	f.Exec.SetScreens([]executor.Screen{{X: 2000, W: 1280, H: 800}})
	a := countAsked(t, f.Engine)
	ref, _ := f.snapRef("Place order")
	err := f.click(ref)
	_, detail := refusedBeforeAsking(t, f.Engine, a, err, vocab.CodeOffScreen)
	for _, want := range []string{"the element's point", "1280x800 at 2000, 0", "bring it back"} {
		if !strings.Contains(err.Error(), want) || !strings.Contains(detail, want) {
			t.Errorf("the refusal does not say %q: %q (audit: %q)", want, err, detail)
		}
	}
	// Back on screen, the same click is asked about and fires.
	f.Exec.SetScreens([]executor.Screen{{W: 1280, H: 800}})
	if err := f.click(ref); err != nil {
		t.Fatalf("the click with its window on screen: %v", err)
	}
	if got := len(a.sentences()); got != 1 || len(f.Exec.Fired()) != 1 {
		t.Errorf("asked %d times, fired %d acts; want once each", got, len(f.Exec.Fired()))
	}
}

// Text that would press a key the person cannot see in it — a tab that
// moves to the next field, a stray carriage return, a break other than
// "\n", a control or format character — is refused before anyone is asked,
// in a tab and on the desktop, naming the character and what to send
// instead; the row keeps the refusal.
func TestTextThatHidesAKeyIsRefusedBeforeAnyoneIsAsked(t *testing.T) {
	f := newFixture(t, 5*time.Second)
	f.SetShare(f.tab, vocab.Control)
	if err := f.SetShare(vocab.DesktopKey, vocab.Control); err != nil {
		t.Fatal(err)
	}
	a := countAsked(t, f.Engine)
	ref, _ := f.snapRef("Search")
	for _, tc := range []struct{ text, says string }{
		{"alice\tS3cret!", "U+0009"},
		{"5000\r", "U+000D"},
		{"a\vb", "U+000B"},
		{"a\fb", "U+000C"},
		{"a\u0085b", "U+0085"},
		{"a\u2028b", "U+2028"},
		{"a\u2029b", "U+2029"},
		{"ring \a", "U+0007"},
		{"zero\u200bwidth", "U+200B"},
	} {
		for _, where := range []string{"tab", "desktop"} {
			t.Run(where+"/"+tc.says, func(t *testing.T) {
				var err error
				tool := "browser_press_key"
				if where == "tab" {
					_, err = f.agent.Act(context.Background(), agentdoor.ActRequest{Tab: f.tab, Ref: ref, Act: vocab.Act{Kind: vocab.Type, Text: tc.text}})
				} else {
					tool = "desktop_press_key"
					_, err = f.agent.DesktopAct(context.Background(), agentdoor.DesktopActRequest{Act: vocab.Act{Kind: vocab.Type, Text: tc.text}})
				}
				_, detail := refusedBeforeAsking(t, f.Engine, a, err, vocab.CodeHiddenKey)
				for _, want := range []string{tc.says, tool, "nothing was asked"} {
					if !strings.Contains(err.Error(), want) || !strings.Contains(detail, want) {
						t.Errorf("the refusal %q (audit: %q) does not say %q", err, detail, want)
					}
				}
			})
		}
	}
	// A line break is Enter, and the person is asked about it.
	if _, err := f.agent.Act(context.Background(), agentdoor.ActRequest{Tab: f.tab, Ref: ref, Act: vocab.Act{Kind: vocab.Type, Text: "one\r\ntwo\n"}}); err != nil {
		t.Fatalf("text with line breaks: %v", err)
	}
	if got := a.sentences(); len(got) != 1 || !strings.Contains(got[0], "“one⏎two⏎”") || !strings.Contains(got[0], "press Enter 2 times") {
		t.Errorf("the person was asked %q, want one question showing both line breaks and counting 2 Enters", got)
	}
}
