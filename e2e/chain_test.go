// Package e2e drives the whole chain for real: Debian Chromium under Xvfb
// with the Reins extension, the bridge paired through the native messaging
// host, grounding, the approval broker, a SQLite audit file and XTEST input.
// The test pages' own event handlers are the witnesses.
package e2e

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"
	_ "modernc.org/sqlite"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/deskread"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/executor/xdesk"
	"github.com/reins-app/reins/internal/testrig/browsertest"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/internal/testrig/xvfb"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// checkedExecutor asserts, from the executor's side, that the ticket's
// "about to fire" row is already committed and visible to an independent
// read-only connection before any event fires.
type checkedExecutor struct {
	executor.Executor
	dbPath string
	fired  atomic.Int64
	mu     sync.Mutex
	errs   []error
}

func (c *checkedExecutor) Fire(ctx context.Context, t audit.Ticket) error {
	if err := c.committed(t.Seq()); err != nil {
		c.mu.Lock()
		c.errs = append(c.errs, err)
		c.mu.Unlock()
		return err
	}
	c.fired.Add(1)
	return c.Executor.Fire(ctx, t)
}

func (c *checkedExecutor) committed(seq int64) error {
	db, err := sql.Open("sqlite", "file:"+c.dbPath+"?mode=ro")
	if err != nil {
		return err
	}
	defer db.Close()
	var phase, outcome string
	err = db.QueryRow(`SELECT phase, outcome FROM audit_rows WHERE seq = ?`, seq).Scan(&phase, &outcome)
	if err != nil {
		return fmt.Errorf("row %d not visible before firing: %w", seq, err)
	}
	if phase != audit.PhaseFire || outcome != vocab.OutcomeAboutToFire {
		return fmt.Errorf("row %d is %s/%s, not fire/about_to_fire", seq, phase, outcome)
	}
	return nil
}

func (c *checkedExecutor) problems() []error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]error(nil), c.errs...)
}

// answerer answers approvals as the test says, the way a person would
// through the terminal or the popup.
type answerer struct {
	mu     sync.Mutex
	policy string // "allow", "allow-tab", "deny" or "silent"
	asked  int
}

func (a *answerer) set(p string) {
	a.mu.Lock()
	a.policy = p
	a.mu.Unlock()
}

func (a *answerer) run(rt *core.Runtime) func() {
	events, stop := rt.Subscribe(64)
	go func() {
		for ev := range events {
			if ev.Kind != persondoor.EventApproval {
				continue
			}
			a.mu.Lock()
			p := a.policy
			a.asked++
			a.mu.Unlock()
			switch p {
			case "allow":
				rt.Answer(ev.Request.ID, vocab.AllowOnce)
			case "allow-tab":
				rt.Answer(ev.Request.ID, vocab.AllowTab)
			case "deny":
				rt.Answer(ev.Request.ID, vocab.Deny)
			}
		}
	}()
	return stop
}

type rig struct {
	t       testing.TB
	rt      *core.Runtime
	exec    *checkedExecutor
	raw     executor.Executor
	witness *browsertest.Witness
	browser *browsertest.Browser
	origin  string
	cross   string
	tab     string
	agent   agentdoor.Session
	answer  *answerer
	data    string
	scale   float64
	display string       // the X display Chromium runs on
	x       *xvfb.Server // that display
}

var reinsBinary struct {
	once sync.Once
	path string
}

// reinsBinaryFor builds the reins binary once for the package's tests.
func reinsBinaryFor(t testing.TB) {
	t.Helper()
	reinsBinary.once.Do(func() {
		dir, err := os.MkdirTemp("", "reins-e2e-bin")
		if err != nil {
			t.Fatal(err)
		}
		reinsBinary.path = browsertest.BuildReins(t, dir)
	})
}

// reinsOn starts what a test in real Chromium needs but its pages and the
// browser: an X display of the size screen names, Reins with the real
// executor (checked: every act's row is committed before it fires), a
// witness for the pages, and a person who allows every act (r.answer.set
// changes that; "silent" leaves the answering to the test).
func reinsOn(t testing.TB, screen string, approvalTimeout time.Duration) *rig {
	t.Helper()
	return reinsWith(t, screen, approvalTimeout, nil)
}

// reinsWith is reinsOn, with more of Reins' start options set by more.
func reinsWith(t testing.TB, screen string, approvalTimeout time.Duration, more func(*core.StartOptions)) *rig {
	t.Helper()
	if _, ok := browsertest.Chromium(); !ok {
		// Let browsertest decide: skip on a laptop, fail under CI.
		browsertest.Start(t, browsertest.Options{})
	}
	reinsBinaryFor(t)
	x := xvfb.StartT(t, screen)
	data := filepath.Join(t.TempDir(), "data")
	raw, err := executor.New(executor.Options{Display: x.Display})
	if err != nil {
		t.Fatal(err)
	}
	exec := &checkedExecutor{Executor: raw, dbPath: filepath.Join(data, "audit.db")}
	so := core.StartOptions{DataDir: data, Executor: exec, Reader: readerOf(t, x.Display, "", raw, deskread.AccessibleAuto), ApprovalTimeout: approvalTimeout, Logf: t.Logf}
	if more != nil {
		more(&so)
	}
	rt, err := core.Start(context.Background(), so)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	r := &rig{t: t, rt: rt, exec: exec, raw: raw, witness: browsertest.NewWitness(), data: data, scale: 1, display: x.Display, x: x, answer: &answerer{policy: "allow"}}
	t.Cleanup(r.answer.run(rt))
	return r
}

