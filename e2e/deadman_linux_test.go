package e2e

// Reins killed mid-typing: the real `reins serve`, its release guard, real
// XTEST into real Chromium. The page's own keydown and keyup handlers
// count what arrives after the kill.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/unix"

	"github.com/reins-app/reins/internal/testrig/browsertest"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/internal/testrig/xvfb"
	"github.com/reins-app/reins/mcp/mcptest"
	"github.com/reins-app/reins/persondoor"
)

// keysPage reports every keydown and keyup on its text area, numbered, in
// batches sent one after another so that they arrive in order, each with
// how many keys the page holds down at that moment.
func keysPage() string {
	return `<!doctype html><html><body>
<textarea id="notes" aria-label="Notes" rows="10" cols="80"></textarea>
<script>
const notes = document.getElementById('notes');
const down = new Set();
let queue = [], busy = false, n = 0;
function flush() {
  if (busy || queue.length === 0) return;
  busy = true;
  const batch = queue; queue = [];
  // A batch that may not have arrived is sent again; the test drops
  // what it sees twice.
  fetch('/witness', {method: 'POST', body: JSON.stringify({type: 'keys', events: batch, held: down.size, length: notes.value.length})})
    .then(r => { if (!r.ok) throw new Error(r.status); })
    .catch(() => { queue = batch.concat(queue); })
    .finally(() => { busy = false; flush(); });
}
for (const kind of ['keydown', 'keyup']) {
  notes.addEventListener(kind, e => {
    if (kind === 'keydown') down.add(e.code); else down.delete(e.code);
    queue.push({n: ++n, kind, code: e.code, repeat: e.repeat, trusted: e.isTrusted, at: Date.now()});
    flush();
  });
}
fetch('/witness', {method: 'POST', body: JSON.stringify({type: 'loaded', page: 'keys'})});
</script></body></html>`
}

// keyEvent is one of the page's reports.
type keyEvent struct {
	n       int
	down    bool
	code    string
	repeat  bool
	trusted bool
	at      time.Time
}

// pageKeys is what the page has reported so far: every key event in order,
// and, as of its latest report, how many keys it holds down.
func pageKeys(w *browsertest.Witness) (events []keyEvent, held int) {
	seen := map[int]bool{}
	for _, b := range w.Events("keys") {
		list, _ := b["events"].([]any)
		for _, e := range list {
			m, _ := e.(map[string]any)
			n, _ := m["n"].(float64)
			if seen[int(n)] {
				continue
			}
			seen[int(n)] = true
			at, _ := m["at"].(float64)
			code, _ := m["code"].(string)
			events = append(events, keyEvent{
				n: int(n), down: m["kind"] == "keydown", code: code, repeat: m["repeat"] == true,
				trusted: m["trusted"] == true, at: time.UnixMilli(int64(at)),
			})
		}
		h, _ := b["held"].(float64)
		held = int(h)
	}
	return events, held
}

// afterCount is what the page saw after a moment: keydowns that were
// auto-repeats, keydowns that were not, keyups.
type afterCount struct{ repeats, presses, releases int }

func countAfter(events []keyEvent, from time.Time) afterCount {
	var c afterCount
	for _, e := range events {
		switch {
		case e.at.Before(from.Truncate(time.Millisecond)):
		case e.down && e.repeat:
			c.repeats++
		case e.down:
			c.presses++
		default:
			c.releases++
		}
	}
	return c
}

func (c afterCount) String() string {
	return fmt.Sprintf("%d auto-repeated keydowns, %d other keydowns, %d keyups", c.repeats, c.presses, c.releases)
}

// letGo waits for the page to see a key go up after at and to hold none.
func letGo(t *testing.T, w *browsertest.Witness, at time.Time) {
	t.Helper()
	testenv.WaitFor(t, "the page to see the held key go up", func() bool {
		events, held := pageKeys(w)
		return held == 0 && countAfter(events, at).releases > 0
	})
}

// lastUp is when the page saw its last keyup: that of the key held at
// the kill (a key pressed and let go just before it may arrive after it).
func lastUp(events []keyEvent) time.Time {
	for i := len(events) - 1; i >= 0; i-- {
		if !events[i].down {
			return events[i].at
		}
	}
	return time.Time{}
}

