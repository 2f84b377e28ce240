package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/extension"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// TestChain runs the chain at device scale 1, page zoom 1 and then 1.5.
func TestChain(t *testing.T) {
	r := setup(t, "1280x800x24", 0, 4*time.Second)
	r.assertNoProcessesLeft()
	ctx := context.Background()

	t.Run("bridge refuses strangers", func(t *testing.T) {
		// The page's own WebSocket to the bridge.
		m := r.wait(ctx, "ws", nil)
		if m["result"] == "open" {
			t.Fatalf("a web page opened the bridge socket: %v", m)
		}
		url := "ws://127.0.0.1:" + itoa(r.rt.Port()) + "/bridge"
		for _, origin := range []string{"chrome-extension://aaaabbbbccccddddeeeeffffgggghhhh", r.origin, ""} {
			h := http.Header{}
			if origin != "" {
				h.Set("Origin", origin)
			}
			c, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: h})
			if err == nil {
				c.CloseNow()
				t.Fatalf("origin %q was let in", origin)
			}
			if resp == nil || resp.StatusCode != http.StatusForbidden {
				t.Fatalf("origin %q: want 403, got %v (%v)", origin, resp, err)
			}
		}
		// The right origin without the secret: the hello's proof is wrong.
		h := http.Header{"Origin": {extension.Origin}}
		c, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: h})
		if err != nil {
			t.Fatal(err)
		}
		defer c.CloseNow()
		if _, _, err := c.Read(ctx); err != nil { // the challenge
			t.Fatal(err)
		}
		hello := `{"id":"h1","method":"hello","params":{"version":1,"extension":"x","browser":"x","profile":"intruder","nonce":"` + strings.Repeat("ab", 32) + `","proof":"` + strings.Repeat("00", 32) + `"}}`
		if err := c.Write(ctx, websocket.MessageText, []byte(hello)); err != nil {
			t.Fatal(err)
		}
		_, b, err := c.Read(ctx)
		if err != nil || !strings.Contains(string(b), "unauthorized") {
			t.Fatalf("want an unauthorized answer, got %q, %v", b, err)
		}
		if _, _, err := c.Read(ctx); websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
			t.Fatalf("want the connection closed for policy, got %v", err)
		}
	})

	t.Run("unshared and read-only tabs", func(t *testing.T) {
		_, err := r.agent.Snapshot(ctx, r.tab)
		if code(err) != vocab.CodeShareRequired {
			t.Fatalf("snapshot of an unshared tab: want grant_required, got %v", err)
		}
		tabs, err := r.agent.ListTabs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, tab := range tabs {
			if tab.ID == r.tab && (tab.Title != "" || tab.URL != "") {
				t.Fatalf("an unshared tab's title or address was shown to the agent: %+v", tab)
			}
		}
		if err := r.rt.SetShare(r.tab, vocab.ReadOnly); err != nil {
			t.Fatal(err)
		}
		s := r.snapshot()
		main := ref(t, s, "button", "Main button")
		if err := r.clickRef(main, ""); code(err) != vocab.CodeControlRequired {
			t.Fatalf("click on a read-only tab: want control_required, got %v", err)
		}
		settle()
		if n := len(r.clicks("main")); n != 0 {
			t.Fatalf("a refused click reached the page %d times", n)
		}
		rows := r.auditRows(persondoor.AuditFilter{Tab: r.tab, Outcome: vocab.OutcomeRefused})
		if len(rows) < 2 {
			t.Fatalf("refusals were not logged: %d rows", len(rows))
		}
		if err := r.rt.SetShare(r.tab, vocab.Control); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("four buttons at zoom 1", func(t *testing.T) {
		r.clickAllFour()
		r.assertFiredChecked()
		// Every act's about-to-fire row is followed by its outcome row.
		fires := r.auditRows(persondoor.AuditFilter{Tab: r.tab, Act: "click"})
		var fire, done int
		for _, row := range fires {
			switch {
			case row.Phase == "fire":
				fire++
			case row.Phase == "outcome" && row.Outcome == vocab.OutcomeDone:
				done++
			}
			if row.AgentName != "e2e agent" || row.AgentPID != os.Getpid() {
				t.Errorf("row %d does not name the agent and its process: %+v", row.Seq, row)
			}
		}
		if fire != 4 || done != 4 {
			t.Fatalf("want 4 fire rows and 4 done outcomes, got %d and %d", fire, done)
		}
	})

	t.Run("typing", func(t *testing.T) {
		s := r.snapshot()
		_, err := r.agent.Act(ctx, agentdoor.ActRequest{Tab: r.tab, Ref: ref(t, s, "textbox", "Search"), Act: vocab.Act{Kind: "type", Text: "hello, Reins!", Submit: true}})
		if err != nil {
			t.Fatal(err)
		}
		r.wait(ctx, "input", func(m map[string]any) bool {
			return m["id"] == "field" && m["value"] == "hello, Reins!" && m["trusted"] == true
		})
		r.wait(ctx, "enter", func(m map[string]any) bool { return m["id"] == "field" })
		secret := "hunter2-Secret"
		_, err = r.agent.Act(ctx, agentdoor.ActRequest{Tab: r.tab, Ref: ref(t, s, "textbox", "Password"), Act: vocab.Act{Kind: "type", Text: secret}})
		if err != nil {
			t.Fatal(err)
		}
		r.wait(ctx, "input", func(m map[string]any) bool { return m["id"] == "pw" && m["value"] == itoa(len(secret)) })
		for _, name := range []string{"audit.db", "audit.db-wal"} {
			b, _ := os.ReadFile(filepath.Join(r.data, name))
			if strings.Contains(string(b), secret) {
				t.Fatalf("the secret typed into a password field is stored in %s", name)
			}
		}
		r.assertFiredChecked()
	})

	t.Run("denied, timed out and paused acts fire nothing", func(t *testing.T) {
		s := r.snapshot()
		main := ref(t, s, "button", "Main button")
		before := len(r.clicks("main"))
		fired := r.exec.fired.Load()

		r.answer.set("deny")
		if err := r.clickRef(main, ""); code(err) != vocab.CodeDenied {
			t.Fatalf("want denied_by_user, got %v", err)
		}
		r.answer.set("silent")
		if err := r.clickRef(main, ""); code(err) != vocab.CodeTimeout {
			t.Fatalf("want approval_timeout, got %v", err)
		}
		r.answer.set("allow")
		r.rt.Pause(true)
		if err := r.clickRef(main, ""); code(err) != vocab.CodePaused {
			t.Fatalf("want paused, got %v", err)
		}
		r.rt.Pause(false)
		settle()
		if n := len(r.clicks("main")); n != before || r.exec.fired.Load() != fired {
			t.Fatalf("a denied, timed-out or paused act fired (%d clicks, %d fires)", n-before, r.exec.fired.Load()-fired)
		}
		for _, o := range []string{vocab.OutcomeDenied, vocab.OutcomeTimeout} {
			if len(r.auditRows(persondoor.AuditFilter{Tab: r.tab, Outcome: o})) == 0 {
				t.Errorf("no %s row in the audit log", o)
			}
		}
		if rows := r.auditRows(persondoor.AuditFilter{Tab: r.tab, Outcome: vocab.OutcomeRefused}); rows[0].Code != vocab.CodePaused {
			t.Errorf("the paused refusal is not the newest refused row: %+v", rows[0])
		}
	})

	t.Run("pushState A to B to A makes old refs stale", func(t *testing.T) {
		s1 := r.snapshot()
		oldMain := ref(t, s1, "button", "Main button")
		if err := r.clickRef(ref(t, s1, "button", "Push B"), ""); err != nil {
			t.Fatal(err)
		}
		testenv.WaitWithin(r.t, 5*time.Second, "the URL to become /b", func() bool { return strings.HasSuffix(r.tabURL(), "/b") })
		s2 := r.snapshot()
		if err := r.clickRef(ref(t, s2, "button", "Push A"), ""); err != nil {
			t.Fatal(err)
		}
		testenv.WaitWithin(r.t, 5*time.Second, "the URL to return to /index.html", func() bool { return strings.HasSuffix(r.tabURL(), "/index.html") })
		time.Sleep(200 * time.Millisecond)
		before := len(r.clicks("main"))
		if err := r.clickRef(oldMain, s1.ID); code(err) != vocab.CodeStaleRef {
			t.Fatalf("old ref with its snapshot after A→B→A: want stale_ref, got %v", err)
		}
		s3 := r.snapshot()
		if newMain := ref(t, s3, "button", "Main button"); newMain == oldMain {
			t.Fatalf("the main button kept ref %s across navigations", oldMain)
		}
		if err := r.clickRef(oldMain, ""); code(err) != vocab.CodeStaleRef {
			t.Fatalf("old ref against the latest snapshot: want stale_ref, got %v", err)
		}
		settle()
		if len(r.clicks("main")) != before {
			t.Fatal("a stale ref fired")
		}
	})

	t.Run("full navigation makes old refs stale", func(t *testing.T) {
		s := r.snapshot()
		oldMain := ref(t, s, "button", "Main button")
		if err := r.clickRef(ref(t, s, "link", "Next page"), ""); err != nil {
			t.Fatal(err)
		}
		r.wait(ctx, "loaded", func(m map[string]any) bool { return m["page"] == "next" })
		testenv.WaitWithin(r.t, 5*time.Second, "the tab to report the next page", func() bool { return strings.HasSuffix(r.tabURL(), "/next.html") })
		if err := r.clickRef(oldMain, s.ID); code(err) != vocab.CodeStaleRef {
			t.Fatalf("want stale_ref after a full navigation, got %v", err)
		}
		settle()
		for _, c := range r.clicks("main") {
			if c["frame"] == "next" {
				t.Fatal("a stale ref clicked the new page's button")
			}
		}
		// Same origin: the share holds, and the new page's button works.
		s2 := r.snapshot()
		if err := r.clickRef(ref(t, s2, "button", "Main button"), ""); err != nil {
			t.Fatal(err)
		}
		r.wait(ctx, "click", func(m map[string]any) bool { return m["frame"] == "next" && m["trusted"] == true })
		// Back to the test page for what follows.
		if _, err := r.agent.Act(ctx, agentdoor.ActRequest{Tab: r.tab, Act: vocab.Act{Kind: "back"}}); err != nil {
			t.Fatal(err)
		}
		r.wait(ctx, "loaded", func(m map[string]any) bool { return m["page"] == "main" && r.tabIsMain() })
		testenv.WaitWithin(r.t, 5*time.Second, "the tab to be back on the test page", r.tabIsMain)
	})

	t.Run("four buttons at zoom 150%", func(t *testing.T) {
		r.witness.Reset("click")
		for i := 0; i < 3; i++ {
			if err := r.pressRaw("Control+="); err != nil {
				t.Fatal(err)
			}
			time.Sleep(300 * time.Millisecond)
		}
		testenv.WaitWithin(r.t, 10*time.Second, "the extension to report zoom 1.5", func() bool { return r.zoom() == 1.5 })
		time.Sleep(300 * time.Millisecond)
		r.clickAllFour()
		r.assertFiredChecked()
	})

	t.Run("pausing stops typing part-way and lets go of every key", func(t *testing.T) {
		s := r.snapshot()
		field := ref(t, s, "textbox", "Search")
		text := strings.Repeat("abcdefghij", 15)
		errc := make(chan error, 1)
		go func() {
			_, err := r.agent.Act(ctx, agentdoor.ActRequest{Tab: r.tab, Ref: field, Act: vocab.Act{Kind: "type", Text: text, Clear: true}})
			errc <- err
		}()
		r.wait(ctx, "input", func(m map[string]any) bool {
			v, _ := m["value"].(string)
			return m["id"] == "field" && len(v) >= 10 && strings.HasPrefix(text, v)
		})
		r.rt.Pause(true)
		defer r.rt.Pause(false)
		if err := <-errc; code(err) != vocab.CodePaused {
			t.Fatalf("typing when the person paused: %v, want %s", err, vocab.CodePaused)
		}
		settle()
		typed := ""
		for _, m := range r.witness.Events("input") {
			if v, _ := m["value"].(string); m["id"] == "field" && strings.HasPrefix(text, v) {
				typed = v
			}
		}
		if len(typed) == 0 || len(typed) >= len(text) {
			t.Fatalf("the field holds %d of %d characters; want typing stopped part-way", len(typed), len(text))
		}
		if held := keysDown(t, r.display); len(held) != 0 {
			t.Fatalf("keycodes %v are still down after the pause", held)
		}
		if rows := r.auditRows(persondoor.AuditFilter{Tab: r.tab, Act: "type"}); len(rows) == 0 || rows[0].Code != vocab.CodePaused {
			t.Fatalf("the newest typing row is %+v, want its outcome paused", rows[:min(len(rows), 1)])
		}
		r.assertFiredChecked()
	})

	t.Run("the person at the mouse holds an act until they allow it again", func(t *testing.T) {
		s := r.snapshot()
		main := ref(t, s, "button", "Main button")
		before := len(r.clicks("main"))
		held := r.heldRequests()
		r.answer.set("allow-tab")
		defer r.answer.set("allow")
		if err := r.clickRef(main, ""); err != nil {
			t.Fatal(err)
		}
		testenv.WaitWithin(r.t, 10*time.Second, "the first click", func() bool { return len(r.clicks("main")) == before+1 })

		// Allowed on this tab now. A nudge of the mouse only delays the
		// next click until the person is still.
		time.Sleep(100 * time.Millisecond)
		r.personMoves()
		if err := r.clickRef(main, ""); err != nil {
			t.Fatal(err)
		}
		testenv.WaitWithin(r.t, 10*time.Second, "the second click", func() bool { return len(r.clicks("main")) == before+2 })
		if n := held(); n != 0 {
			t.Fatalf("a nudge held the act (%d requests asked again)", n)
		}

		// The person keeps using the mouse: the click waits, is held, is
		// asked about again, and fires once they are still.
		time.Sleep(100 * time.Millisecond) // a hand, not the last click's echo
		done := r.personKeepsMoving(3 * time.Second)
		if err := r.clickRef(main, ""); err != nil {
			t.Fatal(err)
		}
		done()
		testenv.WaitWithin(r.t, 10*time.Second, "the third click", func() bool { return len(r.clicks("main")) == before+3 })
		testenv.WaitWithin(r.t, 5*time.Second, "the third click's request asked again as held", func() bool { return held() == 1 })

		// Again, and this time the person says no.
		r.answer.set("deny")
		time.Sleep(100 * time.Millisecond)
		done = r.personKeepsMoving(3 * time.Second)
		err := r.clickRef(main, "")
		done()
		if code(err) != vocab.CodeDenied {
			t.Fatalf("a held act the person then denied: %v, want %s", err, vocab.CodeDenied)
		}
		settle()
		if n := len(r.clicks("main")); n != before+3 {
			t.Fatalf("the page saw %d clicks, want %d", n-before, 3)
		}
		testenv.WaitWithin(r.t, 5*time.Second, "the fourth click's request asked again as held", func() bool { return held() == 2 })
		n := 0
		for _, row := range r.auditRows(persondoor.AuditFilter{Tab: r.tab}) {
			if row.Code == vocab.CodePersonActive {
				n++
			}
		}
		if n != 2 {
			t.Errorf("%d audit rows say the act was held, want 2", n)
		}
		r.assertFiredChecked()
	})
}

// TestChainDeviceScale2 runs the four buttons on a 2× display.
func TestChainDeviceScale2(t *testing.T) {
	r := setup(t, "2560x1600x24", 2, 10*time.Second)
	r.assertNoProcessesLeft()
	if err := r.rt.SetShare(r.tab, vocab.Control); err != nil {
		t.Fatal(err)
	}
	r.clickAllFour()
	r.assertFiredChecked()
}

func (r *rig) tabURL() string {
	for _, tab := range r.rt.Tabs() {
		if tab.ID == r.tab {
			return tab.URL
		}
	}
	return ""
}

func (r *rig) tabIsMain() bool { return strings.HasSuffix(r.tabURL(), "/index.html") }

func (r *rig) zoom() float64 {
	z, _ := r.rt.Zoom(r.tab)
	return z
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
