package core

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os/exec"
	"sync"
	"time"

	"github.com/reins-app/reins/executor"
)

// The self-test's window is a child process of Reins — the reins binary in
// its SelfTestWindowMode — so that Reins' input lands in a window that is
// neither the person's (nothing of theirs is touched) nor Reins' own (which
// the own-window rule refuses). It tells, one JSON line at a time on its
// stdout, what its own handlers saw; Reins asks it things one line at a
// time on its stdin. Every area of it has a name the events carry.

// SelfTestWindowMode is the argument that runs the reins binary as the
// self-test's window.
const SelfTestWindowMode = "selftest-window"

// SelfTestGuardParentMode is the argument that runs the reins binary as the
// parent of a release guard, which the self-test kills to show that the
// guard then lets go.
const SelfTestGuardParentMode = "selftest-guard-parent"

// Names of the test window's areas.
const (
	AreaClick     = "click"     // takes single clicks
	AreaDouble    = "double"    // takes double clicks
	AreaText      = "text"      // a multi-line text field, holding TestWindowSeed at first
	AreaSecret    = "secret"    // a password field
	AreaScroll    = "scroll"    // takes the wheel
	AreaDrag      = "drag"      // a handle to drag
	AreaMarker    = "marker"    // a block of TestWindowMarker, for pictures
	AreaElsewhere = "elsewhere" // anywhere else in the window
)

// The test window's fixed content.
const (
	// TestWindowTitle is its title.
	TestWindowTitle = "Reins self-test"
	// TestWindowSeed is what its text field holds before the test types.
	TestWindowSeed = "seed text"
	// TestWindowSecret is what its password field holds: no picture the
	// test keeps may show it.
	TestWindowSecret = "selftest-secret"
)

// TestWindowMarker is the colour of the marker block, which the picture
// check looks for: a colour no theme paints.
var TestWindowMarker = [3]uint8{0xE0, 0x10, 0xC8}

// TestWindowBox is a rectangle in the window's content, in the units the
// window reports (TestWindowEvent.Scale): its toolkit's units times its
// scale, which are the windowing system's.
type TestWindowBox struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
	W float64 `json:"w"`
	H float64 `json:"h"`
}

// Centre is the box's middle.
func (b TestWindowBox) Centre() (float64, float64) { return b.X + b.W/2, b.Y + b.H/2 }

// Contains reports whether (x, y) lies in b.
func (b TestWindowBox) Contains(x, y float64) bool {
	return x >= b.X && x < b.X+b.W && y >= b.Y && y < b.Y+b.H
}

// TestWindowEvent is one line the window writes.
type TestWindowEvent struct {
	// Ev is what happened: "ready", "tap", "doubletap", "down", "up",
	// "drag", "dragend", "scroll", "text", "shortcut", "focused",
	// "synced".
	Ev   string  `json:"ev"`
	Area string  `json:"area,omitempty"`
	X    float64 `json:"x,omitempty"` // where, in the content, in TestWindowBox units
	Y    float64 `json:"y,omitempty"`
	DX   float64 `json:"dx,omitempty"` // scroll: right and down positive
	DY   float64 `json:"dy,omitempty"`
	// Text is, for "text", the text field's text; for "shortcut", the
	// shortcut's name; Selected, the field's selection after it.
	Text     string `json:"text,omitempty"`
	Selected string `json:"selected,omitempty"`
	N        int    `json:"n,omitempty"` // "synced": the number asked
	// ready: the process, the content's size and the areas, in
	// TestWindowBox units, and the toolkit's scale.
	PID   int                      `json:"pid,omitempty"`
	W     float64                  `json:"w,omitempty"`
	H     float64                  `json:"h,omitempty"`
	Scale float64                  `json:"scale,omitempty"`
	Areas map[string]TestWindowBox `json:"areas,omitempty"`
	at    time.Time                // when Reins read it
}

// testWindow is the running test window, as Reins sees it.
type testWindow struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	ready TestWindowEvent
	done  chan struct{} // closed once it has exited

	mu     sync.Mutex
	events []TestWindowEvent // guarded by mu: every line since ready
	more   chan struct{}     // guarded by mu: closed and replaced at each line
	synced int               // guarded by mu: the last "sync" asked
}

// testWindowWait is how long the window has to show itself.
const testWindowWait = 30 * time.Second

// startTestWindow starts the window with program and args and waits for
// its "ready".
func startTestWindow(ctx context.Context, program string, args []string) (*testWindow, error) {
	if program == "" {
		return nil, errors.New("this Reins was started without its own program to show a window with")
	}
	cmd := exec.Command(program, args...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr tailBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("the test window could not start: %w", err)
	}
	w := &testWindow{cmd: cmd, in: in, done: make(chan struct{}), more: make(chan struct{})}
	ready := make(chan TestWindowEvent, 1)
	go w.read(out, ready)
	go func() {
		cmd.Wait()
		close(w.done)
	}()
	t := time.NewTimer(testWindowWait)
	defer t.Stop()
	select {
	case ev := <-ready:
		w.ready = ev
		if ev.PID != cmd.Process.Pid {
			w.close()
			return nil, fmt.Errorf("the test window says it is pid %d, but Reins started pid %d", ev.PID, cmd.Process.Pid)
		}
		return w, nil
	case <-w.done:
		return nil, fmt.Errorf("the test window exited before it showed: %s", stderr.String())
	case <-t.C:
		w.close()
		return nil, fmt.Errorf("the test window did not show within %s: %s", testWindowWait, stderr.String())
	case <-ctx.Done():
		w.close()
		return nil, ctx.Err()
	}
}

