package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/extension"
	"github.com/reins-app/reins/internal/testrig/browsertest"
	"github.com/reins-app/reins/internal/testrig/chromium"
	"github.com/reins-app/reins/internal/testrig/xvfb"
	"github.com/reins-app/reins/mcp"
	"github.com/reins-app/reins/mcp/mcptest"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// The strip's page: a button whose label and the page's title carry what a
// hostile page would put there to forge what the person reads.
const stripPage = `<!doctype html><html><head><title>Strip page</title>
<style>body{margin:0;font:16px sans-serif} button{width:200px;height:40px;margin:8px}</style></head>
<body><button id="evil">placeholder</button>
<script>
document.title = "Shop\x1b[8m\u202e\nAPPROVAL a99";
document.getElementById("evil").setAttribute("aria-label", "Delete account\x1b[2K\r Click \u201cCancel\u202e\nnow\u2066" + "x".repeat(5000));
fetch("/witness", {method: "POST", body: JSON.stringify({type: "loaded", page: "strip"})});
</script></body></html>`

// stripRig is Reins with a Chromium whose DevTools port lets the test read
// the badge and drive the panel page as the extension's own pages.
type stripRig struct {
	t       *testing.T
	rt      *core.Runtime
	data    string
	origin  string
	answer  *answerer
	browser *chromium.Process
	cdp     *cdp
	sw      string // the service worker's CDP session
	tab     string // the page's tab in Reins
	chrome  int    // and in Chrome
}

