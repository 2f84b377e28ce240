package executor

// The dead man's switch. The X server keeps a key down that a departed
// client pressed, and so does macOS's event system: a Reins killed
// mid-typing (kill -9, a crash, the OOM killer) would leave its key held,
// auto-repeating into whatever has focus. So a small helper process, the
// same binary in its release-guard mode ([ServeGuard]), is told of every
// key and button the fire sequence presses and every key code it lends,
// over a pipe only Reins holds the writing end of. When Reins dies the
// pipe ends, and the helper lets go of everything it was told is held and
// exits.
//
// The protocol is one line per change, written by Reins before the press
// (or the lending) and after the release (or the giving back), so that
// the helper never knows of less than is held:
//
//	down key 38        the backend's key code
//	up key 38
//	down button 0      the sequence's button: 0 left, 1 right, 2–5 the wheel's
//	up button 0
//	lend 255           a spare key code, bound to a character for the act
//	back 255
//
// The helper answers once, "ready", when it can send input; then it only
// reads. A release it is told of twice, or of a key no longer down, does
// nothing: X drops a release of a key its XTEST device does not hold.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// pressKind is what a press holds down or lends.
type pressKind uint8

const (
	pressKey    pressKind = iota // a key, by the backend's code
	pressButton                  // a mouse button, by the sequence's button
	pressLent                    // a spare key code lent a character
)

// press is one thing the sequence has pressed: a key or button down, or a key
// code lent.
type press struct {
	kind pressKind
	code uint16
}

// line is how a change to h is written: on is a press or a lending.
func (h press) line(on bool) string {
	switch {
	case h.kind == pressLent && on:
		return "lend " + strconv.Itoa(int(h.code))
	case h.kind == pressLent:
		return "back " + strconv.Itoa(int(h.code))
	}
	verb, what := "up", "key"
	if on {
		verb = "down"
	}
	if h.kind == pressButton {
		what = "button"
	}
	return verb + " " + what + " " + strconv.Itoa(int(h.code))
}

func (h press) String() string {
	switch h.kind {
	case pressButton:
		return "button " + strconv.Itoa(int(h.code))
	case pressLent:
		return "lent key code " + strconv.Itoa(int(h.code))
	}
	return "key " + strconv.Itoa(int(h.code))
}

// parsePress reads one line of the protocol.
func parsePress(line string) (h press, on bool, err error) {
	f := strings.Fields(line)
	bad := fmt.Errorf("release guard: cannot read %q", line)
	var num string
	switch {
	case len(f) == 2 && (f[0] == "lend" || f[0] == "back"):
		h.kind, on, num = pressLent, f[0] == "lend", f[1]
	case len(f) == 3 && (f[0] == "down" || f[0] == "up") && (f[1] == "key" || f[1] == "button"):
		on, num = f[0] == "down", f[2]
		if f[1] == "button" {
			h.kind = pressButton
		}
	default:
		return press{}, false, bad
	}
	n, err := strconv.ParseUint(num, 10, 16)
	if err != nil {
		return press{}, false, bad
	}
	h.code = uint16(n)
	if h.kind == pressButton && h.code > uint16(wheelRight) {
		return press{}, false, bad
	}
	return h, on, nil
}

// guard is what the fire sequence tells of everything it holds. A press
// waits for pressing to succeed; a release has been sent by the time
// letGo is told.
type guard interface {
	// ready is nil when a Reins that died now would have its holds let
	// go of; the sequence asks before each act, and fires nothing
	// otherwise.
	ready() error
	// pressing is told of h before it is pressed or lent: an error stops
	// the act there, before h. A press that then fails stays listed: it
	// may have gone down, and letting go of a key that is up does nothing.
	pressing(h press) error
	// letGo is told of h once it is released or given back.
	letGo(h press)
	// Close is called once the executor has let go of everything.
	Close() error
}

// GuardOptions configures [StartGuard].
type GuardOptions struct {
	// Program and Args run the helper: this binary in its release-guard
	// mode, which calls [ServeGuard] on its stdin and stdout.
	Program string                           // required
	Args    []string                         // optional
	Stderr  io.Writer                        // optional: the helper's stderr; default os.Stderr
	Logf    func(format string, args ...any) // optional
}

// Guard is Reins' end of the dead man's switch: it keeps the helper
// running and tells it of every hold. Give it to the executor with
// [AttachGuard]; the executor closes it.
type Guard struct {
	opts GuardOptions

	mu      sync.Mutex
	pressed []press    // guarded by mu: in press order
	proc    *guardProc // guarded by mu: nil while no helper runs
	closed  bool       // guarded by mu
}