func setup(t testing.TB, screen string, scale float64, approvalTimeout time.Duration) *rig {
	t.Helper()
	r := reinsOn(t, screen, approvalTimeout)
	r.scale = scale
	rt, data, x := r.rt, r.data, r.x
	r.cross = browsertest.Serve(t, r.witness, map[string]string{"/frame.html": framePage()})
	r.origin = browsertest.Serve(t, r.witness, map[string]string{
		"/index.html": mainPage(rt.Port(), r.cross),
		"/frame.html": framePage(),
		"/next.html":  nextPage(),
	})
	r.browser = browsertest.Start(t, browsertest.Options{
		X: x, DeviceScale: scale, DataDir: data, Reins: reinsBinary.path, URL: r.origin + "/index.html",
		Width: 1200, Height: 780,
	})
	r.agent = coretest.Admitted(t, rt.AgentDoor(), rt.PersonDoor(), vocab.Agent{Name: "e2e agent", Version: "1", PID: os.Getpid(), Exe: os.Args[0]})
	r.tab = r.pairedTab(r.origin + "/index.html")
	r.wait(context.Background(), "loaded", func(m map[string]any) bool { return m["page"] == "main" })
	return r
}

// pairedTab waits for the extension to pair and report a tab at an address
// starting with url, and returns the tab's id.
func (r *rig) pairedTab(url string) string {
	r.t.Helper()
	var id string
	testenv.WaitWithin(r.t, 30*time.Second, "the extension to pair and report the tab", func() bool {
		for _, tab := range r.rt.Tabs() {
			if tab.Connected && strings.HasPrefix(tab.URL, url) {
				id = tab.ID
				return true
			}
		}
		return false
	})
	return id
}

func (r *rig) wait(ctx context.Context, typ string, match func(map[string]any) bool) map[string]any {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	m, err := r.witness.Wait(ctx, typ, match)
	if err != nil {
		r.t.Fatal(err)
	}
	return m
}

func (r *rig) snapshot() *agentdoor.SnapshotResult {
	r.t.Helper()
	s, err := r.agent.Snapshot(context.Background(), r.tab)
	if err != nil {
		r.t.Fatalf("snapshot: %v", err)
	}
	return s
}

// ref finds the ref of the line with role and name in a snapshot.
func ref(t testing.TB, s *agentdoor.SnapshotResult, role, name string) string {
	t.Helper()
	re := regexp.MustCompile(`- ` + regexp.QuoteMeta(role) + ` "` + regexp.QuoteMeta(name) + `"[^\n]*\[ref=(f?\d*e\d+)\]`)
	m := re.FindStringSubmatch(s.Text)
	if m == nil {
		t.Fatalf("no %s %q in snapshot:\n%s", role, name, s.Text)
	}
	return m[1]
}

func (r *rig) clickRef(ref, snapshot string) error {
	_, err := r.agent.Act(context.Background(), agentdoor.ActRequest{Tab: r.tab, Ref: ref, Snapshot: snapshot, Act: vocab.Act{Kind: "click"}})
	return err
}

func code(err error) string {
	var ce *vocab.Error
	if errors.As(err, &ce) {
		return ce.Code
	}
	if err == nil {
		return ""
	}
	return "untyped: " + err.Error()
}

func (r *rig) clicks(id string) []map[string]any {
	var out []map[string]any
	for _, c := range r.witness.Events("click") {
		if c["id"] == id {
			out = append(out, c)
		}
	}
	return out
}

// settle gives a page time to report an event that must not happen.
func settle() { time.Sleep(700 * time.Millisecond) }

func (r *rig) auditRows(f persondoor.AuditFilter) []persondoor.AuditRow {
	rows, err := r.rt.AuditRows(context.Background(), f)
	if err != nil {
		r.t.Fatal(err)
	}
	return rows
}

// buttons are the four targets: in the main frame, in a same-origin frame,
// in a cross-origin frame on another port, and in a scrolled container.
var buttons = []struct{ id, name, frame string }{
	{"main", "Main button", "top"},
	{"framebtn", "Frame button", "same"},
	{"framebtn", "Frame button", "cross"},
	{"scrolled", "Scrolled button", "top"},
}

