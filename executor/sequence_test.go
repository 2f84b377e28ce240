package executor

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/vocab"
)

// fakeWithPointer is a Fake whose pointer rests at (x, y).
func fakeWithPointer(x, y float64) *Fake {
	f := &Fake{}
	f.ptr = point{x, y}
	return f
}

// lines is want, a step a line, without the indentation of the source.
func lines(want string) string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(want), "\n") {
		out = append(out, strings.TrimSpace(l))
	}
	return strings.Join(out, "\n")
}

// checkSteps compares what the fake desktop was asked and sent with want.
func checkSteps(t *testing.T, f *Fake, want string) {
	t.Helper()
	if got := strings.Join(f.steps(), "\n"); got != lines(want) {
		t.Errorf("steps:\n%s\n\nwant:\n%s", got, lines(want))
	}
}

// failStep makes the fake desktop fail the step written as line with err,
// the first times times (every time when times is negative).
func failStep(f *Fake, line string, err error, times int) {
	f.testOnlyStep = func(l string) error {
		if l != line || times == 0 {
			return nil
		}
		times--
		return err
	}
}

func fire(ctx context.Context, f *Fake, act vocab.Act, x, y float64) error {
	return f.Fire(ctx, audit.TestOnlyTicket(act, audit.Landing{X: x, Y: y}))
}

func TestSequenceChecksRightBeforeFiringAndPutsThePointerBack(t *testing.T) {
	f := fakeWithPointer(7, 9)
	if err := fire(context.Background(), f, vocab.Act{Kind: vocab.DoubleClick}, 150, 200); err != nil {
		t.Fatal(err)
	}
	checkSteps(t, f, `
		front?
		app at 150,200?
		move 150,200
		wait 20ms
		down left 1
		wait 15ms
		up left 1
		wait 60ms
		down left 2
		wait 15ms
		up left 2
		move 7,9`)
}

func TestSequenceStoppedPartWayLetsGoOfWhatItHolds(t *testing.T) {
	t.Run("a drag cancelled with the button down", func(t *testing.T) {
		f := fakeWithPointer(7, 9)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		f.testOnlyStep = func(line string) error {
			if line == "drag 120,200" {
				cancel() // the person pauses Reins
			}
			return nil
		}
		tk := audit.TestOnlyTicket(vocab.Act{Kind: vocab.Drag}, audit.Landing{X: 100, Y: 200, X2: 200, Y2: 200})
		if err := f.Fire(ctx, tk); !errors.Is(err, context.Canceled) {
			t.Fatalf("Fire = %v, want context.Canceled", err)
		}
		// The button comes up where the drag stopped, and the pointer stays
		// there: a stopped act is not done.
		checkSteps(t, f, `
			front?
			app at 100,200?
			app at 200,200?
			move 100,200
			wait 20ms
			down left 1
			wait 15ms
			drag 110,200
			wait 15ms
			drag 120,200
			up left 1`)
		if n := len(f.Fired()); n != 0 {
			t.Errorf("%d acts recorded for a stopped one", n)
		}
	})

	t.Run("a chord whose key is dropped with its modifiers down", func(t *testing.T) {
		f := &Fake{}
		dropped := errors.New("the key was dropped")
		failStep(f, "key down k", dropped, 1)
		if err := fire(context.Background(), f, vocab.Act{Kind: vocab.Key, Keys: "Control+Shift+K"}, 0, 0); !errors.Is(err, dropped) {
			t.Fatalf("Fire = %v, want the dropped key's error", err)
		}
		// The key may have gone down all the same: it is let go of too.
		checkSteps(t, f, `
			front?
			key down Control
			key down Shift
			key up k
			key up Shift
			key up Control`)
	})

	t.Run("typing cancelled on a lent key", func(t *testing.T) {
		f := &Fake{}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		f.testOnlyStep = func(line string) error {
			if line == "key down spare0" {
				cancel()
			}
			return nil
		}
		if err := fire(ctx, f, vocab.Act{Kind: vocab.Type, Text: "é"}, 0, 0); !errors.Is(err, context.Canceled) {
			t.Fatalf("Fire = %v, want context.Canceled", err)
		}
		checkSteps(t, f, `
			lend spare0 to 'é'
			wait 50ms
			front?
			front?
			key down spare0
			key up spare0
			wait 50ms
			give back spare0`)
		if lent := f.lentNow(); len(lent) != 0 {
			t.Errorf("still lent after the act: %v", lent)
		}
	})
}

