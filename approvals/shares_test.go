package approvals

import (
	"strconv"
	"testing"

	"github.com/reins-app/reins/vocab"
)

func TestLoopbackOrigins(t *testing.T) {
	for origin, want := range map[string]string{
		"http://localhost:8000":     "localhost:8000",
		"http://LOCALHOST":          "localhost:80",
		"https://app.localhost":     "app.localhost:443",
		"http://127.0.0.1:5173":     "127.0.0.1:5173",
		"http://127.9.8.7:1":        "127.9.8.7:1",
		"http://[::1]:3000":         "::1:3000",
		"http://example.com:8000":   "",
		"http://10.0.0.1:80":        "",
		"http://localhost.evil.com": "",
		"chrome://settings":         "",
		"http://128.0.0.1:80":       "",
	} {
		host, port, ok := Loopback(origin)
		got := ""
		if ok {
			got = host + ":" + strconv.Itoa(port)
		}
		if got != want {
			t.Errorf("Loopback(%q) = %q, want %q", origin, got, want)
		}
	}
}

func TestASharePinnedToAProgramEndsWhenAnotherServesIt(t *testing.T) {
	g := NewShares(nil)
	if err := g.SetPinned("1", "http://localhost:8000", `"/usr/bin/python3" "/home/p"`, vocab.Control); err != nil {
		t.Fatal(err)
	}
	if ended, _ := g.ObserveProgram("1", `"/usr/bin/python3" "/home/p"`); ended || g.Get("1").Level != vocab.Control {
		t.Fatal("the same program ended the share")
	}
	ended, was := g.ObserveProgram("1", `"/tmp/x" "/tmp"`)
	if !ended || was != `"/usr/bin/python3" "/home/p"` || g.Get("1").Level != vocab.None {
		t.Fatalf("another program: ended %v, was %q, level %v", ended, was, g.Get("1").Level)
	}
	// A share pinned to nothing is left alone.
	g.Set("2", "http://localhost:8000", vocab.ReadOnly)
	if ended, _ := g.ObserveProgram("2", `"/tmp/x" "/tmp"`); ended {
		t.Fatal("an unpinned share ended")
	}
}

// A share for one agent is, to every other, no share: refused as not shared,
// never as read-only or handed off, which would tell it the tab is shared.
// A hand-off keeps the share's agent.
func TestShareForOneAgent(t *testing.T) {
	g := NewShares(nil)
	const shop = "https://shop.example"
	if err := g.SetFor("1", shop, "", "alice", vocab.Control); err != nil {
		t.Fatal(err)
	}
	if err := g.CheckFor("1", "alice", shop, vocab.Control); err != nil {
		t.Fatalf("alice: %v", err)
	}
	for _, need := range []vocab.Level{vocab.ReadOnly, vocab.Control} {
		if err := g.CheckFor("1", "bob", shop, need); err != ErrNotShared {
			t.Fatalf("bob at %v: %v, want ErrNotShared", need, err)
		}
	}
	if err := g.HandOff("1", shop); err != nil {
		t.Fatal(err)
	}
	if err := g.CheckFor("1", "bob", shop, vocab.ReadOnly); err != ErrNotShared {
		t.Fatalf("bob on a held tab: %v, want ErrNotShared", err)
	}
	if _, err := g.Rebind("1", "https://shop.example:8443", ""); err != nil {
		t.Fatal(err)
	}
	if gr := g.Get("1"); gr.Agent != "alice" || gr.Level != vocab.Control {
		t.Fatalf("after a hand-off the grant is %+v, want Control for alice", gr)
	}
	if err := g.SetFor(vocab.DesktopKey, "", "", "alice", vocab.ReadOnly); err == nil {
		t.Fatal("the desktop was shared with one agent")
	}
	if err := g.Set("1", shop, vocab.ReadOnly); err != nil || g.CheckFor("1", "bob", shop, vocab.ReadOnly) != nil {
		t.Fatalf("shared with every agent, bob is refused: %v", g.CheckFor("1", "bob", shop, vocab.ReadOnly))
	}
}
