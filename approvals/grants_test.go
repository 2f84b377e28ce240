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

func TestAGrantPinnedToAProgramEndsWhenAnotherServesIt(t *testing.T) {
	g := NewGrants(nil)
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