func TestSequenceChecksTheFrontBeforeEveryKey(t *testing.T) {
	f := &Fake{}
	f.SetFrontmost(App{Name: "Chromium"})
	f.testOnlyStep = func(line string) error {
		if line == "key up b" {
			f.SetFrontmost(App{Name: "KeePassXC"}) // its prompt pops up
		}
		return nil
	}
	err := fire(context.Background(), f, vocab.Act{Kind: vocab.Type, Text: "abc", Submit: true}, 0, 0)
	if !errors.Is(err, ErrDenyListed) || !strings.Contains(err.Error(), "KeePassXC came to the front") || !strings.Contains(err.Error(), "after 2 of 3 keys") {
		t.Fatalf("Fire = %v, want ErrDenyListed saying KeePassXC came to the front after 2 of 3 keys", err)
	}
	checkSteps(t, f, `
		front?
		front?
		key down a
		wait 10ms
		key up a
		front?
		key down b
		wait 10ms
		key up b
		front?`)
}

// Typing keeps its pace: each key of the text held for the pace's hold,
// and the pace's gap between one key's release and the next key's press,
// Enter included; the chord that clears the field is held as a key act's
// is; the checks before each key stay where they were.
func TestTypingKeepsItsPace(t *testing.T) {
	f := &Fake{}
	ctx := WithKeyPace(context.Background(), KeyPace{Hold: 2 * time.Millisecond, Gap: 3 * time.Millisecond})
	if err := fire(ctx, f, vocab.Act{Kind: vocab.Type, Text: "aB", Clear: true, Submit: true}, 0, 0); err != nil {
		t.Fatal(err)
	}
	checkSteps(t, f, `
		front?
		front?
		key down Control
		key down a
		wait 10ms
		key up a
		key up Control
		front?
		key down Backspace
		wait 10ms
		key up Backspace
		front?
		key down a
		wait 2ms
		key up a
		wait 3ms
		front?
		key down B
		wait 2ms
		key up B
		wait 3ms
		front?
		key down Enter
		wait 2ms
		key up Enter`)
}

func TestSequenceLendsKeyCodesInRoundsAndGivesThemBack(t *testing.T) {
	f := &Fake{}
	// Three characters the fake keyboard lacks, and two spare key codes.
	if err := fire(context.Background(), f, vocab.Act{Kind: vocab.Type, Text: "éüö"}, 0, 0); err != nil {
		t.Fatal(err)
	}
	checkSteps(t, f, `
		lend spare0 to 'é'
		lend spare1 to 'ü'
		wait 50ms
		front?
		front?
		key down spare0
		wait 10ms
		key up spare0
		front?
		key down spare1
		wait 10ms
		key up spare1
		front?
		lend spare0 to 'ö'
		wait 50ms
		key down spare0
		wait 10ms
		key up spare0
		wait 50ms
		give back spare0
		give back spare1`)
}

