package macwin

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/reins-app/reins/persondoor"
)

// A window's watch passes only the person's own click after it began: not
// a program's, not a key where keys count, not a press from before, and
// for the menu bar's menu, not an old one.
func TestAWindowTakesOnlyThePersonsOwnClick(t *testing.T) {
	now := time.Unix(1000, 0)
	log := &pressLog{now: func() time.Time { return now }}
	h := pressHand{log: log}
	judge := func(opts persondoor.PressOptions, presses func()) error {
		w, _ := h.WatchPresses(opts)
		presses()
		return w.PersonsClick(context.Background())
	}
	log.record(pressButton, true) // before any watch: never counts
	for _, c := range []struct {
		name    string
		opts    persondoor.PressOptions
		presses func()
		pass    bool
	}{
		{"nothing pressed", persondoor.PressOptions{}, func() {}, false},
		{"the person's click", persondoor.PressOptions{}, func() { log.record(pressButton, true) }, true},
		{"a program's click", persondoor.PressOptions{}, func() { log.record(pressButton, false) }, false},
		{"the person's click, then a program's", persondoor.PressOptions{}, func() { log.record(pressButton, true); log.record(pressButton, false) }, false},
		{"a key after the click, keys counted", persondoor.PressOptions{Keys: true}, func() { log.record(pressButton, true); log.record(pressKey, true) }, false},
		{"a key after the click, keys not counted", persondoor.PressOptions{}, func() { log.record(pressButton, true); log.record(pressKey, false) }, true},
		{"a key only", persondoor.PressOptions{Keys: true}, func() { log.record(pressKey, true) }, false},
		{"the menu, a recent click", persondoor.PressOptions{Within: time.Minute}, func() { log.record(pressButton, true); now = now.Add(30 * time.Second) }, true},
		{"the menu, an old click", persondoor.PressOptions{Within: time.Minute}, func() { log.record(pressButton, true); now = now.Add(2 * time.Minute) }, false},
	} {
		err := judge(c.opts, c.presses)
		if (err == nil) != c.pass {
			t.Errorf("%s: %v, want passed %v", c.name, err, c.pass)
		}
		if err != nil && !errors.Is(err, persondoor.ErrNotPersonsClick) {
			t.Errorf("%s: %v does not wrap ErrNotPersonsClick", c.name, err)
		}
	}
}