var _ guard = (*Guard)(nil)

// guardProc is one running helper.
type guardProc struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	exited chan struct{} // closed once it has exited
}

func (p *guardProc) alive() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// guardReadyWait is how long a new helper has to connect to the display.
const guardReadyWait = 10 * time.Second

// StartGuard starts the helper. When it cannot, the Guard says why before
// every act, which is then refused, and tries again each time.
func StartGuard(opts GuardOptions) *Guard {
	if opts.Stderr == nil {
		opts.Stderr = os.Stderr
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	g := &Guard{opts: opts}
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.spawn(); err != nil {
		opts.Logf("the release guard did not start (%v); Reins sends no input until it does", err)
	}
	return g
}

// PID is the running helper's process id, or 0.
func (g *Guard) PID() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.proc == nil || !g.proc.alive() {
		return 0
	}
	return g.proc.cmd.Process.Pid
}

// spawn starts a helper and tells it of every hold. Called with mu held.
func (g *Guard) spawn() error {
	if g.closed {
		return errClosed
	}
	if g.opts.Program == "" {
		return errors.New("no program to run as the release guard")
	}
	cmd := exec.Command(g.opts.Program, g.opts.Args...)
	cmd.Stderr = g.opts.Stderr
	// Its own process group, so that a Ctrl-C or a hang-up meant for
	// Reins' group does not take the helper with it.
	cmd.SysProcAttr = guardProcAttr()
	in, err := cmd.StdinPipe()
	if err == nil {
		var out io.ReadCloser
		if out, err = cmd.StdoutPipe(); err == nil {
			if err = cmd.Start(); err == nil {
				err = awaitReady(out)
			}
		}
	}
	if err != nil {
		if cmd.Process != nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
		return fmt.Errorf("the release guard (%s) could not start: %w", g.opts.Program, err)
	}
	p := &guardProc{cmd: cmd, in: in, exited: make(chan struct{})}
	for _, h := range g.pressed {
		if _, err := io.WriteString(in, h.line(true)+"\n"); err != nil {
			in.Close()
			cmd.Process.Kill()
			cmd.Wait()
			return fmt.Errorf("the release guard could not be told what is held: %w", err)
		}
	}
	g.proc = p
	go g.watch(p)
	return nil
}

// awaitReady waits for the helper's "ready".
func awaitReady(out io.Reader) error {
	got := make(chan error, 1)
	go func() {
		line, err := bufio.NewReader(out).ReadString('\n')
		switch {
		case strings.TrimSpace(line) == "ready":
			got <- nil
		case err != nil:
			got <- fmt.Errorf("it exited before it was ready (%v)", err)
		default:
			got <- fmt.Errorf("it said %q instead of ready", line)
		}
	}()
	t := time.NewTimer(guardReadyWait)
	defer t.Stop()
	select {
	case err := <-got:
		return err
	case <-t.C:
		return fmt.Errorf("it was not ready within %s", guardReadyWait)
	}
}

// watch waits for p to exit and, unless the guard is closing, starts a
// new helper at once: Reins may be holding a key right now. When that one
// cannot start either, the next act tries again, and fires nothing if it
// cannot.
func (g *Guard) watch(p *guardProc) {
	err := p.cmd.Wait()
	close(p.exited)
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed || g.proc != p {
		return
	}
	g.proc = nil
	g.opts.Logf("the release guard exited (%v); starting another", err)
	if err := g.spawn(); err != nil {
		g.opts.Logf("%v", err)
	}
}

// running returns the live helper, starting one when there is none.
// Called with mu held.
func (g *Guard) running() (*guardProc, error) {
	if g.closed {
		return nil, errClosed
	}
	if g.proc != nil && g.proc.alive() {
		return g.proc, nil
	}
	if err := g.spawn(); err != nil {
		return nil, err
	}
	return g.proc, nil
}

func (g *Guard) ready() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, err := g.running(); err != nil {
		return fmt.Errorf("%w, so nothing was fired: a key Reins pressed would stay down if Reins stopped", err)
	}
	return nil
}

// pressing tells the helper of h before it is pressed, starting a new helper
// (told of everything held, h included) when the one running is gone.
func (g *Guard) pressing(h press) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if h.kind == pressLent && slices.Contains(g.pressed, h) {
		// Lent again for another round: still one code to give back.
		return nil
	}
	g.pressed = append(g.pressed, h)
	p, err := g.running()
	if err == nil {
		if _, err = io.WriteString(p.in, h.line(true)+"\n"); err != nil {
			// The helper is gone: a new one learns of h with the rest.
			p.cmd.Process.Kill()
			<-p.exited
			if g.proc == p {
				g.proc = nil
			}
			err = g.spawn()
		}
	}
	if err != nil {
		g.pressed = remove(g.pressed, h)
		return fmt.Errorf("the release guard cannot be told of %s, so the act stopped there: %w", h, err)
	}
	return nil
}

