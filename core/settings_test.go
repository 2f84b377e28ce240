package core_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/denylist"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/internal/autostart"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/settings"
	"github.com/reins-app/reins/vocab"
)

// installedExe is the program the tests register at login: the test binary
// itself sits in a temporary build folder, which autostart refuses.
const installedExe = "/opt/Reins Apps/reins"

// loginItems points the desktop's login items into a fresh folder for the
// test, HOME on macOS and XDG_CONFIG_HOME elsewhere, and returns where
// Reins's entry goes. Turning start at login on registers installedExe.
func loginItems(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	path, err := autostart.Path()
	if err != nil {
		t.Skipf("no login items here: %v", err)
	}
	if !strings.HasPrefix(path, dir) {
		t.Fatalf("the entry would go to %s, outside the test's folder", path)
	}
	return path
}

// notes collects what the engine logs.
type notes struct {
	mu    sync.Mutex
	lines []string
}

func (n *notes) logf(format string, args ...any) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.lines = append(n.lines, fmt.Sprintf(format, args...))
}

func (n *notes) has(t *testing.T, parts ...string) {
	t.Helper()
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, l := range n.lines {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(l, p)
		}
		if all {
			return
		}
	}
	t.Errorf("no note saying %q in %q", parts, n.lines)
}

// settingsRows are the settings rows read through rows, oldest first.
func settingsRows(t *testing.T, rows func(context.Context, persondoor.AuditFilter) ([]persondoor.AuditRow, error)) []persondoor.AuditRow {
	t.Helper()
	rs, err := rows(context.Background(), persondoor.AuditFilter{Act: "settings"})
	if err != nil {
		t.Fatal(err)
	}
	slices.Reverse(rs)
	return rs
}

func TestSettingsStartFromTheEngineAndShowTheDenyList(t *testing.T) {
	e := coretest.New(t, coretest.Options{ApprovalTimeout: 30 * time.Second})
	s := e.Settings()
	if s.ApprovalTimeout != 30*time.Second || s.RememberFor != 10*time.Minute || s.BridgePort != 0 || s.StartAtLogin {
		t.Fatalf("settings = %+v", s)
	}
	var labels []string
	for _, r := range denylist.Default() {
		labels = append(labels, r.Label)
	}
	labels = append(labels, executor.OwnLabel) // found by process, not by name
	if strings.Join(s.DenyList, ",") != strings.Join(labels, ",") || len(labels) == 0 {
		t.Fatalf("deny list = %v, want the defaults %v", s.DenyList, labels)
	}
	if len(s.DenyAdded) != 0 {
		t.Fatalf("the person has added nothing yet: %v", s.DenyAdded)
	}
	s.DenyList[0] = "changed"
	if e.Settings().DenyList[0] == "changed" {
		t.Fatal("Settings shares its deny list with the engine")
	}
	if err := e.AddDenied("Signal"); err != nil {
		t.Fatal(err)
	}
	s = e.Settings()
	s.DenyAdded[0] = "changed"
	if e.Settings().DenyAdded[0] != "Signal" {
		t.Fatal("Settings shares the person's additions with the engine")
	}
}

