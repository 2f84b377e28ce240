package executor

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/reins-app/reins/executor/xdesk"
	"github.com/reins-app/reins/internal/testrig/testenv"
)

// guardHelperEnv, when set, makes this test binary the release guard's
// helper on the display it names (TestReleaseGuardHelper).
const guardHelperEnv = "REINS_TEST_RELEASE_GUARD_DISPLAY"

// TestReleaseGuardHelper is not a test: run by a Guard as its helper, it
// serves the release guard on stdin and stdout and exits.
func TestReleaseGuardHelper(t *testing.T) {
	display := os.Getenv(guardHelperEnv)
	if display == "" {
		t.Skip("only a helper, started by the release guard's tests")
	}
	if _, err := ServeGuard(os.Stdin, os.Stdout, display); err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}

// startTestGuard starts a Guard whose helper is this test binary.
func startTestGuard(t *testing.T, display string) *Guard {
	t.Setenv(guardHelperEnv, display)
	g := StartGuard(GuardOptions{Program: os.Args[0], Args: []string{"-test.run=^TestReleaseGuardHelper$"}, Logf: t.Logf})
	t.Cleanup(func() { g.Close() })
	if g.PID() == 0 {
		t.Fatalf("the helper did not start: %v", g.ready())
	}
	return g
}

// dies ends g's pipe as the kernel does when Reins dies: nothing more is
// said, and nothing is let go of by Reins.
func (g *Guard) dies(t *testing.T) {
	g.mu.Lock()
	p := g.proc
	g.closed = true
	g.mu.Unlock()
	p.in.Close()
	<-p.exited
}

// x11State is what the X server holds down and what a key code types.
func x11State(t *testing.T, display string, code xproto.Keycode) (down map[int]bool, sym xproto.Keysym) {
	t.Helper()
	c, err := xgb.NewConnDisplay(display)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	codes, err := xdesk.KeysDown(display)
	if err != nil {
		t.Fatal(err)
	}
	down = map[int]bool{}
	for _, k := range codes {
		down[k] = true
	}
	m, err := xproto.GetKeyboardMapping(c, code, 1).Reply()
	if err != nil {
		t.Fatal(err)
	}
	return down, m.Keysyms[0]
}

// pressOnX presses key code and lends spare the character →, telling g
// first, as the fire sequence does, and returns the two codes.
func pressOnX(t *testing.T, x *X11, g *Guard) (code, spare xproto.Keycode) {
	t.Helper()
	km, err := x.keymap()
	if err != nil {
		t.Fatal(err)
	}
	x.keyPer = km.per
	code, _, ok := km.find(runeKeysym('g'))
	if !ok {
		t.Fatal("no key types g")
	}
	spare = km.spares()[0]
	for _, step := range []func() error{
		func() error { return g.pressing(press{kind: pressLent, code: uint16(spare)}) },
		func() error { return x.lend(loan{code: uint16(spare), sym: uint32(runeKeysym('→'))}) },
		func() error { return g.pressing(press{kind: pressKey, code: uint16(code)}) },
		func() error { return x.post(event{kind: keyDown, key: key{code: uint16(code)}}) },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	return code, spare
}

func TestTheReleaseGuardLetsGoWhenReinsDies(t *testing.T) {
	d := startDisplay(t, 1)
	x, err := NewX11(X11Options{Display: d.srv.Display})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()

	t.Run("Reins dies", func(t *testing.T) {
		g := startTestGuard(t, d.srv.Display)
		code, spare := pressOnX(t, x, g)
		if down, sym := x11State(t, d.srv.Display, spare); !down[int(code)] || sym != runeKeysym('→') {
			t.Fatalf("before: key %d down %v, spare %d types %#x", code, down[int(code)], spare, sym)
		}
		g.dies(t)
		down, sym := x11State(t, d.srv.Display, spare)
		if len(down) != 0 || sym != 0 {
			t.Errorf("after the helper let go: keys %v down, spare %d types %#x", down, spare, sym)
		}
	})

	t.Run("the helper is killed, then Reins dies", func(t *testing.T) {
		g := startTestGuard(t, d.srv.Display)
		code, spare := pressOnX(t, x, g)
		first := g.PID()
		syscall.Kill(first, syscall.SIGKILL)
		// Another helper starts at once and is told what is held.
		testenv.WaitFor(t, "another helper", func() bool { p := g.PID(); return p != 0 && p != first })
		g.dies(t)
		down, sym := x11State(t, d.srv.Display, spare)
		if down[int(code)] || sym != 0 {
			t.Errorf("after the second helper let go: keys %v down, spare %d types %#x", down, spare, sym)
		}
	})

	t.Run("Reins closes", func(t *testing.T) {
		g := startTestGuard(t, d.srv.Display)
		pid := g.PID()
		if err := g.Close(); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Kill(pid, 0); err == nil {
			t.Errorf("the helper %d outlived Close", pid)
		}
	})
}

func TestLeftoversAreLetGoOfAsReinsStarts(t *testing.T) {
	d := startDisplay(t, 1)
	// A client that presses and leaves, as a killed Reins does.
	gone, err := NewX11(X11Options{Display: d.srv.Display})
	if err != nil {
		t.Fatal(err)
	}
	km, err := gone.keymap()
	if err != nil {
		t.Fatal(err)
	}
	code, _, _ := km.find(runeKeysym('g'))
	if err := gone.post(event{kind: keyDown, key: key{code: uint16(code)}}); err != nil {
		t.Fatal(err)
	}
	// It lent a key code too, and recorded it under a pid no process has.
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	name := lentPrefix + strconv.Itoa(dead.Process.Pid)
	atom, err := xproto.InternAtom(gone.conn, false, uint16(len(name)), name).Reply()
	if err != nil {
		t.Fatal(err)
	}
	gone.lent.atom = atom.Atom
	gone.keyPer = km.per
	spare := km.spares()[0]
	if err := gone.lend(loan{code: uint16(spare), sym: uint32(runeKeysym('→'))}); err != nil {
		t.Fatal(err)
	}
	// And so did a Reins that still runs: this one.
	mine := km.spares()[1]
	gone.lent.atom = 0
	if err := gone.lend(loan{code: uint16(mine), sym: uint32(runeKeysym('←'))}); err != nil {
		t.Fatal(err)
	}
	if err := gone.post(event{kind: buttonDown, button: leftButton}); err != nil {
		t.Fatal(err)
	}
	gone.conn.Close()
	if down, _ := x11State(t, d.srv.Display, code); !down[int(code)] {
		t.Fatalf("key %d is not held after its client left", code)
	}

	x, err := NewX11(X11Options{Display: d.srv.Display})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	left, err := LetGoOfLeftovers(x)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 3 {
		t.Errorf("let go of %q, want a key, button 1 and a lent key code", left)
	}
	if down, _ := x11State(t, d.srv.Display, code); len(down) != 0 {
		t.Errorf("keys %v still down", down)
	}
	if _, sym := x11State(t, d.srv.Display, spare); sym != 0 {
		t.Errorf("the key code the stopped Reins lent still types %#x", sym)
	}
	if _, sym := x11State(t, d.srv.Display, mine); sym != runeKeysym('←') {
		t.Errorf("the key code a running Reins lent was given back (%#x)", sym)
	}
	if left, err := LetGoOfLeftovers(x); err != nil || len(left) != 0 {
		t.Errorf("a second look let go of %q (%v)", left, err)
	}
	if left, err := LetGoOfLeftovers(&Fake{}); err != nil || left != nil {
		t.Errorf("the fake let go of %q (%v)", left, err)
	}
}