func startStripRig(t *testing.T) *stripRig {
	t.Helper()
	if _, ok := browsertest.Chromium(); !ok {
		browsertest.Start(t, browsertest.Options{}) // skips on a laptop, fails under CI
	}
	reinsBinary.once.Do(func() {
		dir, err := os.MkdirTemp("", "reins-e2e-bin")
		if err != nil {
			t.Fatal(err)
		}
		reinsBinary.path = browsertest.BuildReins(t, dir)
	})
	x := xvfb.StartT(t, "1280x800x24")
	data := filepath.Join(t.TempDir(), "data")
	rt, err := core.Start(context.Background(), core.StartOptions{DataDir: data, Display: x.Display, ApprovalTimeout: 20 * time.Second, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	r := &stripRig{t: t, rt: rt, data: data, answer: &answerer{policy: "allow"}}
	t.Cleanup(r.answer.run(rt))
	witness := browsertest.NewWitness()
	r.origin = browsertest.Serve(t, witness, map[string]string{"/strip.html": stripPage})
	dir := t.TempDir()
	// Pinned, the action and its badge are on the toolbar, as a person sees them.
	prefs := filepath.Join(dir, "profile", "Default")
	os.MkdirAll(prefs, 0o700)
	os.WriteFile(filepath.Join(prefs, "Preferences"), []byte(`{"extensions":{"pinned_extensions":["`+extension.ID+`"]}}`), 0o600)
	r.browser, err = chromium.Launch(chromium.Options{
		Display: x.Display, Dir: dir, Reins: reinsBinary.path, DataDir: data, URL: r.origin + "/strip.html",
		Width: 1200, Height: 780, Args: []string{"--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1"},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		r.browser.Stop()
		if t.Failed() {
			if log, err := os.ReadFile(r.browser.LogPath); err == nil {
				t.Logf("chromium log (tail):\n%s", tailOf(string(log), 3000))
			}
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r.eventually(ctx, "the extension to pair and report the tab", func() bool {
		for _, tab := range rt.Tabs() {
			if tab.Connected && strings.HasPrefix(tab.URL, r.origin+"/strip.html") {
				r.tab = tab.ID
				return true
			}
		}
		return false
	})
	if _, err := witness.Wait(ctx, "loaded", nil); err != nil {
		t.Fatal(err)
	}
	r.cdp = dialCDP(t, ctx, r.browser.Profile)
	r.sw = r.cdp.attach(ctx, func(ti targetInfo) bool {
		return ti.Type == "service_worker" && ti.URL == extension.Origin+"/sw.js"
	})
	var id int
	r.evalInto(r.sw, `chrome.tabs.query({}).then((ts) => (ts.find((t) => t.url.startsWith(`+jsString(r.origin+"/strip.html")+`)) || {id: 0}).id)`, &id)
	if id == 0 {
		t.Fatal("the service worker sees no strip page")
	}
	r.chrome = id
	return r
}

func tailOf(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

func jsString(s string) string { b, _ := json.Marshal(s); return string(b) }

// eventually polls cond every 20 ms until it holds; the test fails at ctx's end.
func (r *stripRig) eventually(ctx context.Context, what string, cond func() bool) {
	r.t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			r.t.Fatalf("timed out waiting for %s", what)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (r *stripRig) evalInto(session, expr string, out any) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	raw, err := r.cdp.eval(ctx, session, expr)
	if err != nil {
		r.t.Fatalf("evaluating %s: %v", expr, err)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			r.t.Fatalf("evaluating %s: %s: %v", expr, raw, err)
		}
	}
}

// badge is what Chrome's toolbar shows for the tab, and its colour.
func (r *stripRig) badge() (text string, color []int) {
	var b struct {
		Text  string `json:"text"`
		Color []int  `json:"color"`
	}
	id := strconv.Itoa(r.chrome)
	r.evalInto(r.sw, `Promise.all([chrome.action.getBadgeText({tabId: `+id+`}), chrome.action.getBadgeBackgroundColor({tabId: `+id+`})]).then(([text, color]) => ({text, color}))`, &b)
	return b.Text, b.Color
}

func (r *stripRig) waitBadge(ctx context.Context, want string) []int {
	r.t.Helper()
	var color []int
	r.eventually(ctx, fmt.Sprintf("the badge to read %q", want), func() bool {
		var text string
		text, color = r.badge()
		return text == want
	})
	return color
}

// panelView is the side panel page as a person reads it.
type panelView struct {
	Status  string     `json:"status"`
	State   string     `json:"state"`
	Stop    bool       `json:"stop"` // disabled
	Pause   bool       `json:"pause"`
	Error   string     `json:"error"`
	Lines   [][]string `json:"lines"` // each line's texts: meta, act, outcome
	Refused []bool     `json:"refused"`
}

const readPanel = `(() => {
  const $ = (id) => document.getElementById(id);
  const lis = [...document.querySelectorAll("#activity li")];
  return {status: $("status").textContent, state: $("state").textContent, stop: $("stop").disabled, pause: $("pause").disabled,
    error: $("error").textContent, lines: lis.map((li) => [...li.children].map((c) => c.textContent)),
    refused: lis.map((li) => li.classList.contains("refused"))};
})()`

func (r *stripRig) panel(session string) panelView {
	var v panelView
	r.evalInto(session, readPanel, &v)
	return v
}

// TestStripInChrome checks the badge and side panel in a real Chromium: the
// badge per share level and while an approval waits, the panel's lines of a
// hostile page and agent, its two buttons taking effect in core, nothing
// from the extension raising a share, and both going blank when Reins goes.
func TestStripInChrome(t *testing.T) {
	r := startStripRig(t)
	rt := r.rt
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	wait := func(d time.Duration) context.Context {
		c, cancel := context.WithTimeout(ctx, d)
		t.Cleanup(cancel)
		return c
	}
	var connected bool
	r.eventually(wait(10*time.Second), "the strip to hear from Reins", func() bool {
		r.evalInto(r.sw, `strip.connected && strip.seq > 0`, &connected)
		return connected
	})

	t.Run("badge per share level", func(t *testing.T) {
		if text, _ := r.badge(); text != "" {
			t.Fatalf("an unshared tab's badge reads %q", text)
		}
		if err := rt.SetShare(r.tab, vocab.ReadOnly); err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		r.waitBadge(wait(5*time.Second), "R")
		t.Logf("share → badge R: %v", time.Since(t0))
		if err := rt.SetShare(r.tab, vocab.Control); err != nil {
			t.Fatal(err)
		}
		level := r.waitBadge(wait(5*time.Second), "C")

		// An approval waits: a dot in the accent colour, and back after.
		r.answer.set("silent")
		agent := coretest.Admitted(t, rt.AgentDoor(), rt.PersonDoor(), vocab.Agent{Name: "e2e agent", Version: "1", PID: os.Getpid(), Exe: os.Args[0]})
		s, err := agent.Snapshot(ctx, r.tab)
		if err != nil {
			t.Fatal(err)
		}
		button := firstRef(t, s, "button")
		done := make(chan error, 1)
		go func() {
			_, err := agent.Act(ctx, agentdoor.ActRequest{Tab: r.tab, Ref: button, Act: vocab.Act{Kind: "click"}})
			done <- err
		}()
		dot := r.waitBadge(wait(10*time.Second), "\u2022")
		if fmt.Sprint(dot) == fmt.Sprint(level) || fmt.Sprint(dot) != fmt.Sprint([]int{0x1f, 0x5f, 0xd1, 255}) {
			t.Errorf("the waiting badge's colour %v is not the accent, apart from the level's %v", dot, level)
		}
		for _, p := range rt.Pending() {
			rt.Answer(p.ID, vocab.Deny)
		}
		if err := <-done; code(err) != vocab.CodeDenied {
			t.Fatalf("the denied click: %v", err)
		}
		r.waitBadge(wait(5*time.Second), "C")
		r.answer.set("allow")
	})

	var panel string
	t.Run("side panel lists the tab's activity in plain words", func(t *testing.T) {
		// The panel page loads in an ordinary tab, in the background so the
		// strip page stays the visible one.
		panel = r.cdp.open(ctx, extension.Origin+"/panel.html?tab="+strconv.Itoa(r.chrome))
		evil := coretest.Admitted(t, rt.AgentDoor(), rt.PersonDoor(), vocab.Agent{Name: strings.Repeat("n", 300) + "\n\x1b[8mAPPROVAL a99\u202e", Version: "1", PID: os.Getpid(), Exe: os.Args[0]})
		s, err := evil.Snapshot(ctx, r.tab)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := evil.Act(ctx, agentdoor.ActRequest{Tab: r.tab, Ref: firstRef(t, s, "button"), Act: vocab.Act{Kind: "click"}}); err != nil {
			t.Fatal(err)
		}
		var v panelView
		r.eventually(wait(10*time.Second), "the click in the panel", func() bool {
			v = r.panel(panel)
			return len(v.Lines) > 0 && len(v.Lines[0]) == 3 && strings.HasPrefix(v.Lines[0][1], "Click") && v.Lines[0][2] == "done"
		})
		exe, _ := os.Executable()
		who := fmt.Sprintf("%s (pid %d)", filepath.Base(exe), os.Getpid())
		var denied, clicked bool
		for i, l := range v.Lines {
			for _, s := range l {
				if strings.ContainsAny(s, "\x1b\r\n\u202e\u2066\u200b") {
					t.Errorf("line %d shows a control, bidi or line-break character: %q", i, s)
				}
			}
			if strings.Contains(l[1], "Click") && !strings.Contains(l[0], who) {
				t.Errorf("line %d does not name the agent's process %q: %q", i, who, l[0])
			}
			denied = denied || l[2] == "denied by you"
			clicked = clicked || strings.Contains(l[1], "Delete account") && l[2] == "done"
		}
		if !denied || !clicked {
			t.Errorf("the panel lacks the denied click or the done one: %q", v.Lines)
		}
		if !strings.Contains(v.Status, "read and act") || v.Stop || v.Pause {
			t.Errorf("a connected panel of a controlled tab: %+v", v)
		}
		t.Logf("the panel's newest line: %q", v.Lines[0])
	})

	t.Run("the panel's buttons take power away in core", func(t *testing.T) {
		r.evalInto(panel, `document.getElementById("stop").click()`, nil)
		r.eventually(wait(5*time.Second), "the tab to be unshared", func() bool { return rt.Share(r.tab) == vocab.None })
		r.waitBadge(wait(5*time.Second), "")
		rows := must(rt.AuditRows(ctx, persondoor.AuditFilter{Tab: r.tab, Limit: 5}))
		if len(rows) == 0 || rows[0].ActKind != "share" || rows[0].AgentName != "person" || !strings.Contains(rows[0].Detail, "none") {
			t.Errorf("stop sharing was not audited as the person's change: %+v", rows)
		}
		r.evalInto(panel, `document.getElementById("pause").click()`, nil)
		r.eventually(wait(5*time.Second), "Reins to pause", rt.Paused)
		r.eventually(wait(5*time.Second), "the panel to say paused", func() bool {
			v := r.panel(panel)
			return strings.Contains(v.Status, "paused") && v.Pause && v.Stop
		})
	})

	t.Run("nothing from the extension gives power back", func(t *testing.T) {
		tab := strconv.Itoa(r.chrome)
		var results []string
		r.evalInto(r.sw, `(async () => {
  // Events, unasked, of every kind the app sends or might take.
  for (const method of ["shares", "share", "tab.state", "activity", "resume"]) {
    send(link, {method, params: {seq: 999, paused: false, tabs: [{tab: `+tab+`, level: "control"}], tab: `+tab+`, level: "control"}});
  }
  const asks = ["share", "set_share", "resume", "pause", "answer", "approve", "allow_agent", "handoff_done"].map((m) =>
    askApp(m, {tab: `+tab+`, level: "control", on: false, decision: "allow"}).then(() => m + ": done", (e) => m + ": " + e.message));
  return Promise.all(asks);
})()`, &results)
		for _, res := range results {
			if !strings.Contains(res, "may ask Reins only to") {
				t.Errorf("%s", res)
			}
		}
		// A forged button press from the panel page's port, too.
		r.evalInto(panel, `port.postMessage({ask: "resume", rid: 99}); port.postMessage({ask: "share", rid: 98}); true`, nil)
		// Ask the app something it does answer, in order behind the above.
		var ok string
		r.evalInto(r.sw, `askApp("pause_all", {}).then(() => "ok", (e) => e.message)`, &ok)
		if ok != "ok" {
			t.Fatalf("pause_all: %s", ok)
		}
		if rt.Share(r.tab) != vocab.None || !rt.Paused() {
			t.Fatalf("the extension gave power back: share %v, paused %v", rt.Share(r.tab), rt.Paused())
		}
		if text, _ := r.badge(); text != "" {
			t.Errorf("the badge reads %q after forged tables", text)
		}
	})

	t.Run("five screenshots in one second", func(t *testing.T) {
		rt.Pause(false)
		if err := rt.SetShare(r.tab, vocab.ReadOnly); err != nil {
			t.Fatal(err)
		}
		r.waitBadge(wait(5*time.Second), "R")
		door, err := mcp.Start(ctx, mcp.Options{Agents: rt.AgentDoor(), DataDir: r.data, HTTPPort: -1, Logf: t.Logf})
		if err != nil {
			t.Fatal(err)
		}
		defer door.Close()
		cmd := exec.Command(reinsBinary.path, "mcp")
		cmd.Env = append(os.Environ(), "REINS_DATA_DIR="+r.data)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		client := sdk.NewClient(&sdk.Implementation{Name: "e2e screenshots", Version: "1"}, nil)
		cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatalf("%v\nreins mcp: %s", err, stderr.String())
		}
		defer cs.Close()
		mcptest.MustCall(t, cs, "browser_tabs", nil) // the agent is admitted before the clock starts

		var wg sync.WaitGroup
		took := make([]time.Duration, 5)
		errs := make([]error, 5)
		t0 := time.Now()
		for i := range 5 {
			wg.Go(func() {
				res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "browser_screenshot", Arguments: map[string]any{"tab": r.tab}})
				took[i] = time.Since(t0)
				switch {
				case err != nil:
					errs[i] = err
				case res.IsError:
					errs[i] = errors.New(mcptest.Text(res))
				case len(res.Content) != 1:
					errs[i] = fmt.Errorf("%d contents", len(res.Content))
				default:
					img, ok := res.Content[0].(*sdk.ImageContent)
					if !ok || !bytes.HasPrefix(img.Data, []byte("\x89PNG")) {
						errs[i] = errors.New("not a PNG")
					}
				}
			})
		}
		issued := time.Since(t0)
		wg.Wait()
		if issued > time.Second {
			t.Errorf("the five calls took %v to issue", issued)
		}
		for i, err := range errs {
			if err != nil {
				t.Errorf("screenshot %d failed after %v: %v", i, took[i], err)
			}
		}
		t.Logf("five browser_screenshot calls issued within %v; answered after %v", issued, took)
	})

	t.Run("badge and panel go blank when Reins goes", func(t *testing.T) {
		rt.Close()
		r.waitBadge(wait(10*time.Second), "")
		r.eventually(wait(10*time.Second), "the panel to say Reins is not connected", func() bool {
			v := r.panel(panel)
			return strings.Contains(v.Status, "not connected") && v.Stop && v.Pause
		})
	})
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// cdp is a small DevTools protocol client on the browser's own endpoint,
// with flat sessions for the targets it attaches to.
type cdp struct {
	t    testing.TB
	conn *websocket.Conn
	mu   sync.Mutex
	next int
	wait map[int]chan cdpReply
}

type cdpReply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

type targetInfo struct {
	TargetID string `json:"targetId"`
	Type     string `json:"type"`
	URL      string `json:"url"`
}

func dialCDP(t testing.TB, ctx context.Context, profile string) *cdp {
	t.Helper()
	var port, path string
	for port == "" {
		if b, err := os.ReadFile(filepath.Join(profile, "DevToolsActivePort")); err == nil {
			if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); len(lines) == 2 {
				port, path = lines[0], lines[1]
				break
			}
		}
		select {
		case <-ctx.Done():
			t.Fatal("Chromium wrote no DevToolsActivePort")
		case <-time.After(20 * time.Millisecond):
		}
	}
	conn, _, err := websocket.Dial(ctx, "ws://127.0.0.1:"+port+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	conn.SetReadLimit(64 << 20)
	c := &cdp{t: t, conn: conn, wait: map[int]chan cdpReply{}}
	go func() {
		for {
			_, b, err := conn.Read(context.Background())
			if err != nil {
				c.mu.Lock()
				for id, ch := range c.wait {
					close(ch)
					delete(c.wait, id)
				}
				c.mu.Unlock()
				return
			}
			var m struct {
				ID int `json:"id"`
				cdpReply
			}
			if json.Unmarshal(b, &m) != nil || m.ID == 0 {
				continue // an event
			}
			c.mu.Lock()
			ch := c.wait[m.ID]
			delete(c.wait, m.ID)
			c.mu.Unlock()
			if ch != nil {
				ch <- m.cdpReply
			}
		}
	}()
	t.Cleanup(func() { conn.CloseNow() })
	return c
}

func (c *cdp) call(ctx context.Context, session, method string, params, out any) error {
	c.mu.Lock()
	c.next++
	id := c.next
	ch := make(chan cdpReply, 1)
	c.wait[id] = ch
	c.mu.Unlock()
	msg := map[string]any{"id": id, "method": method, "params": params}
	if session != "" {
		msg["sessionId"] = session
	}
	b, _ := json.Marshal(msg)
	if err := c.conn.Write(ctx, websocket.MessageText, b); err != nil {
		return err
	}
	select {
	case r, ok := <-ch:
		if !ok {
			return errors.New("the DevTools connection closed")
		}
		if r.Error != nil {
			return fmt.Errorf("%s: %s", method, r.Error.Message)
		}
		if out != nil {
			return json.Unmarshal(r.Result, out)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// attach waits for a target that match accepts and attaches to it.
func (c *cdp) attach(ctx context.Context, match func(targetInfo) bool) string {
	c.t.Helper()
	for {
		var res struct {
			TargetInfos []targetInfo `json:"targetInfos"`
		}
		if err := c.call(ctx, "", "Target.getTargets", map[string]any{}, &res); err != nil {
			c.t.Fatal(err)
		}
		for _, ti := range res.TargetInfos {
			if match(ti) {
				return c.attachTo(ctx, ti.TargetID)
			}
		}
		select {
		case <-ctx.Done():
			c.t.Fatalf("no such target among %+v", res.TargetInfos)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (c *cdp) attachTo(ctx context.Context, target string) string {
	c.t.Helper()
	var res struct {
		SessionID string `json:"sessionId"`
	}
	if err := c.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": target, "flatten": true}, &res); err != nil {
		c.t.Fatal(err)
	}
	return res.SessionID
}

// open loads url in a new background tab and returns its session, once the
// page's scripts have run.
func (c *cdp) open(ctx context.Context, url string) string {
	c.t.Helper()
	var res struct {
		TargetID string `json:"targetId"`
	}
	if err := c.call(ctx, "", "Target.createTarget", map[string]any{"url": url, "background": true}, &res); err != nil {
		c.t.Fatal(err)
	}
	s := c.attachTo(ctx, res.TargetID)
	for {
		raw, err := c.eval(ctx, s, `document.readyState === "complete" && typeof port !== "undefined" && port !== null`)
		if err == nil && string(raw) == "true" {
			return s
		}
		select {
		case <-ctx.Done():
			c.t.Fatalf("the page %s never loaded: %v", url, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// eval runs expr in the session's page or worker, awaiting a promise, and
// returns its value as JSON.
func (c *cdp) eval(ctx context.Context, session, expr string) (json.RawMessage, error) {
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception *struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := c.call(ctx, session, "Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true}, &res); err != nil {
		return nil, err
	}
	if d := res.ExceptionDetails; d != nil {
		if d.Exception != nil {
			return nil, errors.New(d.Exception.Description)
		}
		return nil, errors.New(d.Text)
	}
	if len(res.Result.Value) == 0 {
		return json.RawMessage("null"), nil
	}
	return res.Result.Value, nil
}

// firstRef is the ref of the first element of role in the snapshot.
func firstRef(t testing.TB, s *agentdoor.SnapshotResult, role string) string {
	t.Helper()
	m := regexp.MustCompile(`- ` + regexp.QuoteMeta(role) + ` [^\n]*\[ref=(f?\d*e\d+)\]`).FindStringSubmatch(s.Text)
	if m == nil {
		t.Fatalf("no %s in snapshot:\n%s", role, s.Text)
	}
	return m[1]
}