// serveProc is a running `reins serve` in an xterm on the display, as the
// person runs it (Reins puts no input anywhere while it cannot see the
// window that shows its terminal). The test reads what the terminal shows
// and types into it as the person, allowing each approval.
type serveProc struct {
	t          *testing.T
	display    string
	pid        int    // reins serve's
	script     int    // the script(1) that runs it in the xterm, recording the terminal
	transcript string // what the terminal has shown

	mu      sync.Mutex
	allowed map[string]bool // guarded by mu: approvals answered
}

// The xterm sits right of Chromium's window (1000 DIP wide at 0,0), so
// that the person's keys into it and the agent's into the page never meet.
const (
	termX, termY   = 1140, 100 // a point inside the xterm
	pageX, pageY   = 500, 600  // a point on the page, below the text area
	termGeometry   = "40x20+1010+0"
	serveStartWait = 20 * time.Second
)

func startServe(t *testing.T, bin string, env []string, dir string) *serveProc {
	t.Helper()
	xterm := testenv.NeedCommand(t, "xterm")
	script := testenv.NeedCommand(t, "script")
	f, err := os.CreateTemp(dir, "serve-*.txt")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	display := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "DISPLAY="); ok {
			display = v
		}
	}
	cmd := exec.Command(xterm, "-display", display, "-geometry", termGeometry, "-e",
		script, "-qfc", bin+" serve -mcp-port -1", f.Name())
	cmd.Env = env
	testenv.OwnGroup(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() { testenv.KillGroup(cmd, func() { <-exited }) })
	s := &serveProc{t: t, display: display, transcript: f.Name(), allowed: map[string]bool{}}
	s.waitText(serveStartWait, "Reins to start", 0, "Type \"help\"")
	ctx, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	s.allowAll(ctx)
	testenv.WaitFor(t, "reins serve's process", func() bool {
		s.pid = descendant(cmd.Process.Pid, "serve")
		return s.pid != 0
	})
	s.script = parent(s.pid)
	// script runs reins serve in a session of its own, which the xterm's
	// group does not reach.
	t.Cleanup(func() {
		for _, pid := range []int{s.pid, s.script} {
			if cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); strings.Contains(string(cmdline), bin) {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	return s
}

// parent is pid's parent process.
func parent(pid int) int {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

// resume lets a stopped Reins go on. script stops itself when its child
// stops, to pass the stop on as a shell would, so it is let go on too.
func (s *serveProc) resume() {
	syscall.Kill(s.pid, syscall.SIGCONT)
	syscall.Kill(s.script, syscall.SIGCONT)
	// script, once going again, passes a SIGCONT on to its child: wait for
	// both to run, so that the pass cannot undo the next stop.
	testenv.WaitFor(s.t, "reins serve and script to run again", func() bool {
		syscall.Kill(s.pid, syscall.SIGCONT)
		syscall.Kill(s.script, syscall.SIGCONT)
		return !stopped(s.pid) && !stopped(s.script)
	})
}

// descendant is the pid of a process under pid whose command line holds
// word, or 0.
func descendant(pid int, word string) int {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, task := range tasks {
		b, _ := os.ReadFile(task)
		for _, f := range strings.Fields(string(b)) {
			child, _ := strconv.Atoi(f)
			cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", child))
			if slices.Contains(strings.Split(string(cmdline), "\x00"), word) {
				return child
			}
			if p := descendant(child, word); p != 0 {
				return p
			}
		}
	}
	return 0
}

// shown is what the terminal has shown from byte from on.
func (s *serveProc) shown(from int) string {
	b, _ := os.ReadFile(s.transcript)
	if from > len(b) {
		return ""
	}
	return strings.ReplaceAll(string(b[from:]), "\r", "")
}

// waitText waits until the terminal shows text after byte from, and
// returns what it has shown from there.
func (s *serveProc) waitText(d time.Duration, what string, from int, text string) string {
	s.t.Helper()
	var out string
	if !testenv.Eventually(d, func() bool { out = s.shown(from); return strings.Contains(out, text) }) {
		s.t.Fatalf("reins serve: no %s within %v; the terminal showed:\n%s", what, d, s.shown(0))
	}
	return out
}

// textWithin waits up to d for the terminal to show text after byte
// from, and returns what it has shown from there.
func (s *serveProc) textWithin(d time.Duration, from int, text string) (string, bool) {
	var out string
	ok := testenv.Eventually(d, func() bool { out = s.shown(from); return strings.Contains(out, text) })
	return out, ok
}

// typeIn clicks into the terminal, types line and Return there as the
// person, and puts the pointer back on the page, off Reins' window.
func (s *serveProc) typeIn(line string) int {
	s.t.Helper()
	from := len(s.shown(0))
	if err := personTypes(s.display, line+"\n"); err != nil {
		s.t.Fatal(err)
	}
	return from
}

// allowAll answers, in the terminal, each approval it shows from now on
// until ctx ends.
func (s *serveProc) allowAll(ctx context.Context) {
	go func() {
		for ctx.Err() == nil {
			for _, line := range strings.Split(s.shown(0), "\n") {
				f := strings.Fields(line)
				if len(f) < 2 || f[0] != "APPROVAL" {
					continue
				}
				s.mu.Lock()
				done := s.allowed[f[1]]
				s.allowed[f[1]] = true
				s.mu.Unlock()
				if !done {
					personTypes(s.display, "allow "+f[1]+"\n")
				}
			}
			select {
			case <-ctx.Done():
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
}

// personTypes clicks into the terminal and types text there through XTEST,
// as the person at the keyboard: lower-case letters, digits, spaces and
// "\n" (Return). Then it moves the pointer onto the page, so that Reins'
// window is not the one in front when the act fires.
func personTypes(display, text string) error {
	personKeys.Lock()
	defer personKeys.Unlock()
	c, err := xgb.NewConnDisplay(display)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := xtest.Init(c); err != nil {
		return err
	}
	setup := xproto.Setup(c)
	root := setup.DefaultScreen(c).Root
	km, err := xproto.GetKeyboardMapping(c, setup.MinKeycode, byte(int(setup.MaxKeycode)-int(setup.MinKeycode)+1)).Reply()
	if err != nil {
		return err
	}
	fake := func(typ, detail byte, x, y int16) error {
		return xtest.FakeInputChecked(c, typ, detail, 0, root, x, y, 0).Check()
	}
	// Chromium takes the keyboard focus when its window maps, and with no
	// window manager nothing gives it back: the person's keys follow the
	// pointer again, as they do on a bare X desktop.
	if err := xproto.SetInputFocusChecked(c, xproto.InputFocusPointerRoot, xproto.InputFocusPointerRoot, xproto.TimeCurrentTime).Check(); err != nil {
		return err
	}
	if err := fake(xproto.MotionNotify, 0, termX, termY); err != nil {
		return err
	}
	for _, r := range text {
		sym := xproto.Keysym(r)
		if r == '\n' {
			sym = 0xff0d // Return
		}
		i := slices.Index(km.Keysyms, sym)
		if i < 0 {
			return fmt.Errorf("no key types %q", r)
		}
		code := byte(int(setup.MinKeycode) + i/int(km.KeysymsPerKeycode))
		if err := fake(xproto.KeyPress, code, 0, 0); err != nil {
			return err
		}
		if err := fake(xproto.KeyRelease, code, 0, 0); err != nil {
			return err
		}
	}
	return fake(xproto.MotionNotify, 0, pageX, pageY)
}

// personKeys keeps the person's typing into the terminal one line at a
// time.
var personKeys sync.Mutex

// shareTab shares the tab showing origin at control and returns its id.
func (s *serveProc) shareTab(t *testing.T, origin string) string {
	s.t = t
	s.t.Helper()
	var id string
	// The person shares once the extension has paired, as the terminal
	// says it has.
	s.waitText(testenv.Patience, "the extension", 0, "\nChrome extension connected.")
	if !testenv.Eventually(testenv.Patience, func() bool {
		from := s.typeIn("tabs")
		out, _ := s.textWithin(time.Second, from, "(")
		for _, line := range strings.Split(out, "\n") {
			if strings.Contains(line, "("+origin) {
				id = strings.Fields(strings.TrimPrefix(line, "*"))[0]
				return true
			}
		}
		return false
	}) {
		s.t.Fatalf("the tab on %s is not in reins serve's list; the terminal showed:\n%s", origin, s.shown(0))
	}
	from := s.typeIn("share " + id + " control")
	s.waitText(10*time.Second, "share", from, "Tab "+id+" is now shared: control")
	return id
}

// guardPID is the pid of the release guard Reins runs now, or 0.
func (s *serveProc) guardPID() int {
	return descendant(s.pid, "release-guard")
}

// agent connects an MCP client to this Reins through the real `reins mcp`.
func agent(t *testing.T, bin string, env []string) *sdk.ClientSession {
	t.Helper()
	cmd := exec.Command(bin, "mcp")
	cmd.Env = env
	client := sdk.NewClient(&sdk.Implementation{Name: "kill test agent", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// typing lists the key codes that type r on the display.
func typing(t *testing.T, display string, r rune) []int {
	t.Helper()
	c, err := xgb.NewConnDisplay(display)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	setup := xproto.Setup(c)
	m, err := xproto.GetKeyboardMapping(c, setup.MinKeycode, byte(int(setup.MaxKeycode)-int(setup.MinKeycode)+1)).Reply()
	if err != nil {
		t.Fatal(err)
	}
	var codes []int
	for i, sym := range m.Keysyms {
		if sym == xproto.Keysym(0x01000000|r) {
			codes = append(codes, int(setup.MinKeycode)+i/int(m.KeysymsPerKeycode))
		}
	}
	return codes
}

// stopped reports whether pid has stopped on a signal.
func stopped(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the command's name, which is in parentheses.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && (f[0] == "T" || f[0] == "t")
}

// waitExit waits for pid, which need not be this process's child, to exit.
func waitExit(t *testing.T, pid int, d time.Duration) {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return // already gone
	}
	defer unix.Close(fd)
	deadline := time.Now().Add(d)
	for {
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, int(time.Until(deadline).Milliseconds()))
		switch {
		case err == unix.EINTR && time.Now().Before(deadline):
			continue // the Go runtime's own signals interrupt poll
		case err != nil || n != 1:
			t.Fatalf("process %d did not exit within %v (%v)", pid, d, err)
		}
		return
	}
}

// freezeHoldingKey stops Reins (and, with guard too, its release guard) at
// a moment it holds a key down, once the page has seen at least after
// keydowns, and returns when it stopped.
func freezeHoldingKey(t *testing.T, s *serveProc, w *browsertest.Witness, display string, after int, guard bool) time.Time {
	t.Helper()
	pid := s.pid
	gpid := s.guardPID()
	for try := 0; try < 100; try++ {
		testenv.WaitFor(t, fmt.Sprintf("%d keydowns on the page", after), func() bool {
			events, _ := pageKeys(w)
			n := 0
			for _, e := range events {
				if e.down && e.trusted {
					n++
				}
			}
			return n >= after
		})
		if guard {
			syscall.Kill(gpid, syscall.SIGSTOP)
		}
		// Asked until it holds: a SIGCONT that script passes on late would
		// let Reins go on again.
		testenv.WaitFor(t, "Reins to stop", func() bool {
			syscall.Kill(pid, syscall.SIGSTOP)
			if guard {
				syscall.Kill(gpid, syscall.SIGSTOP)
			}
			return stopped(pid) && (!guard || stopped(gpid))
		})
		at := time.Now()
		if len(keysDown(t, display)) > 0 {
			return at
		}
		s.resume()
		if guard {
			syscall.Kill(gpid, syscall.SIGCONT)
		}
		after++
	}
	t.Fatal("Reins was never caught holding a key")
	return time.Time{}
}

// unknownRows are the lines of `reins audit` that end an act as stopped.
func unknownRows(t *testing.T, bin string, env []string) []string {
	t.Helper()
	cmd := exec.Command(bin, "audit", "-n", "2000")
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("reins audit: %v\n%s", err, out)
	}
	var rows []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, "→ "+persondoor.StoppedWords+" [reins_stopped] (of #") {
			rows = append(rows, l)
		}
	}
	return rows
}

// TestKilledMidTypingLeavesNoKeyDown types into a real page and kills
// Reins with SIGKILL part-way: Reins alone (20 acts of 50 characters, at
// seeded points), its release guard alone, and both at once (400
// characters). Each time it counts, with the page's own
// handlers, the keydowns that arrive after the kill and the keys left down.
func TestKilledMidTypingLeavesNoKeyDown(t *testing.T) {
	if _, ok := browsertest.Chromium(); !ok {
		browsertest.Start(t, browsertest.Options{})
	}
	reinsBinaryFor(t)
	bin := reinsBinary.path
	x := xvfb.StartT(t, "1280x800x24")
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	env := append(os.Environ(), "REINS_DATA_DIR="+data, "DISPLAY="+x.Display)
	var guards []int
	t.Cleanup(func() {
		for _, pid := range guards {
			if cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); strings.Contains(string(cmdline), "release-guard") {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})

	witness := browsertest.NewWitness()
	origin := browsertest.Serve(t, witness, map[string]string{"/keys.html": keysPage()})
	reins := startServe(t, bin, env, dir)
	browsertest.Start(t, browsertest.Options{X: x, DataDir: data, Reins: bin, URL: origin + "/keys.html"})
	ctx := context.Background()
	// Its last character is on no key: a spare key code is lent to it
	// for the whole act.
	text := strings.Repeat("the quick brown fox jumps over the lazy dog ", 10)[:399] + "→"

	// startTyping shares the page with a new agent and has it type text.
	startTyping := func(t *testing.T, s *serveProc, text string) <-chan mcptest.Result {
		t.Helper()
		tab := s.shareTab(t, origin)
		cs := agent(t, bin, env)
		snap := mcptest.MustCall(t, cs, "browser_snapshot", map[string]any{"tab": tab})
		field := mcptest.Ref(t, snap, "textbox", "Notes")
		return mcptest.Go(ctx, cs, "browser_type", map[string]any{"tab": tab, "ref": field, "text": text})
	}
	began := time.Now()

	// Reins alone, killed 20 times during a 200-character typing act, each
	// time after a number of keydowns a seeded draw picks: the release
	// guard lets go; each restart ends the act's row as unknown.
	const alone = 20
	short := strings.Repeat("the quick brown fox ", 10)[:199] + "→"
	draw := rand.New(rand.NewPCG(20261201, 11))
	for i := range alone {
		after := 3 + draw.IntN(33)
		t.Run(fmt.Sprintf("Reins alone %d, after %d keys", i+1, after), func(t *testing.T) {
			witness.Reset("keys")
			startTyping(t, reins, short)
			gpid := reins.guardPID()
			if gpid == 0 {
				t.Fatalf("reins serve runs no release guard; stderr:\n%s", reins.shown(0))
			}
			guards = append(guards, gpid)
			at := freezeHoldingKey(t, reins, witness, x.Display, after, false)
			killed := time.Now()
			syscall.Kill(reins.pid, syscall.SIGKILL)
			waitExit(t, reins.pid, 10*time.Second)
			waitExit(t, gpid, 10*time.Second)
			if down := keysDown(t, x.Display); len(down) > 0 {
				t.Errorf("after the release guard exited, keys %v are still down", down)
			}
			if codes := typing(t, x.Display, '→'); len(codes) > 0 {
				t.Errorf("after the release guard exited, key codes %v still type →", codes)
			}
			letGo(t, witness, at)
			events, _ := pageKeys(witness)
			c := countAfter(events, at)
			t.Logf("kill -9 of Reins: after the kill the page saw %s; the key went up on the page %v after the kill", c, lastUp(events).Sub(killed).Round(time.Millisecond))
			// Keys typed just before the freeze may reach the page after it,
			// each with its release; none may be pressed after the last one.
			if c.repeats != 0 || c.releases == 0 || c.presses > c.releases || events[len(events)-1].down {
				t.Errorf("after kill -9 of Reins alone: %s; want no auto-repeat, every key let go and the last event a release", c)
			}
		})
		reins = startServe(t, bin, env, dir)
		rows := unknownRows(t, bin, env)
		if len(rows) != i+1 || !strings.Contains(rows[i], "type") {
			t.Fatalf("after restart %d: want %d rows saying a type act's outcome is unknown, got %q", i+1, i+1, rows)
		}
		t.Logf("reins audit after restart %d: %s", i+1, rows[i])
	}

	t.Run("the release guard alone", func(t *testing.T) {
		// Reins goes on whatever happens here, for the next part.
		defer reins.resume()
		witness.Reset("keys")
		from := time.Now()
		typed := startTyping(t, reins, text)
		gpid := reins.guardPID()
		guards = append(guards, gpid)
		at := freezeHoldingKey(t, reins, witness, x.Display, 30, false)
		syscall.Kill(gpid, syscall.SIGKILL)
		waitExit(t, gpid, 10*time.Second)
		reins.resume()
		res := mcptest.Await(t, "the type act", typed, nil)
		if res.IsErr || !strings.Contains(res.Text, "Type") {
			t.Fatalf("the type act after its guard was killed: %s", res.Text)
		}
		if !testenv.Eventually(testenv.Patience, func() bool {
			events, held := pageKeys(witness)
			c := countAfter(events, from)
			return held == 0 && c.presses+c.repeats >= utf8.RuneCountInString(text) && c.releases >= c.presses+c.repeats
		}) {
			events, held := pageKeys(witness)
			t.Fatalf("the page did not see every key go up: %s, %d held; result %q; stderr:\n%s", countAfter(events, from), held, res.Text, reins.shown(0))
		}
		events, _ := pageKeys(witness)
		all := countAfter(events, from)
		c := countAfter(events, at)
		t.Logf("kill -9 of the release guard: the act went on and was done; from the kill on the page saw %s; %d keydowns in all", c, all.presses)
		if n := utf8.RuneCountInString(text); all.repeats != 0 || all.presses != n {
			t.Errorf("want %d keydowns and no auto-repeat, got %s", n, all)
		}
		if down := keysDown(t, x.Display); len(down) > 0 {
			t.Errorf("keys %v are still down", down)
		}
		testenv.WaitFor(t, "a new release guard", func() bool { p := reins.guardPID(); return p != 0 && p != gpid })
		guards = append(guards, reins.guardPID())
	})

	t.Run("Reins and its guard at once", func(t *testing.T) {
		witness.Reset("keys")
		startTyping(t, reins, text)
		gpid := reins.guardPID()
		at := freezeHoldingKey(t, reins, witness, x.Display, 30, true)
		syscall.Kill(gpid, syscall.SIGKILL)
		syscall.Kill(reins.pid, syscall.SIGKILL)
		waitExit(t, reins.pid, 10*time.Second)
		waitExit(t, gpid, 10*time.Second)
		// Nothing lets go now: this is Reins without its guard. The key
		// repeats until the next start lets go of it.
		testenv.WaitFor(t, "25 auto-repeats on the page", func() bool {
			events, _ := pageKeys(witness)
			return countAfter(events, at).repeats >= 25
		})
		events, _ := pageKeys(witness)
		before := countAfter(events, at)
		held := time.Since(at)
		restarted := time.Now()
		reins = startServe(t, bin, env, dir)
		letGo(t, witness, at)
		released := time.Since(restarted)
		events, _ = pageKeys(witness)
		c := countAfter(events, at)
		t.Logf("kill -9 of Reins and its guard: %s in the %v before the restart (what gets through without the guard); %s in all, the key let go %v after the restart began",
			before, held.Round(time.Millisecond), c, released.Round(time.Millisecond))
		if down := keysDown(t, x.Display); len(down) > 0 {
			t.Errorf("after the restart, keys %v are still down", down)
		}
		if codes := typing(t, x.Display, '→'); len(codes) > 0 {
			t.Errorf("after the restart, key codes %v still type →", codes)
		}
		if c.releases == 0 {
			t.Errorf("the restart let go of nothing: %s", c)
		}
		if !strings.Contains(reins.shown(0), "let go of input left held down as Reins started: key") ||
			!strings.Contains(reins.shown(0), "lent key code") {
			t.Errorf("the restart did not say what it let go of:\n%s", reins.shown(0))
		}
		if rows := unknownRows(t, bin, env); len(rows) != alone+1 {
			t.Fatalf("want %d rows saying a type act's outcome is unknown, got %q", alone+1, rows)
		}
	})
	t.Logf("the whole test took %v", time.Since(began).Round(time.Millisecond))
}
