package core_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/internal/peercred"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

func loopbackPage(url string) coretest.Page {
	return coretest.Page{URL: url, Title: "Dev server", Frames: []protocol.FrameReport{coretest.Frame(coretest.Button(1, "Save", 100, 200))}}
}

// fakePrograms is a port's listener as a test sets it.
type fakePrograms struct {
	mu  sync.Mutex
	now []peercred.Program
	err error
}

func (f *fakePrograms) set(ps []peercred.Program, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now, f.err = ps, err
}

func (f *fakePrograms) lookup(string, int) ([]peercred.Program, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now, f.err
}

func shareEvent(t *testing.T, events <-chan persondoor.Event) persondoor.Event {
	t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case ev := <-events:
			if ev.Kind == persondoor.EventShare {
				return ev
			}
		case <-timeout:
			t.Fatal("no share event")
		}
	}
}

func TestALoopbackTabSharedToOneProgramEndsWhenAnotherListens(t *testing.T) {
	e := coretest.New(t, coretest.Options{})
	progs := &fakePrograms{}
	e.SetTestOnlyPrograms(progs.lookup)
	url := "http://localhost:8000/app"
	e.Browser.Open(3, loopbackPage(url))
	tab := e.WaitTab(t, url)
	agent := e.Connect(vocab.Agent{Name: "Test agent", PID: 4121, Exe: "/usr/bin/claude"})
	ctx := context.Background()

	dev := peercred.Program{PID: 100, Exe: "/usr/bin/python3", Dir: "/home/p/site"}
	progs.set([]peercred.Program{dev}, nil)
	if err := e.SetShare(tab, vocab.Control); err != nil {
		t.Fatal(err)
	}
	if _, err := agent.Snapshot(ctx, tab); err != nil {
		t.Fatal(err)
	}
	// The same program restarted in place (another pid) is the same program;
	// nothing listening for a moment is no change.
	progs.set([]peercred.Program{{PID: 200, Exe: dev.Exe, Dir: dev.Dir}}, nil)
	if _, err := agent.Snapshot(ctx, tab); err != nil {
		t.Fatalf("after a restart in place: %v", err)
	}
	progs.set(nil, nil)
	if _, err := agent.Snapshot(ctx, tab); err != nil {
		t.Fatalf("with nothing listening: %v", err)
	}

	events, stop := e.Subscribe(64)
	defer stop()
	progs.set([]peercred.Program{{PID: 300, Exe: "/tmp/evil", Dir: "/tmp"}}, nil)
	_, err := agent.Snapshot(ctx, tab)
	if codeOf(err) != vocab.CodeProgramChanged {
		t.Fatalf("read after the swap: %v, want %s", err, vocab.CodeProgramChanged)
	}
	want := "another program now listens on localhost:8000 (was /usr/bin/python3 in /home/p/site; now /tmp/evil in /tmp)"
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("the agent read %q, want it to say %q", err, want)
	}
	if ev := shareEvent(t, events); ev.Tab != tab || ev.Level != vocab.None || ev.Detail != want {
		t.Fatalf("share event %+v, want the tab at none saying %q", ev, want)
	}
	if e.Share(tab) != vocab.None {
		t.Fatalf("the share is %v after the swap", e.Share(tab))
	}
	// Even with the first program back, the share stays ended.
	progs.set([]peercred.Program{dev}, nil)
	if _, err := agent.Snapshot(ctx, tab); codeOf(err) != vocab.CodeShareRequired {
		t.Fatalf("read after the share ended: %v", err)
	}
	if rows := findRows(t, e, "Reins ended the share: "+want); rows != 1 {
		t.Fatalf("%d audit rows say why the share ended, want 1", rows)
	}
}

