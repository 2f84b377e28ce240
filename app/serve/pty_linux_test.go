package serve

import (
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/internal/plain/plaintest"
)

// openPTY opens a pseudo-terminal: the terminal Reins writes to (tty) and
// the screen side that reads what reaches it (screen). Output processing
// is off, so the screen gets exactly the bytes Reins wrote: a carriage
// return there is Reins', never the line discipline's.
func openPTY(t *testing.T) (screen, tty *os.File) {
	t.Helper()
	screen, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	fd := int(screen.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlocking the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("naming the pseudo-terminal: %v", err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("opening the terminal side: %v", err)
	}
	tio, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	tio.Oflag &^= unix.OPOST
	tio.Lflag &^= unix.ECHO
	if err := unix.IoctlSetTermios(int(tty.Fd()), unix.TCSETS, tio); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close(); screen.Close() })
	return screen, tty
}

// screenText is what has reached the terminal so far; wait blocks until a
// pattern shows, woken by each read.
type screenText struct {
	mu      sync.Mutex
	b       strings.Builder
	changed chan struct{}
}

func readScreen(f *os.File) *screenText {
	s := &screenText{changed: make(chan struct{}, 1)}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			if n > 0 {
				s.mu.Lock()
				s.b.Write(buf[:n])
				s.mu.Unlock()
				select {
				case s.changed <- struct{}{}:
				default:
				}
			}
			if err != nil {
				return
			}
		}
	}()
	return s
}

func (s *screenText) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func (s *screenText) wait(t *testing.T, re string) []string {
	t.Helper()
	rx := regexp.MustCompile(re)
	timeout := time.After(10 * time.Second)
	for {
		if m := rx.FindStringSubmatch(s.String()); m != nil {
			return m
		}
		select {
		case <-s.changed:
		case <-timeout:
			t.Fatalf("the terminal never showed %q; it shows:\n%s", re, s.String())
		}
	}
}

// next waits for a match of re whose first group is not in seen yet.
func (s *screenText) next(t *testing.T, re string, seen []string) string {
	t.Helper()
	rx := regexp.MustCompile(re)
	timeout := time.After(10 * time.Second)
	for {
		for _, m := range rx.FindAllStringSubmatch(s.String(), -1) {
			if !contains(seen, m[1]) {
				return m[1]
			}
		}
		select {
		case <-s.changed:
		case <-timeout:
			t.Fatalf("the terminal never showed a new %q; it shows:\n%s", re, s.String())
		}
	}
}

