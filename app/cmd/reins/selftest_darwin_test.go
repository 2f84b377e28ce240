//go:build darwin

package main

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/persondoor"
)

// TestSelfTestOnThisMac runs the self-test on the Mac it runs on, through
// `reins serve`, whose terminal allows it as a person would type it. What
// needs no permission must pass: the test window shows, the approval is
// asked and recorded, the report is written and names each permission.
// What needs Accessibility, Screen Recording or Input Monitoring passes
// only where the Mac has given them; the table is logged either way, and
// copied, with the picture, into $REINS_SELFTEST_OUT when it is set.
func TestSelfTestOnThisMac(t *testing.T) {
	bin := reinsBinary(t)
	env := append(bareEnv(t, "LANG=en_US.UTF-8"), "USER="+os.Getenv("USER"), "TMPDIR="+os.TempDir())
	s := startServe(t, bin, env)
	if !s.outcome(t, 60*time.Second) {
		t.Fatalf("reins serve did not start: %s", s.stderr.String())
	}
	defer s.quit(t)

	cmd := exec.Command(bin, "selftest", "-json")
	cmd.Env = env
	testenv.OwnGroup(cmd)
	var stdout, stderr syncBuf
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{}) // closed once it has exited
	go func() {
		cmd.Wait()
		close(done)
	}()
	t.Cleanup(func() { testenv.KillGroup(cmd, func() { <-done }) })

	// The plan, as the terminal shows it; allowed whole.
	deadline := time.After(60 * time.Second)
	for allowed := false; !allowed; {
		select {
		case l, ok := <-s.lines:
			if !ok {
				t.Fatalf("reins serve ended before it asked: %s", s.stderr.String())
			}
			if id, found := strings.CutPrefix(l, "PLAN "); found {
				id = strings.Fields(id)[0]
				io.WriteString(s.stdin, "allow "+id+"\n")
				allowed = true
			}
		case <-deadline:
			t.Fatalf("the self-test was not put to the terminal within 60 s; reins selftest said %s", stderr.String())
		}
	}
	select {
	case <-done:
	case <-time.After(3 * time.Minute):
		t.Fatalf("reins selftest did not end within 3 minutes: %s", stderr.String())
	}
	var rep persondoor.SelfTestReport
	if err := json.Unmarshal([]byte(stdout.String()), &rep); err != nil {
		t.Fatalf("no report: %v\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
	}
	t.Logf("the self-test on this Mac (%s %s):\n%s", rep.Version, rep.Arch, persondoor.FormatSelfTest(rep))
	if out := os.Getenv("REINS_SELFTEST_OUT"); out != "" {
		for _, f := range []string{"selftest.json", "selftest-window.png"} {
			if b, err := os.ReadFile(filepath.Join(dataDirOf(env), f)); err == nil {
				os.MkdirAll(out, 0o755)
				os.WriteFile(filepath.Join(out, f), b, 0o644)
			}
		}
	}
	got := map[string]persondoor.SelfTestCheck{}
	for _, c := range rep.Checks {
		got[c.Name] = c
	}
	for _, name := range []string{"test window", "approval"} {
		if got[name].Result != persondoor.SelfTestPass {
			t.Errorf("%s: %+v", name, got[name])
		}
	}
	for _, name := range []string{"Accessibility permission", "Screen Recording permission", "Input Monitoring permission"} {
		if _, ok := got[name]; !ok {
			t.Errorf("the report says nothing of the %s", name)
		}
	}
}
