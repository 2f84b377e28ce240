package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/reins-app/reins/bridge"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/extension"
	"github.com/reins-app/reins/internal/testrig/browsertest"
	"github.com/reins-app/reins/internal/testrig/chromium"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/internal/testrig/xvfb"
)

// The relay attack, for real: Reins crashed and restarted on a new port,
// its old bridge.json still names the old one, and a program of another
// user listening there passes the extension's connection on to the real
// Reins, both ways, and adds requests of its own. And the extension's own
// refusals: a bridge that skips every check of the app's still gets nothing
// from a tab the person did not share.

const relayBankPage = `<!doctype html><html><head><title>MyBank — account 4471</title></head>
<body><h1>Balance 12,840.55 EUR</h1><p>IBAN DE89 3704 0044 0532 0130 00</p><button>Transfer</button></body></html>`

const relayShopPage = `<!doctype html><html><head><title>Shop — basket</title></head>
<body><h1>Basket</h1><button>Checkout</button></body></html>`

// The relay's secrets to look for in what it saw: anything of the bank tab.
var relayLeaks = []string{"MyBank", "4471", "12,840.55", "IBAN", "DE89", "/bank.html", "Shop — basket", "/shop.html"}

// Environment of the relay when the test binary runs as one.
const (
	relayEnvTo   = "REINS_E2E_RELAY_TO"   // the real bridge, host:port
	relayEnvTabs = "REINS_E2E_RELAY_TABS" // Chrome tab ids to ask for, comma-separated
)

func init() {
	if to := os.Getenv(relayEnvTo); to != "" {
		os.Exit(runRelay(to, os.Getenv(relayEnvTabs)))
	}
}

// relayAttempt is what the relay reports of one connection the extension
// made to it.
type relayAttempt struct {
	N             int      `json:"n"`
	RewrotePort   bool     `json:"rewrotePort"`   // it changed the hello's port to the real bridge's
	FromExtension []string `json:"fromExtension"` // every message, as it came
	FromApp       []string `json:"fromApp"`
	Injected      int      `json:"injected"` // requests of its own sent to the extension
	Answers       int      `json:"answers"`  // answers the extension gave to them
}

// runRelay is the relay program: it listens on a port of its own, says
// which and as whom on stdout, and for each connection reports a
// relayAttempt as one JSON line.
func runRelay(to, tabs string) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	_, appPort, _ := net.SplitHostPort(to)
	fmt.Printf("listening %d uid %d\n", ln.Addr().(*net.TCPAddr).Port, os.Getuid())
	var out sync.Mutex
	var count atomic.Int64
	http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := relayAttempt{N: int(count.Add(1))}
		a.RewrotePort = a.N%2 == 0
		ext, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
		if err != nil {
			return
		}
		defer ext.CloseNow()
		ext.SetReadLimit(64 << 20)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		// The extension's own Origin, passed on.
		app, _, err := websocket.Dial(ctx, "ws://"+to+"/bridge", &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {r.Header.Get("Origin")}}})
		if err != nil {
			return
		}
		defer app.CloseNow()
		app.SetReadLimit(64 << 20)
		var mu sync.Mutex
		go func() {
			for {
				typ, b, err := app.Read(ctx)
				if err != nil {
					ext.Close(websocket.StatusNormalClosure, "")
					return
				}
				mu.Lock()
				a.FromApp = append(a.FromApp, string(b))
				mu.Unlock()
				ext.Write(ctx, typ, b)
			}
		}()
		for {
			typ, b, err := ext.Read(ctx)
			if err != nil {
				break
			}
			var m map[string]any
			json.Unmarshal(b, &m)
			mu.Lock()
			a.FromExtension = append(a.FromExtension, string(b))
			if id, _ := m["id"].(string); strings.HasPrefix(id, "relay-") {
				a.Answers++
			}
			mu.Unlock()
			isHello := m["method"] == "hello"
			if isHello && a.RewrotePort {
				// A relay that hides: the hello names the real bridge's port.
				if p, ok := m["params"].(map[string]any); ok {
					p["port"], _ = strconv.Atoi(appPort)
					b, _ = json.Marshal(m)
				}
			}
			app.Write(ctx, typ, b)
			if isHello {
				// Its own requests, before the app can answer the hello.
				reqs := []string{`{"id":"relay-tabs","method":"tabs","params":{}}`}
				for _, tab := range strings.Split(tabs, ",") {
					reqs = append(reqs,
						`{"id":"relay-snapshot-`+tab+`","method":"snapshot","params":{"tab":`+tab+`}}`,
						`{"id":"relay-capture-`+tab+`","method":"capture","params":{"tab":`+tab+`}}`)
				}
				for _, q := range reqs {
					if ext.Write(ctx, websocket.MessageText, []byte(q)) == nil {
						mu.Lock()
						a.Injected++
						mu.Unlock()
					}
				}
			}
		}
		mu.Lock()
		line, _ := json.Marshal(a)
		mu.Unlock()
		out.Lock()
		fmt.Printf("%s\n", line)
		out.Unlock()
	}))
	return 0
}