// clickAllFour clicks each button by ref and checks the page saw exactly one
// trusted click at the button's centre.
func (r *rig) clickAllFour() {
	t := r.t
	t.Helper()
	s := r.snapshot()
	frameRefs := regexp.MustCompile(`- button "Frame button" \[ref=(f\d+e\d+)\]`).FindAllStringSubmatch(s.Text, -1)
	if len(frameRefs) != 2 {
		t.Fatalf("want two frame buttons with frame refs, got %d in:\n%s", len(frameRefs), s.Text)
	}
	refs := []string{ref(t, s, "button", "Main button"), frameRefs[0][1], frameRefs[1][1], ref(t, s, "button", "Scrolled button")}
	for i, b := range buttons {
		before := 0
		for _, c := range r.clicks(b.id) {
			if c["frame"] == b.frame {
				before++
			}
		}
		if err := r.clickRef(refs[i], s.ID); err != nil {
			t.Fatalf("click %s in %s (%s): %v", b.name, b.frame, refs[i], err)
		}
		c := r.wait(context.Background(), "click", func(m map[string]any) bool {
			return m["id"] == b.id && m["frame"] == b.frame && countBefore(r, b.id, b.frame) > before
		})
		if c["trusted"] != true {
			t.Errorf("%s/%s: click not trusted: %v", b.frame, b.name, c)
		}
		dx := c["x"].(float64) - c["cx"].(float64)
		dy := c["y"].(float64) - c["cy"].(float64)
		if math.Abs(dx) > 1.5 || math.Abs(dy) > 1.5 {
			t.Errorf("%s/%s: click landed %.1f,%.1f CSS px from the centre (%v)", b.frame, b.name, dx, dy, c)
		}
	}
	settle()
	// Exactly one click each: four ids (the frame button twice, by frame).
	for _, b := range buttons {
		n := 0
		for _, c := range r.clicks(b.id) {
			if c["frame"] == b.frame {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s in %s saw %d clicks, want exactly 1", b.name, b.frame, n)
		}
	}
}

func countBefore(r *rig, id, frame string) int {
	n := 0
	for _, c := range r.clicks(id) {
		if c["frame"] == frame {
			n++
		}
	}
	return n
}

func (r *rig) assertFiredChecked() {
	r.t.Helper()
	if p := r.exec.problems(); len(p) > 0 {
		r.t.Fatalf("an act reached the executor before its audit row was committed: %v", p)
	}
}

func (r *rig) assertNoProcessesLeft() {
	r.t.Helper()
	pgid := r.browser.PID()
	r.t.Cleanup(func() {
		r.browser.Stop()
		if browsertest.GroupAlive(pgid) {
			r.t.Errorf("Chromium's process group %d is still alive after the test", pgid)
		}
	})
}

// pressRaw presses a chord straight through the executor, as test set-up
// (the page zoom), outside the agent's path.
func (r *rig) pressRaw(keys string) error {
	return r.raw.Fire(context.Background(), audit.TestOnlyTicket(vocab.Act{Kind: vocab.Key, Keys: keys}, audit.Landing{Scale: 1}))
}

// personMoves is the person nudging the mouse: a motion to where the
// pointer already is, sent through XTEST on a connection of its own, which
// is how a mouse's input reaches an X server.
func (r *rig) personMoves() {
	r.t.Helper()
	if err := nudge(r.display); err != nil {
		r.t.Fatal(err)
	}
}

func nudge(display string) error {
	c, err := xgb.NewConnDisplay(display)
	if err != nil {
		return err
	}
	defer c.Close()
	return nudgeOn(c)
}

func nudgeOn(c *xgb.Conn) error {
	if err := xtest.Init(c); err != nil {
		return err
	}
	root := xproto.Setup(c).DefaultScreen(c).Root
	p, err := xproto.QueryPointer(c, root).Reply()
	if err != nil {
		return err
	}
	return xtest.FakeInputChecked(c, xproto.MotionNotify, 0, 0, root, p.RootX, p.RootY, 0).Check()
}

// personKeepsMoving is the person using the mouse for d, as a mouse
// reports it: a motion every 8 ms. The returned func waits until they have
// stopped.
func (r *rig) personKeepsMoving(d time.Duration) (wait func()) {
	r.t.Helper()
	c, err := xgb.NewConnDisplay(r.display)
	if err != nil {
		r.t.Fatal(err)
	}
	if err := nudgeOn(c); err != nil {
		c.Close()
		r.t.Fatal(err)
	}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		defer c.Close()
		for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(8 * time.Millisecond) {
			if err := nudgeOn(c); err != nil {
				r.t.Errorf("the person's mouse: %v", err)
				return
			}
		}
	}()
	return func() { <-stopped }
}

// keysDown lists the keycodes the X server holds down now.
func keysDown(t testing.TB, display string) []int {
	t.Helper()
	down, err := xdesk.KeysDown(display)
	if err != nil {
		t.Fatal(err)
	}
	return down
}

// heldRequests counts, from now on, the approvals asked again because the
// person was using the mouse or keyboard.
func (r *rig) heldRequests() func() int {
	events, stop := r.rt.Subscribe(64)
	r.t.Cleanup(stop)
	var n atomic.Int32
	go func() {
		for ev := range events {
			if ev.Kind == persondoor.EventApproval && ev.Request.Busy > 0 {
				n.Add(1)
			}
		}
	}()
	return func() int { return int(n.Load()) }
}