func TestSequenceKeepsTryingToGiveBackAKeyCode(t *testing.T) {
	refused := errors.New("the server refused")
	t.Run("given back before the next act", func(t *testing.T) {
		f := &Fake{}
		failStep(f, "give back spare0", refused, 1)
		err := fire(context.Background(), f, vocab.Act{Kind: vocab.Type, Text: "é"}, 0, 0)
		if !errors.Is(err, refused) || !strings.Contains(err.Error(), "the act was done, but key codes [768] still type") {
			t.Fatalf("Fire = %v, want the act done but key code 768 still lent", err)
		}
		if n := len(f.Fired()); n != 1 {
			t.Errorf("%d acts recorded, want the one that was typed", n)
		}
		if lent := f.lentNow(); len(lent) != 1 {
			t.Errorf("lent after the act: %v, want the code that could not be given back", lent)
		}
		f.steps()
		if err := fire(context.Background(), f, vocab.Act{Kind: vocab.Hover}, 10, 10); err != nil {
			t.Fatal(err)
		}
		checkSteps(t, f, `
			give back spare0
			front?
			app at 10,10?
			move 10,10`)
		if lent := f.lentNow(); len(lent) != 0 {
			t.Errorf("still lent: %v", lent)
		}
	})

	t.Run("said again at Close while it cannot be", func(t *testing.T) {
		f := &Fake{}
		failStep(f, "give back spare0", refused, -1)
		if err := fire(context.Background(), f, vocab.Act{Kind: vocab.Type, Text: "é"}, 0, 0); !errors.Is(err, refused) {
			t.Fatalf("Fire = %v, want the refusal", err)
		}
		// Other acts go on meanwhile: the code is lent to no key of theirs.
		if err := fire(context.Background(), f, vocab.Act{Kind: vocab.Click}, 10, 10); err != nil {
			t.Errorf("a click after the failed give-back = %v", err)
		}
		if err := f.Close(); !errors.Is(err, refused) || !strings.Contains(err.Error(), "[768]") {
			t.Errorf("Close = %v, want key code 768 named as still lent", err)
		}
	})
}

func TestSequenceFiresNothingOnceClosed(t *testing.T) {
	f := &Fake{}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := fire(context.Background(), f, vocab.Act{Kind: vocab.Click}, 10, 10); !errors.Is(err, errClosed) {
		t.Errorf("Fire after Close = %v, want errClosed", err)
	}
	if _, err := f.LastInput(context.Background()); !errors.Is(err, errClosed) {
		t.Errorf("LastInput after Close = %v, want errClosed", err)
	}
	checkSteps(t, f, ``)
}

// The witness is asked once the pointer is at the act's point, before any
// press, and its yes stands for the wait there: a no stops the act and puts
// the pointer back; a pointer
// already at the point is moved off it first, so that the page sees it
// arrive.
func TestSequenceAsksTheWitnessBeforePressing(t *testing.T) {
	no := errors.New("the pointer is over html, not the button")
	t.Run("a no presses nothing", func(t *testing.T) {
		f := fakeWithPointer(7, 9)
		var asked []point
		ctx := WithWitness(context.Background(), func(ctx context.Context, x, y float64) error {
			asked = append(asked, point{x, y})
			f.step("witness?")
			return no
		})
		err := fire(ctx, f, vocab.Act{Kind: vocab.Click}, 150, 200)
		if !errors.Is(err, ErrNotThere) || !errors.Is(err, no) {
			t.Fatalf("Fire = %v, want ErrNotThere wrapping the witness's no", err)
		}
		if len(asked) != 1 || asked[0] != (point{150, 200}) {
			t.Errorf("witness asked at %v, want once at the plan's point 150,200", asked)
		}
		checkSteps(t, f, `
			front?
			app at 150,200?
			move 150,200
			witness?
			move 7,9`)
	})
	t.Run("a yes lets the act go on, asked once", func(t *testing.T) {
		f := fakeWithPointer(150, 200)
		ctx := WithWitness(context.Background(), func(ctx context.Context, x, y float64) error {
			f.step("witness?")
			return nil
		})
		if err := fire(ctx, f, vocab.Act{Kind: vocab.Type, Text: "a"}, 150, 200); err != nil {
			t.Fatal(err)
		}
		got := strings.Join(f.steps(), "\n")
		if !strings.Contains(got, lines(`
			move 151,200
			move 150,200
			witness?
			down left 1`)) || strings.Count(got, "witness?") != 1 {
			t.Errorf("steps:\n%s\nwant the pointer moved off and back, then one witness before the click", got)
		}
	})
	t.Run("the pointer goes back even when the act's context ended", func(t *testing.T) {
		f := fakeWithPointer(7, 9)
		ctx, cancel := context.WithCancel(context.Background())
		ctx = WithWitness(ctx, func(context.Context, float64, float64) error {
			cancel() // the person paused while the frame was asked
			return context.Canceled
		})
		if err := fire(ctx, f, vocab.Act{Kind: vocab.Click}, 150, 200); !errors.Is(err, ErrNotThere) {
			t.Fatalf("Fire = %v, want ErrNotThere", err)
		}
		if steps := f.steps(); steps[len(steps)-1] != "move 7,9" {
			t.Errorf("steps end %q, want the pointer back at 7,9", steps[len(steps)-1])
		}
	})
	t.Run("a hover is not held back", func(t *testing.T) {
		f := fakeWithPointer(7, 9)
		ctx := WithWitness(context.Background(), func(ctx context.Context, x, y float64) error { return no })
		if err := fire(ctx, f, vocab.Act{Kind: vocab.Hover}, 150, 200); err != nil {
			t.Errorf("hover = %v: a hover presses nothing, so nothing waits on the witness", err)
		}
	})
}

