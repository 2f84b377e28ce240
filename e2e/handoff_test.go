package e2e

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reins-app/reins/executor/xdesk"
	"github.com/reins-app/reins/internal/testrig/browsertest"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/mcp/mcptest"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// loginTop is where the pages' big link starts, in CSS px from the top of
// the viewport: the person clicks in the middle of what lies below.
const loginTop = 120

// handoffPage is a page with a button for the agent and, below it, one big
// link for the person. It reports its load with the window's metrics, so
// the test can click the link where a person would see it.
func handoffPage(title, page, button, link, href string) string {
	return strings.NewReplacer("{{TITLE}}", title, "{{PAGE}}", page, "{{BUTTON}}", button, "{{LINK}}", link, "{{HREF}}", href,
		"{{TOP}}", fmt.Sprint(loginTop), "{{REPORT}}", reportJS).Replace(`<!doctype html>
<html><head><title>{{TITLE}}</title>
<style>
  body { margin: 0; font: 16px sans-serif; }
  h1 { margin: 4px; font-size: 20px; }
  button { width: 150px; height: 40px; margin: 6px; }
  #link { position: fixed; left: 0; right: 0; top: {{TOP}}px; bottom: 0; display: block; background: #e8eefc; font-size: 28px; text-align: center; padding-top: 40px; }
</style></head>
<body>
<h1>{{TITLE}}</h1>
<button id="{{PAGE}}btn">{{BUTTON}}</button>
<a id="link" href="{{HREF}}">{{LINK}}</a>
<script>
{{REPORT}}
watch(document.getElementById('{{PAGE}}btn'), '{{PAGE}}');
// Reported once the page is painted: Chromium shows the page before
// until the new one's first frame, and a click meanwhile lands on neither.
addEventListener('load', () => requestAnimationFrame(() => requestAnimationFrame(() =>
  report({type: 'loaded', page: '{{PAGE}}', search: location.search,
    sx: screenX, sy: screenY, ow: outerWidth, oh: outerHeight, iw: innerWidth, ih: innerHeight}))));
</script>
</body></html>`)
}

// handoffRig is Reins with Chromium on a shop page, a sign-on page on
// another origin (another port of 127.0.0.1), and an agent through the real
// `reins mcp`.
type handoffRig struct {
	*rig
	shop, sso string // the two origins
	cs        *sdk.ClientSession
	person    persondoor.Door
}

func setupHandoff(t *testing.T) *handoffRig {
	t.Helper()
	r := reinsOn(t, "1280x800x24", 10*time.Second)
	rt, data, x := r.rt, r.data, r.x
	ctx := context.Background()
	// Each page links to the other origin: the files are filled in once
	// both servers listen, before any page is asked for.
	shopFiles, ssoFiles := map[string]string{}, map[string]string{}
	h := &handoffRig{rig: r, person: rt.PersonDoor()}
	h.shop = browsertest.Serve(t, r.witness, shopFiles)
	h.sso = browsertest.Serve(t, r.witness, ssoFiles)
	shopFiles["/shop.html"] = handoffPage("Shop", "shop", "Buy", "Log in with Example ID", h.sso+"/login.html")
	ssoFiles["/login.html"] = handoffPage("Example ID", "login", "Sign in", "Continue to the shop", h.shop+"/shop.html?signed-in")
	r.origin = h.shop
	r.browser = browsertest.Start(t, browsertest.Options{
		X: x, DataDir: data, Reins: reinsBinary.path, URL: h.shop + "/shop.html", Width: 1200, Height: 780,
	})
	testenv.WaitWithin(t, 30*time.Second, "the extension to pair and report the shop's tab", func() bool {
		for _, tab := range rt.Tabs() {
			if tab.Connected && strings.HasPrefix(tab.URL, h.shop+"/shop.html") {
				r.tab = tab.ID
				return true
			}
		}
		return false
	})
	r.wait(ctx, "loaded", func(m map[string]any) bool { return m["page"] == "shop" })
	if err := rt.SetShare(r.tab, vocab.Control); err != nil {
		t.Fatal(err)
	}

	h.cs = agentThroughMCP(t, rt, data, sdk.Implementation{Name: "e2e hand-off agent", Version: "1"})
	return h
}

// call calls a tool on the rig's tab.
func (h *handoffRig) call(tool string, args map[string]any) (string, bool) {
	h.t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	args["tab"] = h.tab
	return mcptest.Call(h.t, h.cs, tool, args)
}

func (h *handoffRig) must(tool string, args map[string]any) string {
	h.t.Helper()
	text, isErr := h.call(tool, args)
	if isErr {
		h.t.Fatalf("%s failed: %s", tool, text)
	}
	return text
}

