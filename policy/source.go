package policy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"
)

// State is the policy as last read from its source.
type State struct {
	// Source says where it was read: the file's path, or the managed
	// preferences of BundleID on macOS; "" when there is no policy.
	Source string
	// Policy is the policy read; nil when there is none, or it cannot be
	// honoured (Err).
	Policy *Policy
	// Hash is "sha256:…" of what was read, the same for the same policy;
	// "" when there is none.
	Hash string
	// Err says why a policy that is there cannot be honoured. Reins then
	// shares nothing and lets no act fire ([State.Effective]).
	Err error
}

// Managed reports whether an organisation's policy is there, honoured
// or not.
func (s State) Managed() bool { return s.Policy != nil || s.Err != nil }

// Effective is the policy every rule is read from: the policy; for one
// that cannot be honoured, a policy that forbids every share, agent and
// act; nil (narrowing nothing) when there is none.
func (s State) Effective() *Policy {
	if s.Err != nil {
		return closed()
	}
	return s.Policy
}

// Same reports whether t is the same policy from the same place, with the
// same trouble if any.
func (s State) Same(t State) bool {
	errText := func(e error) string {
		if e == nil {
			return ""
		}
		return e.Error()
	}
	return s.Source == t.Source && s.Hash == t.Hash && errText(s.Err) == errText(t.Err)
}

// Broken is the sentence saying that the policy cannot be honoured and
// what to do, for the person and for agents; "" when it can.
func (s State) Broken() string {
	if s.Err == nil {
		return ""
	}
	// What it means first, then why, then the fix: a terminal may cut
	// a long line short.
	return fmt.Sprintf("Reins shares nothing and lets no act fire: the organisation's policy (%s) cannot be honoured (%v); until it is fixed, whoever manages this computer must %s", s.Source, s.Err, s.fix())
}

func (s State) fix() string {
	if s.Source == LinuxPath || s.Source == "" || s.Source[0] == '/' {
		return "correct the file (owned by root, writable by no one else, JSON as the policy's schema says) or remove it"
	}
	return "correct or remove the configuration profile that sets it"
}

// Refusal is the sentence for a refusal by rule, the rule before the
// policy's source, which may be long: "the organisation's policy does not
// allow that: sites.never lists *.bank.example (policy:
// /etc/reins/policy.json)". For a policy that cannot be honoured it is
// Broken.
func (s State) Refusal(rule string) string {
	if s.Err != nil {
		return s.Broken()
	}
	return fmt.Sprintf("the organisation's policy does not allow that: %s (policy: %s)", rule, s.Source)
}

// Words says in one line what is in force: the source and hash, or that
// there is no policy, or why it cannot be honoured.
func (s State) Words() string {
	switch {
	case s.Err != nil:
		return s.Broken()
	case s.Policy == nil:
		return "no organisation's policy: the person's settings decide"
	}
	return fmt.Sprintf("the organisation's policy from %s (%s) is in force", s.Source, s.Hash)
}

// A Source reads the policy.
type Source interface {
	Read() State
}

// None is a Source with no policy.
type None struct{}

func (None) Read() State { return State{} }

// System is where this computer keeps the organisation's policy: the
// managed preferences of BundleID on macOS, LinuxPath on Linux. A
// reinstest build reads the file REINS_TEST_POLICY_FILE names instead,
// when it names one; a release build has no other place.
func System() Source {
	if path := testOnlyPolicyFile(); path != "" {
		return rootFile{path: path}
	}
	return systemSource()
}

// hashOf is the hash a State carries of what was read.
func hashOf(b []byte) string {
	h := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(h[:])
}

// Watch reads src every interval until ctx ends and calls changed with
// each state unlike the one before (the first read included). It returns
// when ctx ends.
func Watch(ctx context.Context, src Source, interval time.Duration, last State, changed func(State)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if s := src.Read(); !s.Same(last) {
			last = s
			changed(s)
		}
	}
}
