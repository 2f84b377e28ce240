package folderlock

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSecondTakeSaysWhoHoldsTheFolder(t *testing.T) {
	dir := t.TempDir()
	l, err := Take(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	_, err = Take(dir)
	var held *HeldError
	if !errors.As(err, &held) || !errors.Is(err, ErrHeld) {
		t.Fatalf("second Take = %v, want a *HeldError", err)
	}
	if held.Holder.PID != os.Getpid() || held.Holder.Exe == "" || held.Holder.Since.IsZero() {
		t.Errorf("holder = %+v, want this process", held.Holder)
	}
	for _, want := range []string{dir, "pid ", "since ", "quit it first", "REINS_DATA_DIR"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	h, ok, err := Holding(dir)
	if err != nil || !ok || h.PID != os.Getpid() {
		t.Errorf("Holding = %+v, %v, %v; want this process", h, ok, err)
	}
	// Looking did not take it away.
	if _, err := Take(dir); !errors.Is(err, ErrHeld) {
		t.Errorf("Take after Holding = %v, want ErrHeld", err)
	}
}

func TestReleasedFolderCanBeTakenAgain(t *testing.T) {
	dir := t.TempDir()
	l, err := Take(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := Holding(dir); ok || err != nil {
		t.Errorf("Holding after Release = %v, %v", ok, err)
	}
	l, err = Take(dir)
	if err != nil {
		t.Fatalf("Take after Release: %v", err)
	}
	l.Release()
}

func TestARecordWithoutALockBlocksNoOne(t *testing.T) {
	dir := t.TempDir()
	stale := `{"pid":1,"exe":"/usr/local/bin/reins","since":"2020-01-02T03:04:05Z"}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, File), []byte(stale), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := Holding(dir); ok || err != nil {
		t.Errorf("Holding with a stale record = %v, %v; want not held", ok, err)
	}
	l, err := Take(dir)
	if err != nil {
		t.Fatalf("Take over a stale record: %v", err)
	}
	defer l.Release()
	b, _ := os.ReadFile(filepath.Join(dir, File))
	if strings.Contains(string(b), `"pid":1,`) {
		t.Errorf("the stale record is still there: %s", b)
	}
}

func TestALinkInPlaceOfTheLockFileIsNotFollowed(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.WriteFile(target, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, File)); err != nil {
		t.Fatal(err)
	}
	if l, err := Take(dir); err == nil {
		l.Release()
		t.Error("Take followed a symbolic link")
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Errorf("the link's target was written: %q", b)
	}
}