func TestAnActOnALoopbackTabIsRefusedOnceAnotherProgramListens(t *testing.T) {
	e := coretest.New(t, coretest.Options{})
	progs := &fakePrograms{}
	e.SetTestOnlyPrograms(progs.lookup)
	url := "http://[::1]:3000/"
	e.Browser.Open(5, loopbackPage(url))
	tab := e.WaitTab(t, url)
	agent := e.Connect(vocab.Agent{Name: "Test agent", PID: 4121, Exe: "/usr/bin/claude"})
	progs.set([]peercred.Program{{PID: 1, Exe: "/usr/bin/node", Dir: "/home/p/app"}}, nil)
	if err := e.SetShare(tab, vocab.Control); err != nil {
		t.Fatal(err)
	}
	s, err := agent.Snapshot(context.Background(), tab)
	if err != nil {
		t.Fatal(err)
	}
	progs.set([]peercred.Program{{PID: 2, Exe: "/usr/bin/node", Dir: "/tmp/other"}}, nil)
	_, err = agent.Act(context.Background(), agentdoor.ActRequest{Tab: tab, Ref: "e1", Snapshot: s.ID, Act: vocab.Act{Kind: "click"}})
	if codeOf(err) != vocab.CodeProgramChanged || !strings.Contains(err.Error(), "[::1]:3000 (was /usr/bin/node in /home/p/app; now /usr/bin/node in /tmp/other)") {
		t.Fatalf("click after the swap: %v", err)
	}
	if n := len(e.Exec.Fired()); n != 0 || len(e.Pending()) != 0 {
		t.Fatalf("%d inputs fired, %d asked", n, len(e.Pending()))
	}
}

func TestASwapWhileThePersonDecidesIsCaughtBeforeFiring(t *testing.T) {
	e := coretest.New(t, coretest.Options{})
	progs := &fakePrograms{}
	e.SetTestOnlyPrograms(progs.lookup)
	url := "http://localhost:4000/"
	e.Browser.Open(6, loopbackPage(url))
	tab := e.WaitTab(t, url)
	agent := e.Connect(vocab.Agent{Name: "Test agent", PID: 4121, Exe: "/usr/bin/claude"})
	progs.set([]peercred.Program{{PID: 1, Exe: "/usr/bin/ruby", Dir: "/home/p/blog"}}, nil)
	if err := e.SetShare(tab, vocab.Control); err != nil {
		t.Fatal(err)
	}
	s, err := agent.Snapshot(context.Background(), tab)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`"Save"[^\n]*\[ref=(e\d+)\]`).FindStringSubmatch(s.Text)
	if m == nil {
		t.Fatalf("no Save button in\n%s", s.Text)
	}
	ref := m[1]
	events, stop := e.Subscribe(64)
	defer stop()
	go func() {
		for ev := range events {
			if ev.Kind == persondoor.EventApproval {
				// The person allows it; meanwhile another program took the port.
				progs.set([]peercred.Program{{PID: 2, Exe: "/tmp/evil", Dir: "/tmp"}}, nil)
				e.Answer(ev.Request.ID, vocab.AllowOnce)
			}
		}
	}()
	_, err = agent.Act(context.Background(), agentdoor.ActRequest{Tab: tab, Ref: ref, Snapshot: s.ID, Act: vocab.Act{Kind: "click"}})
	if codeOf(err) != vocab.CodeProgramChanged {
		t.Fatalf("click allowed before the swap: %v, want %s", err, vocab.CodeProgramChanged)
	}
	if n := len(e.Exec.Fired()); n != 0 {
		t.Fatalf("%d inputs fired", n)
	}
}