func (h *handoffRig) refused(tool string, args map[string]any, code string) string {
	h.t.Helper()
	text, isErr := h.call(tool, args)
	if !isErr || !strings.HasPrefix(text, code+": ") {
		h.t.Fatalf("%s: want %s, got (error %v) %q", tool, code, isErr, text)
	}
	return text
}

var handoffIDIn = regexp.MustCompile(`as hand-off (h\d{7})`)

// handOff calls browser_handoff and returns the id, checking that the call
// came back while the hand-off is still with the person.
func (h *handoffRig) handOff(reason string) string {
	h.t.Helper()
	t0 := time.Now()
	out := h.must("browser_handoff", map[string]any{"reason": reason})
	took := time.Since(t0)
	h.t.Logf("browser_handoff through reins mcp: %v", took)
	m := handoffIDIn.FindStringSubmatch(out)
	if m == nil {
		h.t.Fatalf("browser_handoff: %s", out)
	}
	// It came back with the person's step still to do: nothing of theirs
	// ended it.
	if list := h.person.Handoffs(); len(list) != 1 || list[0].ID != m[1] || list[0].Reason != reason {
		h.t.Fatalf("the person's door lists %+v", list)
	}
	// A case that fails leaves no hand-off to the next.
	h.t.Cleanup(func() { h.person.FinishHandoff(m[1], false, "") })
	return m[1]
}

// asked is how many questions the person was asked so far.
func (h *handoffRig) asked() int {
	h.answer.mu.Lock()
	defer h.answer.mu.Unlock()
	return h.answer.asked
}

// personClicksLink is the person clicking the page's big link with their
// own mouse: real XTEST input on a connection of its own, in the middle of
// the link as the page reported its window, and the next page loading.
func (h *handoffRig) personClicksLink(from, to string) map[string]any {
	h.t.Helper()
	var loaded map[string]any
	for _, m := range h.witness.Events("loaded") {
		if m["page"] == from {
			loaded = m // the latest
		}
	}
	if loaded == nil {
		h.t.Fatalf("page %s never reported its load", from)
	}
	num := func(k string) float64 { return loaded[k].(float64) }
	bx := (num("ow") - num("iw")) / 2
	x := num("sx") + bx + num("iw")/2
	y := num("sy") + (num("oh") - num("ih")) - bx + loginTop + (num("ih")-loginTop)/2
	h.witness.Reset("loaded")
	if err := click(h.display, int16(x), int16(y)); err != nil {
		h.t.Fatal(err)
	}
	return h.wait(context.Background(), "loaded", func(m map[string]any) bool { return m["page"] == to })
}

// click is the person's click at (x, y), with the X server's own mouse
// (xdesk.Person): the hand comes from a little aside, as a mouse's does.
func click(display string, x, y int16) error {
	p, err := xdesk.NewPerson(display)
	if err != nil {
		return err
	}
	defer p.Close()
	if err := p.MoveTo(int(x)-40, int(y)-20); err != nil {
		return err
	}
	return p.Click(int(x), int(y))
}

// onOrigin waits until Reins sees the tab on origin.
func (h *handoffRig) onOrigin(origin string) {
	h.t.Helper()
	testenv.WaitWithin(h.t, 15*time.Second, "Reins to see the tab on "+origin, func() bool {
		for _, tab := range h.rt.Tabs() {
			if tab.ID == h.tab && tab.Origin == origin {
				return true
			}
		}
		return false
	})
}

// clickButton clicks the page's button through reins mcp, as the agent,
// and checks the page saw one trusted click.
func (h *handoffRig) clickButton(name, frame string) {
	h.t.Helper()
	snap := h.must("browser_snapshot", nil)
	before := len(h.clicks(frame + "btn"))
	out := h.must("browser_click", map[string]any{"ref": mcptest.Ref(h.t, snap, "button", name)})
	if !strings.Contains(out, "Done: Click “"+name+"”") {
		h.t.Fatalf("browser_click: %s", out)
	}
	c := h.wait(context.Background(), "click", func(m map[string]any) bool {
		return m["id"] == frame+"btn" && len(h.clicks(frame+"btn")) > before
	})
	if c["trusted"] != true {
		h.t.Fatalf("the click was not trusted: %v", c)
	}
}

// waitDone waits through browser_wait_for until the hand-off has ended,
// while end (the person) ends it, and returns what the wait said.
func (h *handoffRig) waitDone(id string, end func()) string {
	h.t.Helper()
	waited := mcptest.Go(context.Background(), h.cs, "browser_wait_for", map[string]any{"handoff": id})
	end()
	res := mcptest.Await(h.t, "the wait on hand-off "+id, waited, nil)
	if res.IsErr {
		h.t.Fatalf("browser_wait_for: %s", res.Text)
	}
	return res.Text
}

