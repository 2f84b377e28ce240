package core

import (
	"errors"
	"strings"
	"testing"

	"github.com/reins-app/reins/policy"
)

// Doctor's lines say which policy is in force, from where, each rule and
// what the organisation receives; a broken one, why and what to do.
func TestDoctorSaysThePolicyInForce(t *testing.T) {
	p, err := policy.Parse([]byte(`{"sites": {"never": ["*.bank.example"]}, "audit": {"syslog": {"address": "logs.example.org:514"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	st := policy.State{Source: policy.LinuxPath, Policy: p, Hash: "sha256:feed"}
	report := strings.Join(policyReport(st), "\n")
	for _, want := range []string{"Policy in force, from /etc/reins/policy.json (sha256:feed):", "  Sites never shared: *.bank.example.",
		"The syslog receiver logs.example.org:514 (plain TCP) receives each row's number and hash"} {
		if !strings.Contains(report, want) {
			t.Errorf("doctor does not say %q:\n%s", want, report)
		}
	}
	if c := policyCheck(st); !c.OK || !strings.Contains(c.What, "sha256:feed") {
		t.Errorf("check: %+v", c)
	}
	bad := policy.State{Source: policy.LinuxPath, Err: errors.New("it is not UTF-8 text")}
	if c := policyCheck(bad); c.OK || !strings.Contains(c.Fix, "correct the file") {
		t.Errorf("a broken policy's check: %+v", c)
	}
	if r := policyReport(bad); len(r) != 1 || !strings.Contains(r[0], "cannot be honoured (it is not UTF-8 text)") {
		t.Errorf("a broken policy's report: %q", r)
	}
	if r := policyReport(policy.State{}); !strings.Contains(r[0], "Policy: none") {
		t.Errorf("no policy: %q", r)
	}
}