func TestALoopbackShareIsRefusedWhenNoProgramCanBeNamed(t *testing.T) {
	e := coretest.New(t, coretest.Options{})
	progs := &fakePrograms{}
	e.SetTestOnlyPrograms(progs.lookup)
	url := "http://127.0.0.1:5173/"
	e.Browser.Open(4, loopbackPage(url))
	tab := e.WaitTab(t, url)
	for _, c := range []struct {
		ps   []peercred.Program
		err  error
		want string
	}{
		{nil, nil, "nothing listens on 127.0.0.1:5173 now"},
		{[]peercred.Program{{UID: 1001}}, nil, "a program Reins cannot inspect (user 1001) listens on 127.0.0.1:5173"},
		{nil, errors.New("permission denied"), "could not tell which program listens on 127.0.0.1:5173"},
	} {
		progs.set(c.ps, c.err)
		err := e.SetShare(tab, vocab.ReadOnly)
		if codeOf(err) != vocab.CodeProgramUnknown || !strings.Contains(err.Error(), c.want) {
			t.Errorf("share with %+v, %v: %v; want %s saying %q", c.ps, c.err, err, vocab.CodeProgramUnknown, c.want)
		}
		if e.Share(tab) != vocab.None {
			t.Fatalf("shared at %v", e.Share(tab))
		}
	}
	// Where the OS cannot name programs the share goes on, and says so.
	progs.set(nil, peercred.ErrUnsupported)
	events, stop := e.Subscribe(64)
	defer stop()
	if err := e.SetShare(tab, vocab.ReadOnly); err != nil {
		t.Fatal(err)
	}
	if ev := shareEvent(t, events); !strings.Contains(ev.Detail, "not pinned to a program: Reins cannot tell on this system which program listens on 127.0.0.1:5173") {
		t.Fatalf("share event says %q", ev.Detail)
	}
}

func findRows(t *testing.T, e *coretest.Engine, detail string) int {
	t.Helper()
	rows, err := core.ReadAudit(context.Background(), e.Log, persondoor.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range rows {
		if r.Detail == detail && r.Code == vocab.CodeProgramChanged {
			n++
		}
	}
	return n
}

// listenerEnv makes this test binary a small listener: it listens on the
// port given, says "ready" and waits to be stopped.
const listenerEnv = "REINS_TEST_LOOPBACK_LISTENER"

func TestHelperLoopbackListener(t *testing.T) {
	addr := os.Getenv(listenerEnv)
	if addr == "" {
		return // run as a helper by TestALoopbackTabWhoseProgramIsSwapped only
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println("ready", l.Addr().(*net.TCPAddr).Port)
	for {
		c, err := l.Accept()
		if err != nil {
			os.Exit(0)
		}
		c.Close()
	}
}

// listener runs exe (this test binary, or a copy of it) as a listener on
// addr in dir, in its own process group, and returns once it listens.
func listener(t *testing.T, exe, addr, dir string) (port int, stop func()) {
	t.Helper()
	cmd := exec.Command(exe, "-test.run=^TestHelperLoopbackListener$")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), listenerEnv+"="+addr)
	testenv.OwnGroup(cmd)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		testenv.KillGroup(cmd, func() { cmd.Wait() })
	}
	t.Cleanup(stop)
	line, err := bufio.NewReader(out).ReadString('\n')
	f := strings.Fields(line)
	if err != nil || len(f) != 2 || f[0] != "ready" {
		t.Fatalf("the listener in %s said %q (%v)", dir, line, err)
	}
	port, _ = strconv.Atoi(f[1])
	return port, stop
}