// startRelayAsNobody runs the test binary as the relay under the user
// nobody, in its own process group, and returns its port and its reports.
func startRelayAsNobody(t *testing.T, to int, tabs string) (int, <-chan relayAttempt) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// nobody must be able to run it: a copy in a folder anyone may enter.
	dir, err := os.MkdirTemp("", "reins-relay")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	bin := filepath.Join(dir, "relay")
	copyFile(t, self, bin)
	cmd := exec.Command(bin, "-test.run=^$")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", relayEnvTo + "=127.0.0.1:" + strconv.Itoa(to), relayEnvTabs + "=" + tabs}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	testenv.OwnGroup(cmd)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the relay as nobody: %v", err)
	}
	t.Cleanup(func() {
		testenv.KillGroup(cmd, func() { cmd.Wait() })
		if t.Failed() && stderr.Len() > 0 {
			t.Logf("relay stderr:\n%s", tailOf(stderr.String(), 2000))
		}
	})
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 64<<20)
	if !lines.Scan() {
		t.Fatalf("the relay said nothing: %s", stderr.String())
	}
	var port, uid int
	if _, err := fmt.Sscanf(lines.Text(), "listening %d uid %d", &port, &uid); err != nil {
		t.Fatalf("the relay said %q", lines.Text())
	}
	if uid == os.Getuid() {
		t.Fatalf("the relay runs as uid %d, the test's own", uid)
	}
	reports := make(chan relayAttempt, 64)
	go func() {
		for lines.Scan() {
			var a relayAttempt
			if json.Unmarshal(lines.Bytes(), &a) == nil {
				reports <- a
			}
		}
		close(reports)
	}()
	return port, reports
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// bareBridge is a bridge with no engine behind it, paired with the real
// extension the way Reins pairs: what it may ask is everything.
type bareBridge struct {
	*bridge.Server
	mu   sync.Mutex
	logs []string // guarded by mu
}