// A field cleared before typing is cleared only while nothing deny-listed
// is in front: the click that focuses it may bring a password manager's
// prompt up, and select-all then Backspace would land there.
func TestTheClearingChordIsCheckedAsEveryTypedKeyIs(t *testing.T) {
	f := fakeWithPointer(7, 9)
	f.testOnlyStep = func(line string) error {
		if line == "up left 1" {
			f.SetFrontmost(App{Name: "1Password", Exe: "/opt/1Password/1password", PID: 77})
		}
		return nil
	}
	err := fire(context.Background(), f, vocab.Act{Kind: vocab.Type, Text: "5000", Clear: true}, 150, 200)
	if !errors.Is(err, ErrDenyListed) {
		t.Fatalf("clearing with 1Password in front: %v", err)
	}
	for _, l := range f.steps() {
		if strings.HasPrefix(l, "key down") {
			t.Errorf("%q was sent with 1Password in front", l)
		}
	}
}

// After the click that focuses a field, typing starts once the field's page
// says the focus is there, and waits the whole focusWait only when it
// cannot tell.
func TestTypingWaitsForTheFocusTheClickPuts(t *testing.T) {
	for _, tc := range []struct {
		name string
		says error
		want string
	}{
		{"the page sees it arrive", nil, "focus?\nfront?\nkey down a"},
		{"the page cannot tell", errors.New("the frame went away"), "focus?\nwait the rest\nfront?\nkey down a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := fakeWithPointer(7, 9)
			ctx := WithFocusWitness(context.Background(), func(ctx context.Context, within time.Duration) (bool, error) {
				if within != focusWait {
					t.Errorf("asked to wait %s for the focus, want %s", within, focusWait)
				}
				f.step("focus?")
				return tc.says == nil, tc.says
			})
			if err := fire(ctx, f, vocab.Act{Kind: vocab.Type, Text: "a"}, 150, 200); err != nil {
				t.Fatal(err)
			}
			// What is left of focusWait once the page was asked.
			got := regexp.MustCompile(`focus\?\nwait [0-9.]+[µm]?s`).ReplaceAllString(strings.Join(f.steps(), "\n"), "focus?\nwait the rest")
			if !strings.Contains(got, "up left 1\n"+tc.want) {
				t.Errorf("steps:\n%s\nwant after the click:\n%s", got, tc.want)
			}
		})
	}
}
