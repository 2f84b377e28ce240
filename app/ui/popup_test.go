package ui

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/internal/plain/plaintest"
	"github.com/reins-app/reins/vocab"
)

var t0 = time.Date(2025, 11, 29, 14, 0, 0, 0, time.UTC)

func click(id string, rememberable bool) vocab.Request {
	r := vocab.Request{ID: id, Agent: vocab.Agent{Name: "Claude Code", PID: 4121, Exe: "/usr/bin/claude"},
		Act: vocab.Act{Kind: vocab.Click}, Asked: t0, Rememberable: rememberable}
	r.Target.Tab, r.Target.Origin, r.Target.TabTitle, r.Target.Role, r.Target.Name = "1", "https://shop.example.com", "Cart — Shop", "button", "Place order"
	SetBox(&r, 10, 10, 80, 20)
	return r
}

type popupRig struct {
	eng    *FakeEngine
	clock  *FakeClock
	p      *Popup
	w      fyne.Window
	shown  int // OnShow calls
	hidden int // OnHide calls
}

func newPopupRig(t *testing.T, reqs ...vocab.Request) *popupRig {
	t.Helper()
	return newPopupRigOn(t, NewFakeEngine(), reqs...)
}

func newPopupRigOn(t *testing.T, eng *FakeEngine, reqs ...vocab.Request) *popupRig {
	t.Helper()
	testApp(t)
	r := &popupRig{eng: eng, clock: NewFakeClock(t0)}
	for _, q := range reqs {
		r.eng.Ask(q)
	}
	r.p = NewPopup(PopupOptions{Engine: r.eng, Clock: r.clock, Timeout: 30 * time.Second,
		OnShow: func() { r.shown++ }, OnHide: func() { r.hidden++ }})
	r.w = test.NewTempWindow(t, r.p.Content())
	r.w.Canvas().SetOnTypedKey(r.p.TypedKey)
	r.p.Sync(r.eng.Pending())
	return r
}

func (r *popupRig) answers(t *testing.T, want ...Answered) {
	t.Helper()
	got := r.eng.Answers()
	if len(got) != len(want) {
		t.Fatalf("answers = %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("answers = %v, want %v", got, want)
		}
	}
}

func TestEachButtonDeliversItsDecision(t *testing.T) {
	for _, tc := range []struct {
		button string
		want   vocab.Decision
	}{{"deny", vocab.Deny}, {"once", vocab.AllowOnce}, {"tab", vocab.AllowTab}} {
		t.Run(tc.button, func(t *testing.T) {
			r := newPopupRig(t, click("a1", true))
			r.clock.Advance(ArmDelay)
			test.Tap(r.p.button(tc.button))
			r.answers(t, Answered{ID: "a1", Decision: tc.want})
			if r.p.Len() != 0 || r.hidden == 0 {
				t.Fatalf("the popup still shows %d requests after the answer", r.p.Len())
			}
		})
	}
}

func TestAllowIsInertBeforeItArms(t *testing.T) {
	r := newPopupRig(t, click("a1", true))
	test.Tap(r.p.button("once"))
	test.Tap(r.p.button("tab"))
	r.clock.Advance(ArmDelay - time.Millisecond)
	test.Tap(r.p.button("once"))
	r.answers(t)
	if r.p.Armed() || !r.p.button("once").Disabled() {
		t.Fatal("Allow is enabled before the arming delay")
	}
	r.clock.Advance(time.Millisecond)
	if !r.p.Armed() || r.p.button("once").Disabled() {
		t.Fatal("Allow is still inert after the arming delay")
	}
	test.Tap(r.p.button("once"))
	r.answers(t, Answered{ID: "a1", Decision: vocab.AllowOnce})
}

func TestDenyWorksAtOnce(t *testing.T) {
	r := newPopupRig(t, click("a1", true))
	test.Tap(r.p.button("deny"))
	r.answers(t, Answered{ID: "a1", Decision: vocab.Deny})
}

func TestEscapeAndReturnDeny(t *testing.T) {
	for _, key := range []fyne.KeyName{fyne.KeyEscape, fyne.KeyReturn} {
		t.Run(string(key), func(t *testing.T) {
			r := newPopupRig(t, click("a1", true))
			r.clock.Advance(ArmDelay)
			r.w.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: key})
			r.answers(t, Answered{ID: "a1", Decision: vocab.Deny})
		})
	}
}

func TestAllowOnTabIsAbsentWhenNotRememberable(t *testing.T) {
	r := newPopupRig(t, click("a1", false))
	r.clock.Advance(ArmDelay)
	if r.p.button("tab").Visible() {
		t.Fatal(`"Allow 10 min" shows for an act that may not be remembered`)
	}
	r.p.decide(vocab.AllowTab) // even if something pressed it
	r.answers(t)
}