func (w *testWindow) read(out io.Reader, ready chan<- TestWindowEvent) {
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	first := true
	for sc.Scan() {
		var ev TestWindowEvent
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		ev.at = time.Now()
		if first && ev.Ev == "ready" {
			first = false
			ready <- ev
			continue
		}
		w.mu.Lock()
		w.events = append(w.events, ev)
		close(w.more)
		w.more = make(chan struct{})
		w.mu.Unlock()
	}
}

// pid is the window's process.
func (w *testWindow) pid() int { return w.cmd.Process.Pid }

// mark is where the events seen so far end, for since.
func (w *testWindow) mark() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.events)
}

// since returns the events from mark on.
func (w *testWindow) since(mark int) []TestWindowEvent {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]TestWindowEvent(nil), w.events[min(mark, len(w.events)):]...)
}

// await waits, up to d, until ok accepts the events from mark on, and
// returns them with whether it did.
func (w *testWindow) await(ctx context.Context, mark int, d time.Duration, ok func([]TestWindowEvent) bool) ([]TestWindowEvent, bool) {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		w.mu.Lock()
		evs := append([]TestWindowEvent(nil), w.events[min(mark, len(w.events)):]...)
		more := w.more
		w.mu.Unlock()
		if ok(evs) {
			return evs, true
		}
		select {
		case <-more:
		case <-t.C:
			return evs, false
		case <-w.done:
			return w.since(mark), ok(w.since(mark))
		case <-ctx.Done():
			return evs, false
		}
	}
}

// sync asks the window to answer once it has handled every input its
// toolkit has taken, and waits for the answer, up to d: what it saw by
// then is all it will see of what came before.
func (w *testWindow) sync(ctx context.Context, d time.Duration) bool {
	w.mu.Lock()
	w.synced++
	n := w.synced
	mark := len(w.events)
	w.mu.Unlock()
	if _, err := fmt.Fprintf(w.in, "sync %d\n", n); err != nil {
		return false
	}
	_, ok := w.await(ctx, mark, d, func(evs []TestWindowEvent) bool {
		for _, ev := range evs {
			if ev.Ev == "synced" && ev.N == n {
				return true
			}
		}
		return false
	})
	return ok
}

// raise asks the window to come to the front and give its text field the
// keyboard, and waits, up to d, for it to say it did.
func (w *testWindow) raise(ctx context.Context, d time.Duration) error {
	mark := w.mark()
	if _, err := io.WriteString(w.in, "focus\n"); err != nil {
		return err
	}
	if _, ok := w.await(ctx, mark, d, func(evs []TestWindowEvent) bool { return find(evs, "focused", AreaText) >= 0 }); !ok {
		return errors.New("the test window did not say it took the focus")
	}
	return nil
}

// close ends the window: it is asked to quit, and killed if it has not
// within a few seconds.
func (w *testWindow) close() {
	io.WriteString(w.in, "quit\n")
	w.in.Close()
	t := time.NewTimer(3 * time.Second)
	defer t.Stop()
	select {
	case <-w.done:
	case <-t.C:
		w.cmd.Process.Kill()
		<-w.done
	}
}

// placed is the test window as the executor finds it on screen, and how
// its content's units map to the executor's DIP.
type placed struct {
	app    executor.App
	window executor.Window
	// ox, oy: the content's top-left in DIP; k: DIP per content unit.
	ox, oy, k float64
}

// place finds where the content of a window of size w × h content units
// lies within win, the window as the executor lists it. The executor's
// box is the content alone on X; on macOS it holds the title bar above
// the content, and no border at the sides or below. The scale between
// the two is read from the widths.
func place(win executor.Window, w, h float64) (placed, error) {
	if w <= 0 || h <= 0 || win.W <= 0 || win.H <= 0 {
		return placed{}, fmt.Errorf("the test window reports %gx%g and is listed as %gx%g", w, h, win.W, win.H)
	}
	k := win.W / w
	// Toolkits round a window to whole pixels: a scale within a pixel of
	// a simple one is that one.
	for _, simple := range []float64{1, 2, 0.5, 1.5, 3} {
		if math.Abs(win.W-w*simple) <= 1.5 {
			k = simple
			break
		}
	}
	if win.H+1.5 < h*k {
		return placed{}, fmt.Errorf("the test window is listed %g high, less than its content (%g)", win.H, h*k)
	}
	return placed{app: win.App, window: win, ox: win.X + (win.W-w*k)/2, oy: win.Y + win.H - h*k, k: k}, nil
}

// at is the screen point, in DIP, of the content point (x, y).
func (p placed) at(x, y float64) (float64, float64) { return p.ox + x*p.k, p.oy + y*p.k }

// centre is the screen point, in DIP, of b's middle.
func (p placed) centre(b TestWindowBox) (float64, float64) { return p.at(b.Centre()) }

// tailBuffer keeps the last few kilobytes written to it.
type tailBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 4096 {
		t.b = t.b[len(t.b)-4096:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
