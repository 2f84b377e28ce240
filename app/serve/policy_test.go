package serve

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"testing"
	"time"

	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/policy"
	"github.com/reins-app/reins/vocab"
)

func managedState(t *testing.T, body string) policy.State {
	t.Helper()
	p, err := policy.Parse([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(body))
	return policy.State{Source: policy.LinuxPath, Policy: p, Hash: "sha256:" + hex.EncodeToString(sum[:])}
}

// The terminal marks the tabs whose sites the organisation's policy
// limits, refuses the shares it forbids in its words, and prints it.
func TestTheTerminalShowsThePolicyAndItsRefusals(t *testing.T) {
	e := coretest.New(t, coretest.Options{ApprovalTimeout: 5 * time.Second,
		Policy: managedState(t, `{"sites": {"never": ["*.bank.example"], "maxLevel": {"mail.example.com": "read"}}, "audit": {"otlp": {"url": "https://otel.example.org/v1/logs"}}}`)})
	frames := []protocol.FrameReport{coretest.Frame(coretest.Button(1, "Go", 10, 10))}
	e.Browser.Open(3, coretest.Page{URL: "https://www.bank.example/", Title: "Accounts", Frames: frames})
	e.Browser.Open(4, coretest.Page{URL: "https://mail.example.com/", Title: "Inbox", Frames: frames})
	bank, mail := e.WaitTab(t, "https://www.bank.example/"), e.WaitTab(t, "https://mail.example.com/")
	in, typed := io.Pipe()
	out := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go (&Terminal{Engine: e, In: in, Out: out, Port: 1, DataDir: "/tmp/x"}).Run(ctx)
	out.waitFor(t, `Your organisation's policy is in force \(from /etc/reins/policy.json\)`)

	io.WriteString(typed, "tabs\n")
	out.waitFor(t, `\s`+bank+`\s+none\s+Accounts\s+\(https://www.bank.example\)\s+\[organisation: never shared\]`)
	out.waitFor(t, `\s`+mail+`\s+none\s+Inbox\s+\(https://mail.example.com\)\s+\[organisation: read at most\]`)
	io.WriteString(typed, "share "+bank+" read\n")
	out.waitFor(t, `policy: the organisation's policy does not allow that: https://www.bank.example may not be shared \(sites.never lists \*.bank.example\) \(policy: /etc/reins/policy.json\)`)
	io.WriteString(typed, "share "+mail+" control\n")
	out.waitFor(t, `may be shared at Read at most \(sites.maxLevel caps mail.example.com at read\)`)
	io.WriteString(typed, "share "+mail+" read\n")
	out.waitFor(t, "Tab "+mail+" is now shared: read")
	if e.Share(bank) != vocab.None || e.Share(mail) != vocab.ReadOnly {
		t.Fatalf("shares: bank %v, mail %v", e.Share(bank), e.Share(mail))
	}

	io.WriteString(typed, "policy\n")
	out.waitFor(t, `Set by your organisation, from /etc/reins/policy.json`)
	out.waitFor(t, `Sites never shared: \*.bank.example\.`)
	out.waitFor(t, `The OpenTelemetry collector https://otel.example.org/v1/logs receives each row whole`)

	e.ApplyPolicy(managedState(t, `{"sites": {"never": ["mail.example.com"]}}`))
	out.waitFor(t, `The organisation's policy changed: the organisation's policy from /etc/reins/policy.json`)
	out.waitFor(t, "Tab "+mail+" is now shared: none")
}
