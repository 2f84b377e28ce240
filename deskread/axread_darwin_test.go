package deskread

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/internal/testrig/testenv"
)

// macDialogSecret is what the dialog's hidden-answer field holds.
const macDialogSecret = "Rx7-hunter2-secret"

// macAccessibleRig is the Mac reader and a dialog osascript shows of its
// own: a push button "Press me" and a secure text field (AppKit's
// NSSecureTextField, subrole AXSecureTextField) holding macDialogSecret.
type macAccessibleRig struct {
	m   *Mac
	pid int
}

func (r *macAccessibleRig) Reader() Reader { return r.m }

func (r *macAccessibleRig) Show(t *testing.T) accessibleApp {
	t.Helper()
	var last error
	if !testenv.Eventually(testenv.Patience, func() bool {
		tree, err := r.m.Accessible(t.Context(), r.pid)
		last = err
		return err == nil && tree.Find("push button", "Press me") != nil
	}) {
		t.Fatalf("the dialog did not show its button to Accessibility within %v: %v", testenv.Patience, last)
	}
	return accessibleApp{PID: r.pid, Button: "Press me", Secret: macDialogSecret}
}

// TestMacAccessibleContractNeedsAccessibility runs the Accessible contract
// against the Mac reader. macOS answers no Accessibility call of a
// process without the permission, which CI runners lack: the workflow runs
// it in a step of its own that may fail, and it skips, saying so, where
// the permission is missing.
func TestMacAccessibleContractNeedsAccessibility(t *testing.T) {
	trusted, _, err := executor.AccessibilityStatus()
	if err != nil {
		t.Fatal(err)
	}
	if !trusted {
		t.Skip("skipped: this process has no Accessibility permission (System Settings › Privacy & Security › Accessibility), without which macOS answers no AXUIElement call; grant it to the terminal running go test to run the contract")
	}
	m, err := NewMac()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	cmd := exec.Command("/usr/bin/osascript", "-e",
		`display dialog "Reins Accessible contract" default answer "`+macDialogSecret+`" with hidden answer buttons {"Cancel", "Press me"} default button "Press me" giving up after 300`)
	testenv.OwnGroup(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { testenv.StopGroup(cmd, 5*time.Second, func() { cmd.Wait() }) })
	live := axLive.Load()
	runAccessibleContract(t, func(t *testing.T) accessibleRig { return &macAccessibleRig{m: m, pid: cmd.Process.Pid} })
	if n := axLive.Load(); n != live {
		t.Errorf("%d element references left unreleased after the contract's reads", n-live)
	}
}

// TestMacCaptureIsRealOrRefused: without Screen Recording no picture is
// taken, and the refusal says how to give the permission; with it, the
// picture covers the screens at their scale.
func TestMacCaptureIsRealOrRefused(t *testing.T) {
	m, err := NewMac()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	allowed, err := ScreenRecordingStatus()
	if err != nil {
		t.Fatal(err)
	}
	pic, err := m.Capture(t.Context())
	if !allowed {
		if !errors.Is(err, ErrNoScreenRecording) || pic.Image != nil || !strings.Contains(err.Error(), "Screen & System Audio Recording") {
			t.Errorf("Capture without Screen Recording = %v, image %v; want ErrNoScreenRecording with the fix and no image", err, pic.Image != nil)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	displays, err := macDisplays()
	if err != nil {
		t.Fatal(err)
	}
	area, _ := captureArea(displays)
	b := pic.Image.Bounds()
	if pic.Scale < 1 || b.Dx() != int(area.Size.W*pic.Scale+0.5) || b.Dy() != int(area.Size.H*pic.Scale+0.5) {
		t.Errorf("picture %v at scale %g for %g×%g points", b, pic.Scale, area.Size.W, area.Size.H)
	}
}
