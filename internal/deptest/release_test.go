package deptest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// testHelper matches this module's test-helper packages: core/coretest,
// bridge/bridgetest, and every package under internal/testrig/.
var testHelper = regexp.MustCompile(`^internal/testrig/|(^|/)(\w*test|test\w*)$`)

// neverShipped are the packages, named otherwise, that drive a desktop as
// a person would, for tests and developers' tools: executor/xdesk holds
// the stand-in whose input Reins takes for the person's own hand.
var neverShipped = []string{"executor/xdesk"}

// The release binary's dependencies, on every platform it is built for,
// hold no test-helper package: what they offer (fakes, rigs, seams) must
// never ship.
func TestReleaseBinaryHasNoTestPackage(t *testing.T) {
	for _, env := range [][]string{nil, {"GOOS=darwin", "GOARCH=arm64", "CGO_ENABLED=1"}} {
		pkgs := list(t, env, "./app/cmd/reins")
		if len(pkgs) != 1 || len(pkgs[0].Deps) < 10 {
			t.Fatalf("go list %v: %d packages", env, len(pkgs))
		}
		for _, d := range pkgs[0].Deps {
			if rest, ok := strings.CutPrefix(d, mod); ok && (testHelper.MatchString(rest) || slices.Contains(neverShipped, rest)) {
				t.Errorf("%v: the release binary depends on the test package %s", env, rest)
			}
		}
	}
}

// The test seams (approvals.TestOnlyApproved, audit.TestOnlyTicket) mint
// leave to act that no person gave and no audit row stands behind. The
// release binary does not contain them, and a program that is not a test
// and calls them anyway gets a panic, not a ticket.
func TestTestSeamsCannotReachARelease(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "reins")
	build := exec.Command("go", "build", "-o", bin, "./app/cmd/reins")
	build.Dir = "../.."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	nm := exec.Command("go", "tool", "nm", bin)
	out, err := nm.Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	if n := strings.Count(string(out), "\n"); n < 1000 {
		t.Fatalf("go tool nm listed only %d symbols", n)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, mod) && strings.Contains(line, ".TestOnly") {
			t.Errorf("the release binary holds a test seam: %s", strings.TrimSpace(line))
		}
	}
	// The organisation's policy has one place in a release: the test
	// build's other file is not even named in it.
	raw, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "REINS_TEST_POLICY_FILE") {
		t.Error("the release binary names the test build's policy file, REINS_TEST_POLICY_FILE")
	}
	if !strings.Contains(string(raw), "/etc/reins/policy.json") {
		t.Error("the release binary does not name /etc/reins/policy.json: is the policy read at all?")
	}

	run := exec.Command("go", "run", "./internal/deptest/testdata/seam", "approvals.TestOnlyApproved", "audit.TestOnlyTicket")
	run.Dir = "../.."
	run.Env = append(os.Environ(), "GOFLAGS=")
	got, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("go run seam: %v\n%s", err, got)
	}
	for _, want := range []string{"approvals.TestOnlyApproved panicked", "audit.TestOnlyTicket panicked"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("outside a test, %q is not what happened:\n%s", want, got)
		}
	}
}
