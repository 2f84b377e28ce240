package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/reins-app/reins/persondoor"
)

// reins selftest with no Reins running says where the test runs and how to
// start it, and fails.
func TestSelfTestSaysWhenReinsIsNotRunning(t *testing.T) {
	bin := reinsBinary(t)
	_, stderr, err := run(t, bin, bareEnv(t), nil, "selftest")
	if err == nil {
		t.Fatal("reins selftest succeeded with no Reins running")
	}
	for _, want := range []string{"Reins is not running", "reins serve", "Run self-test…"} {
		if !strings.Contains(string(stderr), want) {
			t.Errorf("it said %q, without %q", stderr, want)
		}
	}
}

// A `reins serve` with no display runs the self-test's reading checks on
// `reins selftest`'s asking, says that nothing could be fired, and keeps
// the report in its data folder; nothing is put to the person.
func TestSelfTestWithoutADisplaySaysSoAndReadsTheRest(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("a Reins without a display is Linux's")
	}
	bin := reinsBinary(t)
	env := bareEnv(t, "LANG=C.UTF-8")
	s := startServe(t, bin, env)
	if !s.outcome(t, 30*time.Second) {
		t.Fatalf("reins serve did not start: %s", s.stderr.String())
	}
	defer s.quit(t)
	stdout, stderr, err := run(t, bin, env, nil, "selftest", "-json")
	if err == nil || !strings.Contains(string(stderr), "the self-test failed: test window") {
		t.Fatalf("reins selftest: %v; it said %s", err, stderr)
	}
	var rep persondoor.SelfTestReport
	if err := json.Unmarshal(stdout, &rep); err != nil {
		t.Fatalf("-json printed no report: %v\n%s", err, stdout)
	}
	got := map[string]persondoor.SelfTestCheck{}
	for _, c := range rep.Checks {
		got[c.Name] = c
	}
	if c := got["test window"]; !c.Failed() || !strings.Contains(c.Saw, "no display") {
		t.Errorf("the test window's line: %+v", c)
	}
	if _, asked := got["approval"]; asked {
		t.Error("the person was asked although nothing could fire")
	}
	for name, result := range map[string]string{"permissions": persondoor.SelfTestPass, "tray item": persondoor.SelfTestSkip, "pairing": persondoor.SelfTestSkip} {
		if got[name].Result != result {
			t.Errorf("%s: %+v, want %s", name, got[name], result)
		}
	}
	b, err := os.ReadFile(filepath.Join(dataDirOf(env), "selftest.json"))
	if err != nil || !strings.Contains(string(b), `"test window"`) {
		t.Errorf("the data folder's report: %v\n%s", err, b)
	}
}
