//go:build linux

package core_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/executor/hotkey"
	"github.com/reins-app/reins/internal/testrig/xvfb"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/settings"
	"github.com/reins-app/reins/vocab"
)

func TestThePauseChordCanBeChangedAndIsTakenBeforeTheOldOneGoes(t *testing.T) {
	x := xvfb.StartT(t, "1280x800x24")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	rt, err := core.Start(ctx, core.StartOptions{DataDir: dir, Executor: &executor.Fake{}, Display: x.Display, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	if err := rt.WatchPauseHotkey(ctx); err != nil {
		t.Fatalf("the default chord was not taken: %v", err)
	}
	keys, err := executor.NewX11(executor.X11Options{Display: x.Display})
	if err != nil {
		t.Fatal(err)
	}
	defer keys.Close()
	// pauses reports whether pressing chord pauses every agent.
	pauses := func(chord string) bool {
		t.Helper()
		rt.Pause(false)
		tk := audit.TestOnlyTicket(vocab.Act{Kind: vocab.Key, Keys: chord}, audit.Landing{Scale: 1})
		if err := keys.Fire(ctx, tk); err != nil {
			t.Fatalf("pressing %s: %v", chord, err)
		}
		for deadline := time.Now().Add(700 * time.Millisecond); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if rt.Paused() {
				return true
			}
		}
		return false
	}
	if !pauses("Control+Alt+Meta+P") {
		t.Fatal("the default chord does not pause")
	}

	if err := rt.SetPauseChord("ctrl+super+alt+escape"); err != nil {
		t.Fatal(err)
	}
	if got := rt.Settings().PauseChord; got != "Control+Alt+Meta+Escape" {
		t.Fatalf("the chord is saved as %q", got)
	}
	if b, err := os.ReadFile(filepath.Join(dir, settings.FileName)); err != nil || !strings.Contains(string(b), `"pauseChord": "Control+Alt+Meta+Escape"`) {
		t.Fatalf("the chord is not saved for the next start: %s, %v", b, err)
	}
	if pauses("Control+Alt+Meta+P") {
		t.Error("the old chord still pauses after the person chose another")
	}
	if !pauses("Control+Alt+Meta+Escape") {
		t.Fatal("the new chord does not pause")
	}

	// Another program holds the next chord: it is refused, the old one stays.
	held := make(chan struct{})
	go hotkey.Watch(ctx, hotkey.Options{Chord: "Control+Alt+Meta+F12", Display: x.Display,
		Pressed: func() {}, Ready: func() { close(held) }})
	<-held
	err = rt.SetPauseChord("Control+Alt+Meta+F12")
	if err == nil || !strings.Contains(err.Error(), "still Control+Alt+Meta+Escape") {
		t.Fatalf("taking a chord another program holds: %v", err)
	}
	if got := rt.Settings().PauseChord; got != "Control+Alt+Meta+Escape" {
		t.Fatalf("after the refusal the chord is %q", got)
	}
	if !pauses("Control+Alt+Meta+Escape") {
		t.Fatal("the old chord was let go although the new one could not be taken")
	}
	rows, err := rt.AuditRows(ctx, persondoor.AuditFilter{Act: string(vocab.Settings)})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 3 || rows[0].Outcome != vocab.OutcomeFailed || !strings.Contains(rows[0].Detail, "F12") {
		t.Fatalf("the failed change is not the newest settings row: %+v", rows)
	}

	// A chord that would take ordinary keys is refused before anything.
	if err := rt.SetPauseChord("Control+P"); err == nil {
		t.Fatal("Control+P was taken as the pause chord")
	}
}

func TestAPauseChordHeldElsewhereAtStartCanBeTakenLater(t *testing.T) {
	x := xvfb.StartT(t, "1280x800x24")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	other, release := context.WithCancel(ctx)
	held := make(chan struct{})
	go hotkey.Watch(other, hotkey.Options{Chord: core.DefaultPauseChord, Display: x.Display,
		Pressed: func() {}, Ready: func() { close(held) }})
	<-held
	rt, err := core.Start(ctx, core.StartOptions{DataDir: t.TempDir(), Executor: &executor.Fake{}, Display: x.Display, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	if err := rt.WatchPauseHotkey(ctx); err == nil {
		t.Fatal("a chord another program holds was taken")
	}
	if rt.PauseChordTaken() {
		t.Fatal("the chord is reported held")
	}
	release()
	// The other program lets go; choosing the same chord again takes it.
	deadline := time.Now().Add(5 * time.Second)
	for err = rt.SetPauseChord(core.DefaultPauseChord); err != nil && time.Now().Before(deadline); err = rt.SetPauseChord(core.DefaultPauseChord) {
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil || !rt.PauseChordTaken() {
		t.Fatalf("retaking the chord: %v, held %v", err, rt.PauseChordTaken())
	}
}
