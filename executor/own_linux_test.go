package executor

import (
	"errors"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/reins-app/reins/denylist"
	"github.com/reins-app/reins/internal/peercred"
	"github.com/reins-app/reins/vocab"
)

// ownedBy makes id's window claim the process pid, as _NET_WM_PID does.
func (w *witness) ownedBy(id xproto.Window, pid int) {
	w.t.Helper()
	v := make([]byte, 4)
	xgb.Put32(v, uint32(pid))
	must(w.t, xproto.ChangePropertyChecked(w.conn, xproto.PropModeReplace, id, w.atom("_NET_WM_PID"), xproto.AtomCardinal, 32, 1, v).Check())
}

// ownRig gives r's executor the rule of Reins' own windows and returns the
// pid of another program, whose windows are not Reins'.
func ownRig(t *testing.T, r *x11Rig) int {
	t.Helper()
	other := exec.Command("sleep", "600")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Process.Kill(); other.Wait() })
	r.ex.SetDenyList(append(denylist.Default(), OwnRule(peercred.Ancestry())))
	return other.Process.Pid
}

// Reins' own windows are known by the process behind them: a window of
// Reins (here, of this test process, which the executor runs in) refuses a
// click and typing whatever it is called, and a window called like Reins'
// approval popup but owned by another program is just a window. Each
// refusal fires no event at all.
func TestX11RefusesReinsOwnWindowsByProcessNotName(t *testing.T) {
	r := newX11Rig(t, startDisplay(t, 1))
	other := ownRig(t, r)

	notes := r.w.app("Notes", 100, 100, 300, 200)          // ours, innocently named
	popup := r.w.app("Reins approval", 500, 100, 300, 200) // another program's, named like Reins' popup
	r.w.ownedBy(popup, other)
	r.w.take()

	r.w.setActive(popup)
	for _, act := range []vocab.Act{{Kind: vocab.Click}, {Kind: vocab.DoubleClick}, {Kind: vocab.Scroll, DY: 2}} {
		evs, err := r.fire(t, act, 200, 150)
		if !errors.Is(err, ErrOwnWindow) || !errors.Is(err, ErrDenyListed) {
			t.Errorf("%s on Reins' own window: %v, want ErrOwnWindow", act.Kind, err)
		}
		if len(only(evs, "press", "release", "key", "keyup", "motion")) != 0 {
			t.Errorf("%s on Reins' own window sent %d events", act.Kind, len(evs))
		}
	}
	r.w.setActive(notes)
	evs, err := r.fire(t, vocab.Act{Kind: vocab.Type, Text: "allow a1234567\n"}, 0, 0)
	if !errors.Is(err, ErrOwnWindow) || typed(evs) != "" {
		t.Errorf("typing with Reins' window in front: %v, typed %q; want ErrOwnWindow and nothing", err, typed(evs))
	}

	r.w.setActive(popup)
	evs, err = r.fire(t, vocab.Act{Kind: vocab.Click}, 600, 150)
	if err != nil || len(only(evs, "press")) != 1 {
		t.Fatalf("a click on another program's window named like Reins: %v, %d presses", err, len(only(evs, "press")))
	}
}

// Reins' window coming to the front while an agent types stops the typing
// before the next key: the check runs before every key, not only the first.
func TestX11TypingStopsWhenReinsOwnWindowComesToTheFront(t *testing.T) {
	r := newX11Rig(t, startDisplay(t, 1))
	other := ownRig(t, r)
	editor := r.w.app("Editor", 100, 100, 300, 200)
	r.w.ownedBy(editor, other)
	terminal := r.w.app("Terminal", 500, 100, 300, 200) // ours: the terminal running reins serve
	r.w.setActive(editor)
	r.w.take()
	var once sync.Once
	r.w.setOnKey(func(xev) { once.Do(func() { r.w.setActive(terminal) }) })
	text := strings.Repeat("allow a1234567 ", 4)
	evs, err := r.fire(t, vocab.Act{Kind: vocab.Type, Text: text}, 0, 0)
	if !errors.Is(err, ErrOwnWindow) || !strings.Contains(err.Error(), "typing stopped") {
		t.Fatalf("Fire = %v, want a refusal saying typing stopped", err)
	}
	if got := typed(evs); len(got) == 0 || len(got) >= len(text) {
		t.Errorf("typed %q; want the keys before the terminal came to the front, and none after", got)
	}
	if err := balanced(evs); err != nil {
		t.Error(err)
	}
}