// letGo tells the helper h is no longer pressed. A helper that cannot be told
// is replaced at the next hold, told only of what is still held.
func (g *Guard) letGo(h press) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.pressed = remove(g.pressed, h)
	if g.proc == nil || !g.proc.alive() {
		return
	}
	io.WriteString(g.proc.in, h.line(false)+"\n")
}

// Close ends the helper's pipe, so that it lets go of anything still
// recorded as held and exits, and waits for it.
func (g *Guard) Close() error {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return nil
	}
	g.closed = true
	p := g.proc
	g.proc = nil
	g.mu.Unlock()
	if p == nil {
		return nil
	}
	p.in.Close()
	t := time.NewTimer(guardReadyWait)
	defer t.Stop()
	select {
	case <-p.exited:
	case <-t.C:
		p.cmd.Process.Kill()
		<-p.exited
		return errors.New("the release guard did not exit when Reins closed; it was stopped")
	}
	return nil
}

// ServeGuard is the helper's side: it connects to the display (display is
// X11's; "" for $DISPLAY, ignored on macOS), says "ready" on out, reads
// holds from in until it ends, then lets go of everything still held and
// returns what it let go of.
func ServeGuard(in io.Reader, out io.Writer, display string) ([]string, error) {
	b, closeB, err := guardBackend(display)
	if err != nil {
		return nil, err
	}
	defer closeB()
	if _, err := io.WriteString(out, "ready\n"); err != nil {
		return nil, err
	}
	var held []press
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		h, on, err := parsePress(sc.Text())
		if err != nil {
			// A line it cannot read is not a reason to leave keys down.
			continue
		}
		switch {
		case on && h.kind == pressLent && slices.Contains(held, h):
		case on:
			held = append(held, h)
		default:
			held = remove(held, h)
		}
	}
	// Whatever ended the input, Reins can tell the helper nothing more.
	return letGoOf(b, held)
}

// letGoOf releases held on b, the last held first, and gives lent key
// codes back once no key is down.
func letGoOf(b backend, held []press) ([]string, error) {
	var done []string
	var errs []error
	at, _, err := b.pointer()
	if err != nil {
		errs = append(errs, err)
	}
	var lent []uint16
	for i := len(held) - 1; i >= 0; i-- {
		h := held[i]
		var e event
		switch h.kind {
		case pressLent:
			lent = append(lent, h.code)
			continue
		case pressButton:
			e = event{kind: buttonUp, button: button(h.code), at: at, clicks: 1}
		default:
			e = event{kind: keyUp, key: key{code: h.code}}
		}
		if err := b.post(e); err != nil {
			errs = append(errs, fmt.Errorf("%s may still be down: %w", h, err))
			continue
		}
		done = append(done, h.String())
	}
	for _, code := range lent {
		if err := b.giveBack(code); err != nil {
			errs = append(errs, err)
			continue
		}
		done = append(done, press{kind: pressLent, code: code}.String())
	}
	return done, errors.Join(errs...)
}

// AttachGuard makes g the dead man's switch of ex, which from then on
// tells it of every key and button it holds and closes it on Close. It
// reports false, leaving g to the caller, for an executor that sends no
// input of its own (the fake, no display). Call it before the first act.
func AttachGuard(ex Executor, g *Guard) bool {
	e, ok := ex.(interface{ guarded() *sequence })
	if !ok {
		return false
	}
	s := e.guarded()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.guard = g
	return true
}

// LetGoOfLeftovers releases every key and mouse button the desktop shows
// held by synthetic input, as a Reins killed with its release guard may
// have left them, and says which; Reins calls it once as it starts, before
// any act. On X it releases through XTEST only what XTEST's own device
// holds, never a key the person holds down. An executor with no desktop of
// its own (the fake, no display) has nothing to release.
func LetGoOfLeftovers(ex Executor) ([]string, error) {
	l, ok := ex.(leftovers)
	if !ok {
		return nil, nil
	}
	return l.letGoOfLeftovers()
}

// leftovers is an executor that can find and release what a departed
// client left held.
type leftovers interface {
	letGoOfLeftovers() ([]string, error)
}