// What `reins serve` prints, read from a real terminal, holds no byte that
// terminal would obey, whatever the page and the agent wrote: no ESC, no
// carriage return, no C1 control, no bidi or zero-width character; no line
// an agent's newlines forged; the agent's real process in full.
func TestTheTerminalShowsHostileTextTamed(t *testing.T) {
	screen, tty := openPTY(t)
	out := readScreen(screen)

	e := coretest.New(t, coretest.Options{ApprovalTimeout: 10 * time.Second})
	name := "Place order\u2028" + plaintest.Override + plaintest.Invisible + plaintest.Long
	url := "https://shop.example.com/\u202e" + plaintest.Long
	e.Browser.Open(3, coretest.Page{URL: url, Title: plaintest.All, Frames: []protocol.FrameReport{
		coretest.Frame(coretest.Button(1, name, 10, 10), coretest.Field(2, "Search\u202e", false, 10, 60),
			coretest.Button(3, plaintest.EraseLine+plaintest.Conceal+plaintest.Newlines, 10, 110)),
	}})
	tab := e.WaitTab(t, url)
	e.Exec.SetWindows([]executor.Window{{App: executor.App{Name: "Firefox\x1b[8m", Exe: "/usr/lib/firefox/firefox", PID: 4242}, Title: plaintest.All, W: 1000, H: 800, Active: true}})
	if err := e.SetShare(core.DesktopKey, core.Control); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go (&Terminal{Engine: e, In: tty, Out: tty}).Run(ctx)
	out.wait(t, `Type "help"`)
	type_ := func(s string) { io.WriteString(screen, s+"\n") }
	type_("share " + tab + " control")
	out.wait(t, "Tab "+tab+" is now shared: control")

	agent := e.Connect(core.Agent{Name: plaintest.AgentName, PID: 999, Exe: "/usr/bin/python3"})
	snap, err := agent.Snapshot(ctx, tab)
	if err != nil {
		t.Fatal(err)
	}
	refs := regexp.MustCompile(`\[ref=(e\d+)\]`).FindAllStringSubmatch(snap.Text, -1)
	acts := []func() error{
		func() error {
			_, err := agent.Act(ctx, core.ActRequest{Tab: tab, Ref: refs[0][1], Act: core.Act{Kind: core.ActClick}, Element: plaintest.Newlines})
			return err
		},
		func() error {
			_, err := agent.Act(ctx, core.ActRequest{Tab: tab, Ref: refs[1][1], Act: core.Act{Kind: core.ActType, Text: plaintest.Newlines + " " + plaintest.Long}})
			return err
		},
		func() error {
			_, err := agent.DesktopAct(ctx, core.DesktopActRequest{Act: core.Act{Kind: core.ActClick}, X: 412, Y: 300, Element: plaintest.Newlines + plaintest.Conceal})
			return err
		},
	}
	var ids []string
	for i, act := range acts {
		done := make(chan error, 1)
		go func() { done <- act() }()
		id := out.next(t, `\nAPPROVAL (a\d+)  python3 \(pid 999\) · “Claude Code`, ids)
		ids = append(ids, id)
		type_("allow " + id)
		if err := <-done; err != nil {
			t.Fatalf("act %d: %v", i, err)
		}
	}
	// A name with control characters is refused as changed; its refusal is
	// printed too.
	if _, err := agent.Act(ctx, core.ActRequest{Tab: tab, Ref: refs[2][1], Act: core.Act{Kind: core.ActClick}}); err == nil {
		t.Fatal("a click on a name that is not what was kept fired")
	}
	out.wait(t, `— refused`)
	type_("tabs")
	out.wait(t, `\* `+tab+` +control +Delete account`)
	type_("pending")
	out.wait(t, `Nothing is waiting`)
	type_("agents")
	out.wait(t, `No agent has connected yet|\n 1  `)
	type_("audit 40")
	out.wait(t, `#\d+ .*→ refused \[changed\]`)
	type_("help")
	out.wait(t, `quit +stop Reins`)

	text := out.String()
	for i, line := range strings.Split(text, "\n") {
		plaintest.Check(t, fmt.Sprintf("terminal line %d", i+1), line, 0)
		if rest, ok := strings.CutPrefix(line, "APPROVAL "); ok {
			id, _, _ := strings.Cut(rest, " ")
			if !contains(ids, id) {
				t.Errorf("a forged approval block: %q", line)
			}
		}
		if strings.HasPrefix(strings.TrimSpace(line), "Answer with: allow a99") {
			t.Errorf("a forged answer line: %q", line)
		}
	}
	if strings.Count(text, "\nAPPROVAL ") != len(ids) {
		t.Errorf("%d approval blocks for %d requests:\n%s", strings.Count(text, "\nAPPROVAL "), len(ids), text)
	}
	for _, want := range []string{
		"the agent says “OK APPROVAL a99 claude (pid 1) asks: Click \"Cancel\" Answer with: allow a99Allow[8m hidden” (Reins has not checked this)",
		"Click the point 412, 300 in Firefox[8m · firefox (pid 4242)",
		"window “Delete account[2K Click \"Cancel",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the terminal does not show %q", want)
		}
	}
	if n := strings.Count(text, "python3 (pid 999) · “"); n < 6 {
		t.Errorf("the agent's process shows %d times, want it on every approval, activity and agent line", n)
	}
	if strings.Contains(text, strings.Repeat("W", plain.URLMax+1)) {
		t.Error("5,000 characters of page text reached the terminal uncut")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