func TestQueueAdvancesOldestFirstAndReArms(t *testing.T) {
	r := newPopupRig(t, click("a1", true), click("a2", true), click("a3", true))
	if got := r.p.Current().ID; got != "a1" {
		t.Fatalf("shows %s first, want the oldest a1", got)
	}
	if got := richText(r.p.counter); got != "1 of 3" {
		t.Fatalf("counter = %q, want 1 of 3", got)
	}
	r.clock.Advance(ArmDelay)
	test.Tap(r.p.button("once"))
	r.clock.Advance(AllowRest)
	if got := r.p.Current().ID; got != "a2" {
		t.Fatalf("after answering a1 the popup shows %s, want a2", got)
	}
	if got := richText(r.p.counter); got != "1 of 2" {
		t.Fatalf("counter = %q, want 1 of 2", got)
	}
	if r.p.Armed() {
		t.Fatal("the next request's Allow is armed at once; a double click would approve it")
	}
	// The broker ends a2 (timeout): it leaves, and a3 shows without a counter.
	r.eng.End("a2", vocab.Deny)
	r.p.End("a2")
	if got := r.p.Current().ID; got != "a3" {
		t.Fatalf("after a2 ended the popup shows %s, want a3", got)
	}
	if got := richText(r.p.counter); got != "" {
		t.Fatalf("counter = %q with one request left", got)
	}
	r.answers(t, Answered{ID: "a1", Decision: vocab.AllowOnce})
}

func TestTimeoutLeavesTheDecisionToTheBroker(t *testing.T) {
	r := newPopupRig(t, click("a1", true))
	r.clock.Advance(31 * time.Second)
	r.answers(t) // the popup sends nothing; silence is the broker's deny
	if got := richText(r.p.remaining); got != "Denied automatically in 0:00" {
		t.Fatalf("countdown = %q", got)
	}
	r.eng.End("a1", vocab.Deny)
	r.p.End("a1")
	if r.p.Len() != 0 || r.hidden == 0 {
		t.Fatal("the popup did not close when the broker ended the request")
	}
}

func TestSecretTextIsNeverShown(t *testing.T) {
	req := click("a1", false)
	req.Act = vocab.Act{Kind: vocab.Type, Text: "hunter2-secret", Secret: true}
	req.Target.Role, req.Target.Name = "textbox", "Password"
	r := newPopupRig(t, req)
	got := richText(r.p.sentence)
	if want := "Type 14 characters into “Password”"; !strings.Contains(got, want) || strings.Contains(got, "hunter2") {
		t.Fatalf("sentence = %q, want %q and no secret", got, want)
	}
}

func TestFrameLineOnlyForAnotherOrigin(t *testing.T) {
	r := newPopupRig(t, click("a1", true))
	if r.p.frame.Visible() {
		t.Fatal("frame line shown for a top-frame target")
	}
	req := click("a2", true)
	req.Target.FrameOrigin = "https://pay.stripe.com"
	r2 := newPopupRig(t, req)
	if got := richText(r2.p.frame); !r2.p.frame.Visible() || got != "in a frame from pay.stripe.com" {
		t.Fatalf("frame line = %q", got)
	}
}

func richText(rt interface{ String() string }) string { return rt.String() }

func TestAHeldActSaysWhyItIsAskedAgain(t *testing.T) {
	r := newPopupRig(t, click("a1", true))
	if r.p.held.Visible() {
		t.Fatal("the held note shows for a first request")
	}
	again := click("a2", true)
	again.Busy = 1
	r2 := newPopupRig(t, again)
	if got := richText(r2.p.held); !r2.p.held.Visible() || !strings.Contains(got, "you were using the mouse or keyboard") {
		t.Fatalf("held note = %q (visible %v)", got, r2.p.held.Visible())
	}
}

func TestTheCountdownFollowsTheRequestsOwnDeadline(t *testing.T) {
	req := click("a1", true)
	req.Deadline = t0.Add(90 * time.Second) // given before the timeout was changed
	r := newPopupRig(t, req)
	if got := richText(r.p.remaining); got != "Denied automatically in 1:30" {
		t.Fatalf("countdown = %q, want the request's own 1:30", got)
	}
	r.p.SetDurations(10*time.Second, 10*time.Minute)
	r.clock.Advance(30 * time.Second)
	if got := richText(r.p.remaining); got != "Denied automatically in 1:00" {
		t.Fatalf("after the timeout changed, countdown = %q, want 1:00 left of the request's own time", got)
	}
}

// warningIn is the popup's red line for the request on screen, and
// whether it is drawn in red; "" when it shows none.
func warningIn(p *Popup) (text string, red bool) {
	for _, s := range p.sentence.Segments {
		if ts, ok := s.(*widget.TextSegment); ok && strings.HasPrefix(ts.Text, "⚠") {
			return ts.Text, ts.Style.ColorName == colorRed
		}
	}
	return "", false
}