func TestHandoff(t *testing.T) {
	h := setupHandoff(t)

	t.Run("done", func(t *testing.T) {
		h.t = t
		snap := h.must("browser_snapshot", nil)
		buy := mcptest.Ref(t, snap, "button", "Buy")
		id := h.handOff("Please log in to the shop; I must not see your password.")
		asked := h.asked()
		text := h.refused("browser_click", map[string]any{"ref": buy}, vocab.CodeHandedOff)
		t.Logf("a click while handed off: %s", text)
		if h.exec.fired.Load() != 0 || h.asked() != asked {
			t.Fatal("a click on a handed-off tab reached the person or the executor")
		}
		out := h.must("browser_wait_for", map[string]any{"handoff": id, "time": 0.2})
		if !strings.Contains(out, "still with the person") {
			t.Fatalf("a wait before Done: %s", out)
		}
		out = h.waitDone(id, func() {
			if err := h.person.FinishHandoff(id, true, ""); err != nil {
				t.Fatal(err)
			}
		})
		if !strings.Contains(out, "Hand-off "+id+": done") {
			t.Fatalf("the wait after Done: %s", out)
		}
		h.clickButton("Buy", "shop")
		h.assertFiredChecked()
		rows := h.auditRows(persondoor.AuditFilter{Act: string(vocab.Handoff)})
		if len(rows) != 2 || rows[1].AgentName != "e2e hand-off agent" || rows[0].AgentName != vocab.PersonName || !strings.Contains(rows[0].Detail, "pressed Done on hand-off "+id) {
			t.Fatalf("hand-off rows: %+v", rows)
		}
	})

	t.Run("sign-on leaves the site and comes back", func(t *testing.T) {
		h.t = t
		id := h.handOff("Sign in with Example ID, then come back to the shop.")
		h.personClicksLink("shop", "login")
		h.onOrigin(h.sso)
		// Held, not withdrawn: nothing is read there, nothing of it listed.
		if list := h.person.Handoffs(); len(list) != 1 || !list[0].Moved() || list[0].Level != vocab.Control || list[0].Origin != h.shop || list[0].Now != h.sso {
			t.Fatalf("the person's door lists %+v", list)
		}
		h.refused("browser_snapshot", nil, vocab.CodeHandedOff)
		h.refused("browser_press_key", map[string]any{"key": "Enter"}, vocab.CodeHandedOff)
		tabs := mcptest.MustCall(t, h.cs, "browser_tabs", nil)
		if strings.Contains(tabs, h.sso) || strings.Contains(tabs, "Example ID") {
			t.Fatalf("the agent's tab list shows the sign-on page: %s", tabs)
		}
		back := h.personClicksLink("login", "shop")
		if back["search"] != "?signed-in" {
			t.Fatalf("the shop loaded as %v", back)
		}
		h.onOrigin(h.shop)
		// Back on the shop: reads go on, acts wait for Done.
		snap := h.must("browser_snapshot", nil)
		h.refused("browser_click", map[string]any{"ref": mcptest.Ref(t, snap, "button", "Buy")}, vocab.CodeHandedOff)
		out := h.waitDone(id, func() {
			if err := h.person.FinishHandoff(id, true, ""); err != nil {
				t.Fatalf("Done back on the shop: %v", err)
			}
		})
		if !strings.Contains(out, "Hand-off "+id+": done") || strings.Contains(out, "another site") {
			t.Fatalf("the wait after Done: %s", out)
		}
		if h.rt.Share(h.tab) != vocab.Control {
			t.Fatal("the share did not resume")
		}
		h.clickButton("Buy", "shop")
	})

	t.Run("ends on another site", func(t *testing.T) {
		h.t = t
		id := h.handOff("Sign in with Example ID.")
		h.personClicksLink("shop", "login")
		h.onOrigin(h.sso)
		err := h.person.FinishHandoff(id, true, "")
		var co *persondoor.ConfirmOriginError
		if !errors.As(err, &co) || co.Now != h.sso || co.Shared != h.shop {
			t.Fatalf("Done on the sign-on site: %v, want the site confirmed first", err)
		}
		h.refused("browser_snapshot", nil, vocab.CodeHandedOff)
		out := h.waitDone(id, func() {
			if err := h.person.FinishHandoff(id, true, h.sso); err != nil {
				t.Fatalf("Done with the site confirmed: %v", err)
			}
		})
		if !strings.Contains(out, "Hand-off "+id+": done") || !strings.Contains(out, h.sso) {
			t.Fatalf("the wait after the confirmed Done: %s", out)
		}
		h.clickButton("Sign in", "login")
		rows := h.auditRows(persondoor.AuditFilter{Act: string(vocab.Share)})
		if len(rows) == 0 || rows[0].Origin != h.sso || !strings.Contains(rows[0].Detail, "confirmed at the end of hand-off "+id) {
			t.Fatalf("the share's move is not audited: %+v", rows)
		}
		h.assertFiredChecked()
	})
}
