package hotkey

import (
	"context"
	"testing"
	"time"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/internal/testrig/xvfb"
	"github.com/reins-app/reins/keychord"
	"github.com/reins-app/reins/vocab"
)

func TestPauseChordIsHeardAcrossTheDesktop(t *testing.T) {
	d := xvfb.StartT(t, "1280x800x24")
	x, err := executor.NewX11(executor.X11Options{Display: d.Display})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	ctx, cancel := context.WithCancel(context.Background())
	pressed := make(chan struct{}, 8)
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- Watch(ctx, Options{Chord: keychord.PauseChord, Display: d.Display,
			Pressed: func() { pressed <- struct{}{} }, Ready: func() { close(ready) }})
	}()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("the chord was not taken: %v", err)
	case <-time.After(5 * time.Second):
		t.Fatal("the watcher never got ready")
	}
	press := func(keys string) {
		t.Helper()
		if err := x.Fire(ctx, audit.TestOnlyTicket(vocab.Act{Kind: vocab.Key, Keys: keys}, audit.Landing{Scale: 1})); err != nil {
			t.Fatal(err)
		}
	}
	// Other chords on the same key are not it.
	press("Control+p")
	press("Control+Alt+p")
	press(keychord.PauseChord)
	select {
	case <-pressed:
	case <-time.After(3 * time.Second):
		t.Fatal("the pause chord was pressed but not heard")
	}
	select {
	case <-pressed:
		t.Fatal("a chord that is not the pause chord was heard as it")
	case <-time.After(300 * time.Millisecond):
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the watcher ended with %v", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("the watcher did not stop with its context")
	}
}
