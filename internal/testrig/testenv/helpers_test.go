package testenv

import (
	"io"
	"os"
	"os/exec"
	"testing"
	"time"
)

func TestDedentKeepsTheIndentationInsideTheText(t *testing.T) {
	got := Dedent(`
		- list
		  - item

		- other
	`)
	if want := "- list\n  - item\n\n- other\n"; got != want {
		t.Fatalf("Dedent = %q, want %q", got, want)
	}
}

func TestEventuallyAsksUntilTheConditionHoldsOrTimeIsUp(t *testing.T) {
	n := 0
	if !Eventually(Patience, func() bool { n++; return n == 5 }) || n != 5 {
		t.Fatalf("Eventually stopped after %d looks, want 5", n)
	}
	start := time.Now()
	if Eventually(20*time.Millisecond, func() bool { return false }) {
		t.Fatal("Eventually reported a condition that never held")
	}
	if took := time.Since(start); took < 20*time.Millisecond {
		t.Fatalf("Eventually gave up after %v, before its 20 ms", took)
	}
}

// A shell that ignores SIGTERM, with a child of its own: StopGroup says
// the shell outlived its grace, and leaves nothing of the group running.
// Both hold the pipe's writing end, so its end of file says both are gone.
func TestStopGroupEndsTheWholeGroup(t *testing.T) {
	sh := NeedCommand(t, "sh")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(sh, "-c", `trap "" TERM; sleep 60 & echo started; wait`)
	cmd.Stdout = w
	OwnGroup(cmd)
	err = cmd.Start()
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Read(make([]byte, 8)); err != nil {
		t.Fatalf("the shell did not start its child: %v", err)
	}
	if StopGroup(cmd, 50*time.Millisecond, func() { cmd.Wait() }) {
		t.Error("StopGroup reports a shell that ignores SIGTERM as ended within its grace")
	}
	closed := make(chan error, 1)
	go func() {
		_, err := io.ReadAll(r)
		closed <- err
	}()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(Patience):
		t.Fatal("timed out waiting for the shell's child to end with its group")
	}
}