// TestALoopbackTabWhoseProgramIsSwapped is the attack with real programs:
// the tab is shared on 127.0.0.1:PORT or localhost:PORT served by one
// program; the program stops and another takes the port (the same
// executable in another folder, or another executable in the same folder).
// The next read must be refused and the share ended. As a control, the same
// program restarted in its own folder keeps the share.
func TestALoopbackTabWhoseProgramIsSwapped(t *testing.T) {
	if _, err := peercred.Listening([]net.IP{net.IPv4(127, 0, 0, 1)}, 1); errors.Is(err, peercred.ErrUnsupported) {
		testenv.Need(t, false, "naming the program on a port (Linux only)")
	}
	e := coretest.New(t, coretest.Options{})
	agent := e.Connect(vocab.Agent{Name: "Test agent", PID: 4121, Exe: "/usr/bin/claude"})
	ctx := context.Background()
	dirA, dirB := t.TempDir(), t.TempDir()
	dirA, _ = filepath.EvalSymlinks(dirA)
	dirB, _ = filepath.EvalSymlinks(dirB)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "other-server")
	if b, err := os.ReadFile(exe); err != nil || os.WriteFile(other, b, 0o755) != nil {
		t.Fatalf("copying the test binary: %v", err)
	}
	other, _ = filepath.EvalSymlinks(other)
	const tries = 10
	var swappedThrough, restartsEnded int
	for i := range tries {
		host := "127.0.0.1"
		if i%2 == 1 {
			host = "localhost"
		}
		port, stop := listener(t, exe, "127.0.0.1:0", dirA)
		url := fmt.Sprintf("http://%s:%d/", host, port)
		id := 10 + i
		e.Browser.Open(id, loopbackPage(url))
		tab := e.WaitTab(t, url)
		if err := e.SetShare(tab, vocab.ReadOnly); err != nil {
			t.Fatalf("try %d: share: %v", i, err)
		}
		if _, err := agent.Snapshot(ctx, tab); err != nil {
			t.Fatalf("try %d: first read: %v", i, err)
		}
		// Control: the same program, stopped and started again in its folder.
		stop()
		_, stop = listener(t, exe, fmt.Sprintf("127.0.0.1:%d", port), dirA)
		if _, err := agent.Snapshot(ctx, tab); err != nil {
			restartsEnded++
			t.Errorf("try %d: read after a restart in place: %v", i, err)
		}
		// The attack: another program takes the port.
		stop()
		swapExe, swapDir := exe, dirB
		if i%2 == 1 {
			swapExe, swapDir = other, dirA
		}
		_, stop = listener(t, swapExe, fmt.Sprintf("127.0.0.1:%d", port), swapDir)
		_, err := agent.Snapshot(ctx, tab)
		if codeOf(err) != vocab.CodeProgramChanged || e.Share(tab) != vocab.None {
			swappedThrough++
			t.Errorf("try %d: read after the swap: %v (share %v)", i, err, e.Share(tab))
		} else if want := fmt.Sprintf("(was %s in %s; now %s in %s)", exe, dirA, swapExe, swapDir); !strings.Contains(err.Error(), want) {
			t.Errorf("try %d: %q does not say %q", i, err, want)
		}
		stop()
	}
	t.Logf("swaps: %d tries, %d got through (should be 0); restarts in place: %d tries, %d ended the share (should be 0)", tries, swappedThrough, tries, restartsEnded)

	// Beside it: the first program keeps 127.0.0.1:PORT and another listens
	// on [::1]:PORT, where Chrome may connect for localhost.
	l6, err := net.Listen("tcp", "[::1]:0")
	testenv.Need(t, err == nil, "IPv6 loopback")
	l6.Close()
	const besides = 5
	var besideThrough int
	for i := range besides {
		port, _ := listener(t, exe, "127.0.0.1:0", dirA)
		url := fmt.Sprintf("http://localhost:%d/", port)
		e.Browser.Open(100+i, loopbackPage(url))
		tab := e.WaitTab(t, url)
		if err := e.SetShare(tab, vocab.ReadOnly); err != nil {
			t.Fatalf("beside %d: share: %v", i, err)
		}
		_, stop6 := listener(t, exe, fmt.Sprintf("[::1]:%d", port), dirB)
		if _, err := agent.Snapshot(ctx, tab); codeOf(err) != vocab.CodeProgramChanged {
			besideThrough++
			t.Errorf("beside %d: read with another program on [::1]: %v", i, err)
		}
		stop6()
	}
	t.Logf("another program beside it on [::1]: %d tries, %d got through (should be 0)", besides, besideThrough)
}