func TestEachSettingsChangeIsAuditedAndPublished(t *testing.T) {
	e := coretest.New(t, coretest.Options{ApprovalTimeout: 30 * time.Second})
	events, stop := e.Subscribe(16)
	defer stop()
	if err := e.SetApprovalTimeout(45 * time.Second); err != nil {
		t.Fatal(err)
	}
	if err := e.SetRememberFor(30 * time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := e.SetStartAtLogin(true); err != nil {
		t.Fatal(err)
	}
	if err := e.SetBridgePort(48211); err != nil {
		t.Fatal(err)
	}
	// The same value again changes nothing and writes nothing.
	if err := e.SetApprovalTimeout(45 * time.Second); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"approval timeout 30s → 45s",
		"allow on this tab 10m → 30m",
		"start at login off → on",
		"bridge port any free port → 48211 (from the next start)",
	}
	rows, err := core.ReadAudit(context.Background(), e.Log, persondoor.AuditFilter{Act: "settings"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(want) {
		t.Fatalf("want %d settings rows, got %d", len(want), len(rows))
	}
	for i, w := range want {
		r := rows[len(rows)-1-i] // newest first
		if r.Detail != w || r.AgentName != "person" || r.ActKind != "settings" || r.Outcome != vocab.OutcomeDone {
			t.Errorf("row %d: %s (detail %q), want %q", i, persondoor.FormatAuditRow(r), r.Detail, w)
		}
	}
	for _, w := range want {
		for got := false; !got; {
			select {
			case ev := <-events:
				if ev.Kind != persondoor.EventSettings {
					continue // the fake browser's own events
				}
				if ev.Detail != w {
					t.Fatalf("event %+v, want settings %q", ev, w)
				}
				got = true
			case <-time.After(2 * time.Second):
				t.Fatalf("no event for %q", w)
			}
		}
	}
	s := e.Settings()
	if s.ApprovalTimeout != 45*time.Second || s.RememberFor != 30*time.Minute || !s.StartAtLogin || s.BridgePort != 48211 {
		t.Fatalf("settings = %+v", s)
	}
}

func TestSettersRefuseValuesOutOfBounds(t *testing.T) {
	e := coretest.New(t, coretest.Options{ApprovalTimeout: 30 * time.Second})
	for _, c := range []struct {
		err  error
		says string
	}{
		{e.SetApprovalTimeout(4 * time.Second), "between 5 seconds and 5 minutes, not 4 seconds"},
		{e.SetApprovalTimeout(6 * time.Minute), "between 5 seconds and 5 minutes, not 6 minutes"},
		{e.SetRememberFor(30 * time.Second), "between 1 minute and 1 hour, not 30 seconds"},
		{e.SetRememberFor(2 * time.Hour), "between 1 minute and 1 hour, not 2 hours"},
		{e.SetBridgePort(80), "between 1024 and 65535, or 0 to pick a free one, not 80"},
		{e.SetBridgePort(70000), "not 70000"},
	} {
		if !errors.Is(c.err, settings.ErrInvalid) || !strings.Contains(c.err.Error(), c.says) {
			t.Errorf("got %v, want an invalid-setting error saying %q", c.err, c.says)
		}
	}
	if rows, _ := core.ReadAudit(context.Background(), e.Log, persondoor.AuditFilter{Act: "settings"}); len(rows) != 0 {
		t.Fatalf("a refused value was audited as a change: %d rows", len(rows))
	}
	if s := e.Settings(); s.ApprovalTimeout != 30*time.Second || s.RememberFor != 10*time.Minute || s.BridgePort != 0 {
		t.Fatalf("a refused value changed the settings: %+v", s)
	}
}

// A shorter timeout reaches the broker: the next act that nobody answers is
// denied after the new time, not the old one.
func TestNewApprovalTimeoutAppliesToTheNextAct(t *testing.T) {
	f := newFixture(t, time.Minute)
	f.SetShare(f.tab, vocab.Control)
	if err := f.SetApprovalTimeout(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	ref, _ := f.snapRef("Place order")
	start := time.Now()
	if err := f.click(ref); codeOf(err) != vocab.CodeTimeout {
		t.Fatalf("got %v, want a timeout", err)
	}
	if took := time.Since(start); took < 4*time.Second || took > 20*time.Second {
		t.Fatalf("the unanswered act took %v; want about 5 s, the new timeout", took)
	}
}

// A shorter "allow on this tab" reaches the broker and also cuts short what
// was allowed before: on the engine's clock, two minutes after an allow
// given under the 10-minute default and then shortened to one, the next
// click is asked again.
func TestShorterRememberForEndsAnEarlierAllow(t *testing.T) {
	var mu sync.Mutex
	now := time.Unix(1_000_000, 0)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	log, err := audit.Open(context.Background(), audit.Options{Path: filepath.Join(t.TempDir(), "audit.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	br := coretest.NewBrowser()
	ex := &executor.Fake{}
	e := core.New(core.Options{Browser: br, Audit: log, Executor: ex, ApprovalTimeout: 300 * time.Millisecond, Now: clock, Logf: t.Logf})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.Run(ctx)
	defer e.Close()
	br.Connect()
	br.Open(7, shop())
	var tab string
	for i := 0; i < 500 && tab == ""; i++ {
		for _, ti := range e.Tabs() {
			if ti.URL == shopURL && ti.Connected {
				tab = ti.ID
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	if tab == "" {
		t.Fatal("no tab")
	}
	if err := e.SetShare(tab, vocab.Control); err != nil {
		t.Fatal(err)
	}
	agent := e.Connect(vocab.Agent{Name: "Test agent", PID: 4121, Exe: "/usr/bin/claude"})
	allowed := make(chan struct{})
	events, stop := e.Subscribe(64)
	go func() {
		first := true
		for ev := range events {
			if ev.Kind == persondoor.EventApproval && first {
				first = false
				e.Answer(ev.Request.ID, vocab.AllowTab)
				close(allowed)
			}
		}
	}()
	defer stop()
	snap, err := agent.Snapshot(ctx, tab)
	if err != nil {
		t.Fatal(err)
	}
	ref := regexp.MustCompile(`"Next"[^\n]*\[ref=(e\d+)\]`).FindStringSubmatch(snap.Text)[1]
	click := func() error {
		_, err := agent.Act(ctx, agentdoor.ActRequest{Tab: tab, Ref: ref, Act: vocab.Act{Kind: "click"}})
		return err
	}
	if err := click(); err != nil {
		t.Fatal(err)
	}
	<-allowed
	if err := e.SetRememberFor(time.Minute); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	now = now.Add(30 * time.Second)
	mu.Unlock()
	if err := click(); err != nil {
		t.Fatalf("within the new minute the allow should still cover the click: %v", err)
	}
	mu.Lock()
	now = now.Add(2 * time.Minute)
	mu.Unlock()
	if err := click(); codeOf(err) != vocab.CodeTimeout {
		t.Fatalf("two minutes on, under a one-minute memory, the click should be asked (and time out): %v", err)
	}
	if n := len(ex.Fired()); n != 2 {
		t.Fatalf("fired %d acts, want 2", n)
	}
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func TestSettingsAreSavedAndLoadedAtStart(t *testing.T) {
	loginItems(t)
	dir := t.TempDir()
	var ex *executor.Fake
	start := func() *core.Runtime {
		ex = &executor.Fake{}
		rt, err := core.Start(context.Background(), core.StartOptions{Program: installedExe, DataDir: dir, Executor: ex, Logf: t.Logf})
		if err != nil {
			t.Fatal(err)
		}
		return rt
	}
	rt := start()
	if s := rt.Settings(); s.ApprovalTimeout != 30*time.Second || s.RememberFor != 10*time.Minute {
		t.Fatalf("defaults: %+v", s)
	}
	for _, err := range []error{
		rt.SetApprovalTimeout(45 * time.Second), rt.SetRememberFor(20 * time.Minute), rt.SetStartAtLogin(true),
		rt.AddDenied("Signal"), rt.AddDenied("org.example.Bank"),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, settings.FileName)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("settings file mode %v, want 0600", fi.Mode().Perm())
	}
	var saved map[string]any
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &saved); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(saved["denyAdded"]); got != "[Signal org.example.Bank]" {
		t.Fatalf("saved denyAdded = %s in\n%s", got, b)
	}
	n, err := rt.VerifyAudit(context.Background())
	if err != nil || n < 5 {
		t.Fatalf("VerifyAudit = %d, %v", n, err)
	}
	// A port for the next start: pick one that is free now.
	free := freePort(t)
	if err := rt.SetBridgePort(free); err != nil {
		t.Fatal(err)
	}
	if rt.Port() == free {
		t.Fatal("the running bridge moved")
	}
	rt.Close()

	rt = start()
	defer rt.Close()
	s := rt.Settings()
	if s.ApprovalTimeout != 45*time.Second || s.RememberFor != 20*time.Minute || !s.StartAtLogin || s.BridgePort != free ||
		strings.Join(s.DenyAdded, ",") != "Signal,org.example.Bank" {
		t.Fatalf("after a restart: %+v", s)
	}
	// The additions reach the new executor at start, after the defaults.
	for _, a := range []executor.App{{Name: "Signal"}, {Name: "Bank", ID: "org.example.bank"}, {Name: "KeePassXC"}} {
		if _, ok := ex.DenyList.Match(a); !ok {
			t.Errorf("after a restart the executor lets %+v through", a)
		}
	}
	if rt.Port() != free {
		t.Fatalf("the bridge listens on %d, want the saved %d", rt.Port(), free)
	}
}

func TestADamagedSettingsFileDoesNotStopReins(t *testing.T) {
	loginItems(t)
	if err := autostart.Enable("/opt/reins/reins"); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	long := strings.Repeat("x", settings.MaxDeniedName+1)
	os.WriteFile(filepath.Join(dir, settings.FileName), []byte(`{"approvalTimeoutSeconds": 3600, "startAtLogin": true,
		"denyAdded": ["Signal", "", "bell\u0007", "SIGNAL", "`+long+`", " Bank "]}`), 0o600)
	var n notes
	rt, err := core.Start(context.Background(), core.StartOptions{Program: installedExe, DataDir: dir, Executor: &executor.Fake{}, Logf: n.logf})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	if s := rt.Settings(); s.ApprovalTimeout != 30*time.Second || !s.StartAtLogin || strings.Join(s.DenyAdded, ",") != "Signal,Bank" {
		t.Fatalf("want the default timeout and the valid rest kept: %+v", s)
	}
	n.has(t, "approval timeout 1h is out of bounds")
	n.has(t, `deny list entry "" dropped`, "type the application's name")
	n.has(t, `deny list entry "bell\a" dropped`, "control character")
	n.has(t, `deny list entry "SIGNAL" is there twice`)
	n.has(t, "dropped: an application name can be at most 128 characters, not 129")
	var saved map[string]any
	b, _ := os.ReadFile(filepath.Join(dir, settings.FileName))
	json.Unmarshal(b, &saved)
	if saved["approvalTimeoutSeconds"] != float64(3600) {
		t.Fatal("loading rewrote the file")
	}
	if _, err := os.Stat(filepath.Join(dir, settings.FileName+".bad")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a readable file was set aside: %v", err)
	}
}

// A settings file that is not JSON at all is set aside before anything can
// replace it, so what the person had set can still be read and put back.
func TestASettingsFileThatCannotBeReadIsKeptAsBad(t *testing.T) {
	loginItems(t)
	dir := t.TempDir()
	path := filepath.Join(dir, settings.FileName)
	garbage := []byte(`{"denyAdded": ["Signal", "Bank"], "approvalTimeoutSeconds": 45,,}`)
	if err := os.WriteFile(path, garbage, 0o600); err != nil {
		t.Fatal(err)
	}
	// An older bad file gives way to the newer one.
	if err := os.WriteFile(path+".bad", []byte("older"), 0o600); err != nil {
		t.Fatal(err)
	}
	var n notes
	rt, err := core.Start(context.Background(), core.StartOptions{Program: installedExe, DataDir: dir, Executor: &executor.Fake{}, Logf: n.logf})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	n.has(t, path, "cannot be read as settings", "kept as "+path+".bad", "uses the defaults")
	if s := rt.Settings(); s.ApprovalTimeout != 30*time.Second || len(s.DenyAdded) != 0 {
		t.Fatalf("want the defaults: %+v", s)
	}
	if err := rt.AddDenied("Signal"); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path + ".bad"); err != nil || !bytes.Equal(b, garbage) {
		t.Fatalf("settings.json.bad holds %q (%v), want the unreadable file's bytes", b, err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var saved map[string]any
	if err := json.Unmarshal(b, &saved); err != nil || fmt.Sprint(saved["denyAdded"]) != "[Signal]" {
		t.Fatalf("after a change settings.json holds %q (%v), want the new settings", b, err)
	}
}

func TestASettingIsNotChangedWhenTheAuditLogCannotRecordIt(t *testing.T) {
	e := coretest.New(t, coretest.Options{ApprovalTimeout: 30 * time.Second})
	e.Log.Close()
	err := e.SetApprovalTimeout(time.Minute)
	if err == nil || !strings.Contains(err.Error(), "audit log could not record") {
		t.Fatalf("got %v", err)
	}
	if e.Settings().ApprovalTimeout != 30*time.Second {
		t.Fatal("the change was applied without its audit row")
	}
}

func TestDenyListAdditionsAreAuditedInOrderAndPublished(t *testing.T) {
	e := coretest.New(t, coretest.Options{})
	events, stop := e.Subscribe(16)
	defer stop()
	for _, err := range []error{e.AddDenied("Signal"), e.AddDenied("  org.example.Bank\t"), e.RemoveDenied("SIGNAL")} {
		if err != nil {
			t.Fatal(err)
		}
	}
	want := []string{`deny list + "Signal"`, `deny list + "org.example.Bank"`, `deny list − "Signal"`}
	rows := settingsRows(t, e.AuditRows)
	if len(rows) != len(want) {
		t.Fatalf("want %d settings rows, got %d", len(want), len(rows))
	}
	for i, w := range want {
		if r := rows[i]; r.Detail != w || r.AgentName != "person" || r.Outcome != vocab.OutcomeDone {
			t.Errorf("row %d: %s, want %q", i, persondoor.FormatAuditRow(r), w)
		}
	}
	for _, w := range want {
		for got := false; !got; {
			select {
			case ev := <-events:
				if ev.Kind == persondoor.EventSettings {
					if ev.Detail != w {
						t.Fatalf("event %q, want %q", ev.Detail, w)
					}
					got = true
				}
			case <-time.After(2 * time.Second):
				t.Fatalf("no event for %q", w)
			}
		}
	}
	if got := e.Settings().DenyAdded; strings.Join(got, ",") != "org.example.Bank" {
		t.Fatalf("DenyAdded = %q", got)
	}
}

func TestDenyListRefusesWhatItCannotTake(t *testing.T) {
	e := coretest.New(t, coretest.Options{})
	if err := e.AddDenied("Signal"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		err  error
		says string
	}{
		{e.AddDenied(""), "type the application's name, such as Signal"},
		{e.AddDenied(" \t "), "type the application's name"},
		{e.AddDenied("Sig\nnal"), "control character (U+000A)"},
		{e.AddDenied("Sig\u202enal"), "invisible or control character (U+202E)"},
		{e.AddDenied(strings.Repeat("é", settings.MaxDeniedName+1)), "at most 128 characters, not 129"},
		{e.AddDenied("\xffbad"), "not valid text"},
		{e.AddDenied("SIGNAL"), "“Signal” is already on your list"},
		{e.AddDenied(" signal "), "“Signal” is already on your list"},
		{e.AddDenied("1password"), "is already never touched: it is built in, as 1Password"},
		{e.AddDenied("Reins"), "built in, as Reins"},
		{e.RemoveDenied("1Password"), "1Password is built in, and the built-in entries cannot be removed"},
		{e.RemoveDenied("Telegram"), "“Telegram” is not on your list"},
	} {
		if !errors.Is(c.err, settings.ErrInvalid) || !strings.Contains(c.err.Error(), c.says) {
			t.Errorf("got %v, want an invalid-setting error saying %q", c.err, c.says)
		}
	}
	if e.AddDenied(strings.Repeat("é", settings.MaxDeniedName)) != nil {
		t.Error("a name of exactly the longest length was refused")
	}
	rows := settingsRows(t, e.AuditRows)
	if len(rows) != 2 {
		t.Fatalf("refusals were audited as changes: %d rows", len(rows))
	}
	if got := e.Settings().DenyAdded; len(got) != 2 || got[0] != "Signal" {
		t.Fatalf("DenyAdded = %q", got)
	}
	// The executor was never handed a list with a refused name in it.
	for _, a := range []executor.App{{Name: "Telegram"}, {Name: "Sig\nnal"}} {
		if _, ok := e.Exec.DenyList.Match(a); ok {
			t.Errorf("the executor refuses %+v", a)
		}
	}
}

// A person's addition is enforced where it matters: the executor refuses
// an approved act while the added application is in front, and fires again
// once it is removed.
func TestAnAddedApplicationInFrontStopsAnApprovedAct(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.Control)
	stop := f.AnswerAll(vocab.AllowOnce)
	defer stop()
	f.Exec.SetFrontmost(executor.App{Name: "Signal", Class: "signal.Signal", Exe: "/opt/Signal/signal-desktop", PID: 900})
	ref, _ := f.snapRef("Place order")
	if err := f.click(ref); err != nil {
		t.Fatalf("before Signal was added: %v", err)
	}
	if err := f.AddDenied("signal-desktop"); err != nil {
		t.Fatal(err)
	}
	ref, _ = f.snapRef("Place order")
	err := f.click(ref)
	if codeOf(err) != vocab.CodeDenyListed || !strings.Contains(err.Error(), "signal-desktop") {
		t.Fatalf("with Signal added and in front: got %v, want a deny-listed refusal naming it", err)
	}
	if n := len(f.Exec.Fired()); n != 1 {
		t.Fatalf("fired %d acts, want only the one before Signal was added", n)
	}
	if err := f.RemoveDenied("signal-desktop"); err != nil {
		t.Fatal(err)
	}
	ref, _ = f.snapRef("Place order")
	if err := f.click(ref); err != nil {
		t.Fatalf("after Signal was removed: %v", err)
	}
	if n := len(f.Exec.Fired()); n != 2 {
		t.Fatalf("fired %d acts, want 2", n)
	}
}

func TestOpenAppsOffersWhatTheDenyListDoesNotCover(t *testing.T) {
	e := coretest.New(t, coretest.Options{})
	e.Exec.SetWindows([]executor.Window{
		{App: executor.App{Name: "Signal", Class: "signal.Signal"}},
		{App: executor.App{Name: "firefox", Class: "Navigator.firefox"}},
		{App: executor.App{Name: "Signal", Class: "signal.Signal"}},
		{App: executor.App{Name: "KeePassXC", Class: "keepassxc.KeePassXC"}},
		{App: executor.App{Name: "Bank", ID: "org.example.bank"}},
		{App: executor.App{Name: ""}},
		{App: executor.App{Name: "Chromium"}},
	})
	if err := e.AddDenied("org.example.Bank"); err != nil {
		t.Fatal(err)
	}
	got, err := e.OpenApps(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "Chromium,firefox,Signal" {
		t.Fatalf("OpenApps = %q", got)
	}
	if rows := settingsRows(t, e.AuditRows); len(rows) != 1 {
		t.Fatalf("listing the open applications wrote %d rows", len(rows)-1)
	}
}

func TestStartAtLoginAddsAndRemovesTheLoginEntry(t *testing.T) {
	entry := loginItems(t)
	exe := installedExe
	rt, err := core.Start(context.Background(), core.StartOptions{Program: installedExe, DataDir: t.TempDir(), Executor: &executor.Fake{}, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	if rt.Settings().StartAtLogin {
		t.Fatal("on with no entry")
	}
	if err := rt.SetStartAtLogin(true); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(entry)
	if err != nil {
		t.Fatalf("no entry after turning it on: %v", err)
	}
	if !bytes.Equal(b, autostart.DesktopEntry(exe)) && !bytes.Equal(b, autostart.LaunchAgent(exe)) {
		t.Fatalf("the entry does not start %s:\n%s", exe, b)
	}
	if on, _ := autostart.Enabled(); !on || !rt.Settings().StartAtLogin {
		t.Fatal("not on after turning it on")
	}
	if err := rt.SetStartAtLogin(false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(entry); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the entry is still there: %v", err)
	}
	var details []string
	for _, r := range settingsRows(t, rt.AuditRows) {
		details = append(details, r.Outcome+": "+r.Detail)
	}
	if strings.Join(details, "|") != "done: start at login off → on|done: start at login on → off" {
		t.Fatalf("audit rows %q", details)
	}
}

func TestStartAtLoginThatCannotBeRegisteredChangesNothing(t *testing.T) {
	dir := t.TempDir()
	// A file where the config and home folders should be: no one, root
	// included, can make the entry's folder there.
	blocker := filepath.Join(dir, "not-a-folder")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", blocker)
	t.Setenv("XDG_CONFIG_HOME", blocker)
	data := t.TempDir()
	rt, err := core.Start(context.Background(), core.StartOptions{Program: installedExe, DataDir: data, Executor: &executor.Fake{}, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	events, stop := rt.Subscribe(16)
	defer stop()
	err = rt.SetStartAtLogin(true)
	if err == nil || !strings.Contains(err.Error(), "start at login is still off, because Reins could not add itself to the login items") ||
		!strings.Contains(err.Error(), blocker) {
		t.Fatalf("got %v, want an error saying why, naming %s", err, blocker)
	}
	if rt.Settings().StartAtLogin {
		t.Fatal("the setting changed although the entry could not be written")
	}
	rows := settingsRows(t, rt.AuditRows)
	if len(rows) != 2 || rows[0].Outcome != vocab.OutcomeDone || rows[0].Detail != "start at login off → on" ||
		rows[1].Outcome != vocab.OutcomeFailed || !strings.Contains(rows[1].Detail, "still off") {
		t.Fatalf("want the change's row then its failure, got %d rows: %+v", len(rows), rows)
	}
	if _, err := os.Stat(filepath.Join(data, settings.FileName)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the settings were saved: %v", err)
	}
	select {
	case ev := <-events:
		if ev.Kind == persondoor.EventSettings {
			t.Fatalf("a settings event for a change not made: %+v", ev)
		}
	case <-time.After(100 * time.Millisecond):
	}
}

// A program that will be gone by the next login, such as a build of go
// run, is not registered: the setting stays off and the error says what to
// run instead.
func TestStartAtLoginRefusesAProgramThatWillBeGoneByTheNextLogin(t *testing.T) {
	entry := loginItems(t)
	rt, err := core.Start(context.Background(), core.StartOptions{Program: filepath.Join(os.TempDir(), "go-build2719203", "b001", "exe", "reins"), DataDir: t.TempDir(), Executor: &executor.Fake{}, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	err = rt.SetStartAtLogin(true)
	if !errors.Is(err, autostart.ErrTransient) || !strings.Contains(err.Error(), "start at login is still off, because") ||
		!strings.Contains(err.Error(), "run the installed reins, not go run") {
		t.Fatalf("got %v, want a transient-program error saying what to run instead", err)
	}
	if rt.Settings().StartAtLogin {
		t.Fatal("the setting changed although nothing was registered")
	}
	if _, err := os.Stat(entry); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("an entry was written for a temporary build: %v", err)
	}
	rows := settingsRows(t, rt.AuditRows)
	if len(rows) != 2 || rows[1].Outcome != vocab.OutcomeFailed || !strings.Contains(rows[1].Detail, "go run") {
		t.Fatalf("want the change's row then its failure, got %+v", rows)
	}
}

// At start the preferences show what the login items really hold: an
// entry the person removed is not put back, and one left in place shows on.
func TestStartShowsTheLoginItemsAsTheyAre(t *testing.T) {
	entry := loginItems(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, settings.FileName), []byte(`{"startAtLogin": true}`), 0o600)
	var n notes
	rt, err := core.Start(context.Background(), core.StartOptions{Program: installedExe, DataDir: dir, Executor: &executor.Fake{}, Logf: n.logf})
	if err != nil {
		t.Fatal(err)
	}
	if rt.Settings().StartAtLogin {
		t.Fatal("shown on, but the entry is gone")
	}
	if _, err := os.Stat(entry); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the removed entry was put back: %v", err)
	}
	n.has(t, "start at login was on, but its entry", entry, "is gone")
	rt.Close()

	os.WriteFile(filepath.Join(dir, settings.FileName), []byte(`{}`), 0o600)
	if err := autostart.Enable("/opt/reins/reins"); err != nil {
		t.Fatal(err)
	}
	rt, err = core.Start(context.Background(), core.StartOptions{Program: installedExe, DataDir: dir, Executor: &executor.Fake{}, Logf: n.logf})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	if !rt.Settings().StartAtLogin {
		t.Fatal("shown off, but the entry starts Reins at login")
	}
	n.has(t, "start at login was off, but", entry, "showing it on")
}

// The remote audit receiver is set in the settings file; a value that
// cannot name one is reported, and a broken one marked required keeps
// acts refused rather than quietly lifting the rule.
func TestTheAuditAnchorSettingIsChecked(t *testing.T) {
	for _, c := range []struct {
		json         string
		remote       string
		required     bool
		note, reason string
	}{
		{`{"remote": "logs.example.org:6514", "required": true}`, "logs.example.org:6514", true, "", ""},
		{`{"remote": "[::1]:514"}`, "[::1]:514", false, "", ""},
		{`{"remote": "logs.example.org"}`, "", false, "must be host:port", "not sent to a receiver"},
		{`{"remote": ":514"}`, "", false, "needs a host name", "not sent to a receiver"},
		{`{"remote": "logs.example.org:70000"}`, "", false, "from 1 to 65535", "not sent to a receiver"},
		{`{"remote": "log s:514", "required": true}`, "log s:514", true, "needs a host name", "acts are refused until it is mended"},
		{`{"required": true}`, "", true, "names no receiver", "acts are refused until it names one"},
		// Not JSON at all: whatever it named, the rule is not lifted.
		{`{"remote": "logs.example.org:6514", "required": true},`, "", true, "names an audit anchor", "acts are refused until the file is mended"},
		{`{"remote": "logs.example.org:6514", "required": "true"}`, "", true, "names an audit anchor", "acts are refused until the file is mended"},
	} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, settings.FileName), []byte(`{"auditAnchor": `+c.json+`}`), 0o600)
		var n notes
		rt, err := core.Start(context.Background(), core.StartOptions{Program: installedExe, DataDir: dir, Executor: &executor.Fake{}, SystemLog: "off", Logf: n.logf})
		if err != nil {
			t.Fatal(err)
		}
		if s := rt.Settings(); s.AuditRemote != c.remote || s.AuditRemoteRequired != c.required {
			t.Errorf("%s: remote %q required %v, want %q %v", c.json, s.AuditRemote, s.AuditRemoteRequired, c.remote, c.required)
		}
		if c.note != "" {
			n.has(t, c.note, c.reason)
		}
		rt.Close()
	}
	for _, ok := range []string{"", "127.0.0.1:514", "logs.example.org:6514", "[::1]:1"} {
		if err := settings.CheckAuditRemote(ok); err != nil {
			t.Errorf("CheckAuditRemote(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"host", "host:", "host:0", "host:x", "a/b:514", "tcp://host:514"} {
		if err := settings.CheckAuditRemote(bad); !errors.Is(err, settings.ErrInvalid) {
			t.Errorf("CheckAuditRemote(%q) = %v, want ErrInvalidSetting", bad, err)
		}
	}
}