func startBareBridge(t *testing.T, secret []byte, table func(string) protocol.Shares) *bareBridge {
	t.Helper()
	b := &bareBridge{}
	s, err := bridge.New(bridge.Options{Origin: extension.Origin, Secret: secret, Logf: func(f string, args ...any) {
		b.mu.Lock()
		b.logs = append(b.logs, fmt.Sprintf(f, args...))
		b.mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	s.ShareTable(func(profile, _ string) protocol.Shares { return table(profile) })
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	b.Server = s
	return b
}

func (b *bareBridge) logged(s string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, l := range b.logs {
		if strings.Contains(l, s) {
			n++
		}
	}
	return n
}

func (b *bareBridge) waitConnected(t *testing.T, within time.Duration) {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case ev := <-b.Events():
			if ev.Method == bridge.EventConnected {
				return
			}
		case <-deadline:
			t.Fatalf("the extension did not pair within %v", within)
		}
	}
}

func TestRelayAndBypassGetNothing(t *testing.T) {
	_, ok := browsertest.Chromium()
	testenv.Need(t, ok, "Debian chromium")
	testenv.Need(t, os.Getuid() == 0, "root, to run the relay as another user (nobody)")
	reinsBinaryFor(t)
	x := xvfb.StartT(t, "1280x800x24")
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	os.MkdirAll(data, 0o700)
	origin := browsertest.Serve(t, browsertest.NewWitness(), map[string]string{"/bank.html": relayBankPage, "/shop.html": relayShopPage})

	// The person shared the shop tab to read, and nothing else.
	app, shopTab, secret := bareBridgeSharingOne(t, data, protocol.LevelRead, origin)
	launchChromium(t, chromium.Options{
		Display: x.Display, Dir: dir, Reins: reinsBinary.path, DataDir: data,
		Args: []string{origin + "/bank.html"}, URL: origin + "/shop.html",
	})
	app.waitConnected(t, 60*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	// The tab list flows whatever is shared.
	var bank, shop int
	for bank == 0 || shop == 0 {
		var res protocol.TabsResult
		if err := app.Call(ctx, "", protocol.MethodTabs, struct{}{}, &res); err != nil {
			t.Fatal(err)
		}
		for _, tab := range res.Tabs {
			if tab.Status != "complete" {
				continue
			}
			switch tab.URL {
			case origin + "/bank.html":
				bank = tab.ID
			case origin + "/shop.html":
				shop = tab.ID
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the two pages never loaded: %+v", res.Tabs)
		case <-time.After(50 * time.Millisecond):
		}
	}
	shopTab.Store(int64(shop))

	t.Run("the extension refuses unshared tabs on its own", func(t *testing.T) {
		type ask struct {
			method string
			params any
			tab    string
		}
		asks := []ask{
			{protocol.MethodSnapshot, protocol.SnapshotParams{Tab: bank}, "bank"},
			{protocol.MethodResolve, protocol.ResolveParams{Tab: bank, Frame: 0, ID: 1, Role: "button", Name: "Transfer"}, "bank"},
			{protocol.MethodCapture, protocol.CaptureParams{Tab: bank}, "bank"},
			{protocol.MethodActivate, protocol.ActivateParams{Tab: bank}, "bank"},
			{protocol.MethodNavigate, protocol.NavigateParams{Tab: bank, URL: origin + "/shop.html"}, "bank"},
			// Shared to read: acts are refused too.
			{protocol.MethodActivate, protocol.ActivateParams{Tab: shop}, "shop (read)"},
			{protocol.MethodNavigate, protocol.NavigateParams{Tab: shop, URL: origin + "/bank.html"}, "shop (read)"},
		}
		through := 0
		for _, a := range asks {
			var out json.RawMessage
			err := app.Call(ctx, "", a.method, a.params, &out)
			var perr *protocol.Error
			if !errors.As(err, &perr) || perr.Code != protocol.CodeNotShared {
				through++
				t.Errorf("%s on the %s tab: %v %s, want the extension's %s", a.method, a.tab, err, tailOf(string(out), 200), protocol.CodeNotShared)
				continue
			}
			if strings.Contains(string(out), "IBAN") {
				t.Errorf("%s leaked the page", a.method)
			}
		}
		t.Logf("bypassing the app: %d requests on unshared or read-only tabs, %d answered", len(asks), through)
		// The control: the shared tab is read.
		var snap protocol.SnapshotResult
		if err := app.Call(ctx, "", protocol.MethodSnapshot, protocol.SnapshotParams{Tab: shop}, &snap); err != nil {
			t.Fatalf("the shared tab's snapshot: %v", err)
		}
		if len(snap.Frames) == 0 || snap.Frames[0].Error != "" {
			t.Fatalf("the shared tab's snapshot: %+v", snap)
		}
	})

	t.Run("a relay of another user on a stale port", func(t *testing.T) {
		// Reins restarts on a new port with every tab shared; the address
		// file still names the old one, where the relay listens.
		everything := func(string) protocol.Shares {
			return protocol.Shares{Tabs: []protocol.TabShare{
				{Tab: bank, Level: protocol.LevelControl, Origin: origin},
				{Tab: shop, Level: protocol.LevelControl, Origin: origin},
			}}
		}
		real := startBareBridge(t, secret, everything)
		relayPort, reports := startRelayAsNobody(t, real.Port(), fmt.Sprintf("%d,%d", bank, shop))
		if err := bridge.WriteAddress(data, bridge.Address{Port: relayPort, PID: os.Getpid()}); err != nil {
			t.Fatal(err)
		}
		app.Close() // the crash: the extension looks for Reins again

		const want = 4 // two passing the hello on as it is, two with the port rewritten
		var attempts []relayAttempt
		for len(attempts) < want {
			select {
			case a, ok := <-reports:
				if !ok {
					t.Fatal("the relay stopped")
				}
				attempts = append(attempts, a)
			case <-ctx.Done():
				t.Fatalf("the extension tried the relay only %d times", len(attempts))
			}
		}
		leaks, answers, injected, hellos, welcomed := 0, 0, 0, 0, 0
		for _, a := range attempts {
			answers += a.Answers
			injected += a.Injected
			for _, m := range a.FromExtension {
				if strings.Contains(m, `"method":"hello"`) {
					hellos++
				}
				for _, s := range relayLeaks {
					if strings.Contains(m, s) {
						leaks++
						t.Errorf("attempt %d: the extension sent the relay %q: %s", a.N, s, tailOf(m, 300))
					}
				}
			}
			for _, m := range a.FromApp {
				if strings.Contains(m, `"proof"`) {
					welcomed++
					t.Errorf("attempt %d: Reins welcomed the relayed hello: %s", a.N, m)
				}
			}
		}
		t.Logf("relay as nobody on port %d in front of Reins on %d: %d connections (%d hellos passed on, half with the port rewritten), %d requests of its own, %d answered, %d tab URLs or titles seen, %d welcomes from Reins",
			relayPort, real.Port(), len(attempts), hellos, injected, answers, leaks, welcomed)
		if answers != 0 {
			t.Errorf("the extension answered %d of the relay's requests", answers)
		}
		if hellos == 0 || injected == 0 {
			t.Fatal("the relay saw no hello or sent nothing: the test proves nothing")
		}
		if len(real.Peers()) != 0 {
			t.Errorf("Reins paired through the relay: %+v", real.Peers())
		}
		// Reins told the person, for the hellos passed on as they were.
		if n := real.logged(bridge.RelayWarning(relayPort, real.Port())); n == 0 {
			t.Errorf("Reins did not warn about the relay; it logged %q", real.logs)
		} else {
			t.Logf("Reins told the person (%d log line, at most one a minute per port): %s", n, bridge.RelayWarning(relayPort, real.Port()))
		}

		// The control: with the address file right again, the same
		// extension pairs at once.
		if err := bridge.WriteAddress(data, bridge.Address{Port: real.Port(), PID: os.Getpid()}); err != nil {
			t.Fatal(err)
		}
		real.waitConnected(t, 30*time.Second)
		var res protocol.TabsResult
		if err := real.Call(ctx, "", protocol.MethodTabs, struct{}{}, &res); err != nil || len(res.Tabs) < 2 {
			t.Fatalf("after the relay, the extension paired but lists %+v, %v", res.Tabs, err)
		}
	})
}

// bareBridgeSharingOne starts a bare bridge for the extension whose data
// folder is data, and writes its address where the extension's native
// host reads it. Its share table shares one tab at level on origin, once
// the returned tab id is set; none before. It returns the pairing secret
// too.
func bareBridgeSharingOne(t *testing.T, data, level, origin string) (*bareBridge, *atomic.Int64, []byte) {
	t.Helper()
	secret, err := bridge.LoadOrCreateSecret(data)
	if err != nil {
		t.Fatal(err)
	}
	tab := new(atomic.Int64)
	app := startBareBridge(t, secret, func(string) protocol.Shares {
		table := protocol.Shares{Tabs: []protocol.TabShare{}}
		if id := int(tab.Load()); id != 0 {
			table.Tabs = append(table.Tabs, protocol.TabShare{Tab: id, Level: level, Origin: origin})
		}
		return table
	})
	if err := bridge.WriteAddress(data, bridge.Address{Port: app.Port(), PID: os.Getpid()}); err != nil {
		t.Fatal(err)
	}
	return app, tab, secret
}

// launchChromium starts Chromium as o says and stops it at cleanup, with
// the tail of its log when the test failed.
func launchChromium(t *testing.T, o chromium.Options) *chromium.Process {
	t.Helper()
	browser, err := chromium.Launch(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		browser.Stop()
		if t.Failed() {
			if log, err := os.ReadFile(browser.LogPath); err == nil {
				t.Logf("chromium log (tail):\n%s", tailOf(string(log), 3000))
			}
		}
	})
	return browser
}
