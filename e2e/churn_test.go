package e2e

import (
	"maps"
	"strings"
	"testing"

	"github.com/reins-app/reins/mcp/mcptest"
)

// tickerPage is a settle page with a ticker that counts every 50 ms beside
// body, and script run once it is in place.
func tickerPage(name, body, script string) string {
	return settlePage(name, `<h1>`+name+`</h1>
<p>Ticks: <span id="ticks">0</span></p>
`+body+`
<script>
let ticks = 0;
const ticker = setInterval(() => { document.getElementById('ticks').textContent = String(++ticks); }, 50);
const effect = (what) => fetch('/witness', {method: 'POST', body: JSON.stringify({type: 'effect', page: '`+name+`', what})});
`+script+`
</script>`)
}

// The pages of the churn test: each button's effect beside a ticker — one
// that comes 300 ms after the click, one a request's answer brings, a
// dialog, and one that changes the ticker itself, 200 ms after the click.
var churnPages = map[string]string{
	"/late.html": tickerPage("late", `<button id="b">Place the order</button><p id="out">No order yet</p>`,
		`document.getElementById('b').onclick = () => setTimeout(() => { document.getElementById('out').textContent = 'Order placed'; effect('placed'); }, 300);`),
	"/request.html": tickerPage("request", `<button id="b">Load the price</button><p id="out">No price yet</p>`,
		`document.getElementById('b').onclick = () => fetch('/price.js').then((r) => r.text()).then((t) => { document.getElementById('out').textContent = 'The price is ' + t.trim(); effect('price'); });`),
	"/price.js": "12.50\n",
	"/dialog.html": tickerPage("dialog", `<button id="b">Delete the file</button>
<dialog id="d"><p>Really delete the file?</p><button>Keep it</button></dialog>`,
		`document.getElementById('b').onclick = () => { document.getElementById('d').showModal(); effect('asked'); };`),
	"/restart.html": tickerPage("restart", `<button id="b">Stop the ticker</button>`,
		`document.getElementById('b').onclick = () => setTimeout(() => { clearInterval(ticker); document.getElementById('ticks').textContent = 'stopped at ' + ticks; effect('stopped'); }, 200);`),
}

func init() { maps.Copy(settlePages, churnPages) }

// TestSettleBesideChurn clicks through `reins mcp` on pages whose ticker
// never stops, each button's effect different, and reads each answer: it
// comes before the cap, says what kept changing instead of waiting for it,
// and has the page's own effect in it — a late one, a request's answer, a
// dialog, and a change of the ticker itself.
func TestSettleBesideChurn(t *testing.T) {
	r := startSettleRig(t, "/react.html", false)
	r.loaded("react")
	for _, c := range []struct {
		page, button string
		effect       []string // what the answer must carry
	}{
		{"late", "Place the order", []string{"Order placed"}},
		{"request", "Load the price", []string{"The price is 12.50"}},
		{"dialog", "Delete the file", []string{"dialog", "Really delete the file?"}},
		{"restart", "Stop the ticker", []string{"stopped at"}},
	} {
		t.Run(c.page, func(t *testing.T) {
			mcptest.MustCall(t, r.cs, "browser_navigate", map[string]any{"url": r.origin + "/" + c.page + ".html"})
			r.loaded(c.page)
			snap := mcptest.MustCall(t, r.cs, "browser_snapshot", nil)
			out := mcptest.MustCall(t, r.cs, "browser_click", map[string]any{"ref": mcptest.Ref(t, snap, "button", c.button)})
			t.Logf("the click on %q answered:\n%s", c.button, out)
			for _, e := range c.effect {
				if !strings.Contains(out, e) {
					t.Errorf("the click's answer does not carry the page's effect %q", e)
				}
			}
			if strings.Contains(out, "still changing") {
				t.Errorf("the click beside a ticker was answered at the cap")
			}
			switch says := strings.Contains(out, "keeps changing on its own"); {
			case c.page != "restart" && !says:
				t.Errorf("the answer does not say what kept changing")
			case c.page == "restart" && says:
				t.Errorf("the answer says the ticker the click stopped keeps changing")
			}
		})
	}
}
