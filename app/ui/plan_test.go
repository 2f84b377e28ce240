package ui

import (
	"image"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/reins-app/reins/internal/plain/plaintest"
	"github.com/reins-app/reins/vocab"
)

// planRequest is a plan of three steps on the shop: a name typed, a
// password typed, Place order clicked.
func planRequest(id string) vocab.Request {
	tgt := func(ref, role, name string, y float64) vocab.Target {
		return vocab.Target{Tab: "1", Origin: "https://shop.example.com", TabTitle: "Checkout — Shop", Ref: ref, Role: role, Name: name}
	}
	r := vocab.Request{ID: id, Agent: vocab.Agent{Name: "Claude Code", PID: 4121, Exe: "/usr/bin/claude"}, Asked: t0,
		Act:    vocab.Act{Kind: vocab.Plan, Text: "Fill in the delivery address", Steps: 3},
		Target: vocab.Target{Tab: "1", Origin: "https://shop.example.com", TabTitle: "Checkout — Shop"},
		Plan: []vocab.PlanStep{
			{Act: vocab.Act{Kind: vocab.Type, Text: "Ada Lovelace"}, Target: tgt("e1", "textbox", "Name", 10), Reason: "the name on the order", Box: &vocab.Box{X: 10, Y: 10, W: 80, H: 20}},
			{Act: vocab.Act{Kind: vocab.Type, Text: "hunter2", Secret: true}, Target: tgt("e2", "textbox", "Password", 40), Risk: "Typing into a password or payment field is asked every time; only the length is shown.", Box: &vocab.Box{X: 10, Y: 40, W: 80, H: 20}},
			{Act: vocab.Act{Kind: vocab.Click}, Target: tgt("e3", "button", "Place order", 70), Risk: "Its label says it buys.", Box: &vocab.Box{X: 10, Y: 70, W: 80, H: 20}},
		}}
	return r
}

func TestAPlanShowsEveryStepAndItsRisks(t *testing.T) {
	r := newPopupRig(t, planRequest("p1"))
	r.w.Resize(PopupSize)
	steps := r.p.steps.String()
	for _, want := range []string{"1  Type “Ada Lovelace” into “Name”", "2  Type 7 characters into “Password”", "⚠ asked on its own: Typing into a password", "3  Click “Place order”", "the agent says “the name on the order”"} {
		if !strings.Contains(steps, want) {
			t.Errorf("the steps do not say %q:\n%s", want, steps)
		}
	}
	if strings.Contains(steps, "hunter2") {
		t.Fatal("the popup shows a password's text")
	}
	if act := r.p.sentence.String(); !strings.Contains(act, "Run a plan of 3 steps") || !strings.Contains(act, "the agent says “Fill in the delivery address”") {
		t.Errorf("the plan's header reads %q", act)
	}
	if !r.p.planArea.Visible() || r.p.pictureArea.Visible() || r.p.button("tab").Visible() {
		t.Error("a plan shows the single act's picture or its allow-on-this-tab button")
	}
	if got := r.p.button("once").Text; got != "Allow all 3 steps" {
		t.Errorf("the Allow button reads %q", got)
	}
}

func TestAPlanIsAllowedWholeOrUpToAStep(t *testing.T) {
	r := newPopupRig(t, planRequest("p1"))
	test.Tap(r.p.button("once"))
	r.answers(t) // not armed yet
	r.clock.Advance(ArmDelay)
	r.p.upTo.SetSelected("Up to step 2")
	if got := r.p.button("once").Text; got != "Allow steps 1–2" {
		t.Errorf("the Allow button reads %q", got)
	}
	test.Tap(r.p.button("once"))
	r.answers(t, Answered{ID: "p1", Decision: vocab.AllowOnce, UpTo: 2})

	r = newPopupRig(t, planRequest("p2"))
	r.clock.Advance(ArmDelay)
	test.Tap(r.p.button("once"))
	r.answers(t, Answered{ID: "p2", Decision: vocab.AllowOnce, UpTo: 3})

	r = newPopupRig(t, planRequest("p3"))
	test.Tap(r.p.button("deny"))
	r.answers(t, Answered{ID: "p3", Decision: vocab.Deny})
}

func TestAHostilePlanIsShownTamed(t *testing.T) {
	req := planRequest("p1")
	req.Agent = hostileAgent
	req.Act.Text = plaintest.All
	for i := range req.Plan {
		req.Plan[i].Reason = plaintest.All
		req.Plan[i].Target.Name = plaintest.All
	}
	r := newPopupRig(t, req)
	checkPopup(t, r, "python3 (pid 999)")
	for i, s := range r.p.steps.Segments {
		plaintest.Check(t, "step segment "+string(rune('0'+i)), s.Textual(), 0)
	}
}

func TestAPlansPictureNumbersEachTarget(t *testing.T) {
	sk := &vocab.Sketch{W: 400, H: 300}
	// The numbers are drawn in white, which the sketch has nowhere else:
	// each target in view adds its number's pixels; a step not in view
	// adds none.
	var white []int
	for _, boxes := range [][]*box{{nil, nil}, {{10, 10, 80, 20}, nil}, {{10, 10, 80, 20}, nil, {10, 200, 80, 20}}} {
		img := renderPlanPicture(nil, boxes, sk)
		if img == nil {
			t.Fatal("no picture from a sketch")
		}
		white = append(white, whitePixels(img))
	}
	if !(white[0] == 0 && white[1] > 0 && white[2] > white[1]) {
		t.Fatalf("white pixels with 0, 1 and 2 numbered targets: %v", white)
	}
	if renderPlanPicture(nil, []*box{{10, 10, 80, 20}}, nil) != nil {
		t.Fatal("a picture without capture or sketch")
	}
}

func whitePixels(img image.Image) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if r, g, bl, _ := img.At(x, y).RGBA(); r == 0xffff && g == 0xffff && bl == 0xffff {
				n++
			}
		}
	}
	return n
}

// A plan's step that presses Enter says so whatever the length of its
// text, and its text can be read whole.
func TestAPlanStepShowsItsEntersAndItsWholeText(t *testing.T) {
	req := planRequest("p1")
	long := strings.Repeat("w", 250)
	req.Plan[0].Act = vocab.Act{Kind: vocab.Type, Text: long + "\n4900\n"}
	r := newPopupRig(t, req)
	steps := r.p.steps.String()
	for _, want := range []string{"and press Enter 2 times", long + "⏎", "4900⏎"} {
		if !strings.Contains(steps, want) {
			t.Errorf("the steps do not say %.60q:\n%.600s", want, steps)
		}
	}
}