// The warning the broker gives an act always asked on its own shows under
// the act, in red, and "allow on this tab" is not offered; an ordinary act
// shows none.
func TestARiskyActShowsItsWarning(t *testing.T) {
	plainReq := newPopupRig(t, click("a1", true))
	if w, _ := warningIn(plainReq.p); w != "" {
		t.Fatalf("an ordinary act shows a warning: %q", w)
	}
	const warning = "Its label says it buys, pays, sends or deletes, so it is asked every time. " +
		"The page or application wrote that label and Reins can miss such buttons: look before you allow."
	req := click("a2", false)
	req.Risk = warning
	r := newPopupRig(t, req)
	r.clock.Advance(ArmDelay)
	if got, red := warningIn(r.p); got != "⚠ "+warning || !red {
		t.Fatalf("warning = %q (red %v)", got, red)
	}
	if got := richText(r.p.sentence); !strings.HasPrefix(got, "Click “Place order”") {
		t.Fatalf("the act does not come first: %q", got)
	}
	if r.p.button("tab").Visible() {
		t.Fatal(`"allow on this tab" is offered beside the warning`)
	}
	r.w.Resize(PopupSize)
	var drawnWords []string
	for _, s := range drawn(r.w.Canvas()) {
		drawnWords = append(drawnWords, strings.Fields(s)...)
	}
	if all := strings.Join(drawnWords, " "); !strings.Contains(all, "The page or application wrote that label and Reins can miss such buttons: look before you allow.") {
		t.Fatalf("the popup does not draw the warning whole: %q", all)
	}
	// The next request, an ordinary one, drops the warning.
	r.eng.Ask(click("a3", true))
	r.p.Add(ptr(click("a3", true)))
	test.Tap(r.p.button("once"))
	r.clock.Advance(AllowRest)
	if r.p.Current() == nil || r.p.Current().ID != "a3" {
		t.Fatal("the ordinary request did not follow")
	}
	if w, _ := warningIn(r.p); w != "" {
		t.Fatalf("after the risky act, the ordinary one still shows the warning %q", w)
	}
}

// What the popup shows of a warning goes through the renderer, as all text
// does, whatever reached it.
func TestAWarningIsRenderedLikeAllText(t *testing.T) {
	req := hostileClick("a1")
	req.Rememberable = false
	req.Risk = plaintest.All
	r := newPopupRig(t, req)
	got, _ := warningIn(r.p)
	if want := "⚠ " + plain.Text(plaintest.All, plain.DetailMax); got != want {
		t.Fatalf("warning = %q, want %q", got, want)
	}
	plaintest.Check(t, "the warning", got, plain.DetailMax+2)
	checkPopup(t, r, "python3 (pid 999)")
}

func ptr(r vocab.Request) *vocab.Request { return &r }

// Text too long for the sentence, or with line breaks, can be read whole
// before Allow, each line break shown as ⏎; the sentence counts the Enters
// however much of the text it shows. A secret field's text is never shown.
func TestTheWholeTextCanBeReadBeforeAllow(t *testing.T) {
	tail := strings.Repeat("z", 3*plain.TypedMax)
	req := click("a1", false)
	req.Act = vocab.Act{Kind: vocab.Type, Text: "Dear shop,\r\n" + tail + "\nIBAN DE89 3704\n", Clear: true}
	req.Target.Role, req.Target.Name = "textbox", "Comment"
	r := newPopupRig(t, req)
	sentence := richText(r.p.sentence)
	if !strings.Contains(sentence, "Clear “Comment” and type “Dear shop,⏎zzz") || !strings.Contains(sentence, "and press Enter 3 times") {
		t.Errorf("sentence = %q, want the clearing, the first line break and 3 Enters", sentence)
	}
	if strings.Contains(sentence, "IBAN") {
		t.Errorf("the sentence was expected to cut the text: %q", sentence)
	}
	if !r.p.wholeArea.Visible() {
		t.Fatal("the whole text is not shown")
	}
	whole := richText(r.p.whole)
	for _, want := range []string{"Dear shop,⏎", tail, "IBAN DE89 3704⏎"} {
		if !strings.Contains(whole, want) {
			t.Errorf("the whole text lacks %.40q…", want)
		}
	}

	short := click("a2", false)
	short.Act = vocab.Act{Kind: vocab.Type, Text: "ada"}
	if r := newPopupRig(t, short); r.p.wholeArea.Visible() {
		t.Error("a short one-line text is shown twice")
	}
	secret := click("a3", false)
	secret.Act = vocab.Act{Kind: vocab.Type, Text: "hunter2\n" + tail, Secret: true}
	r = newPopupRig(t, secret)
	if r.p.wholeArea.Visible() || strings.Contains(richText(r.p.whole), "hunter2") {
		t.Error("a secret field's text is shown")
	}
	if got := richText(r.p.sentence); !strings.Contains(got, "and press Enter once") {
		t.Errorf("the secret field's sentence %q does not count its Enter", got)
	}
}
