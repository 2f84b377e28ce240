package core_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/executor"
)

func TestSettingsStartFromTheEngineAndShowTheDenyList(t *testing.T) {
	e := coretest.New(t, coretest.Options{ApprovalTimeout: 30 * time.Second})
	s := e.Settings()
	if s.ApprovalTimeout != 30*time.Second || s.RememberFor != 10*time.Minute || s.BridgePort != 0 || s.StartAtLogin {
		t.Fatalf("settings = %+v", s)
	}
	var labels []string
	for _, r := range executor.DefaultDenyList() {
		labels = append(labels, r.Label)
	}
	if strings.Join(s.DenyList, ",") != strings.Join(labels, ",") || len(labels) == 0 {
		t.Fatalf("deny list = %v, want the defaults %v", s.DenyList, labels)
	}
	s.DenyList[0] = "changed"
	if e.Settings().DenyList[0] == "changed" {
		t.Fatal("Settings shares its deny list with the engine")
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
	rows, err := e.Log.Rows(context.Background(), core.AuditFilter{Act: "settings"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(want) {
		t.Fatalf("want %d settings rows, got %d", len(want), len(rows))
	}
	for i, w := range want {
		r := rows[len(rows)-1-i] // newest first
		if r.Detail != w || r.AgentName != "person" || r.ActKind != "settings" || r.Outcome != core.OutcomeDone {
			t.Errorf("row %d: %s (detail %q), want %q", i, core.FormatAuditRow(r), r.Detail, w)
		}
	}
	for _, w := range want {
		for got := false; !got; {
			select {
			case ev := <-events:
				if ev.Kind != core.EventSettings {
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
		if !errors.Is(c.err, core.ErrInvalidSetting) || !strings.Contains(c.err.Error(), c.says) {
			t.Errorf("got %v, want an invalid-setting error saying %q", c.err, c.says)
		}
	}
	if rows, _ := e.Log.Rows(context.Background(), core.AuditFilter{Act: "settings"}); len(rows) != 0 {
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
	f.SetShare(f.tab, core.Control)
	if err := f.SetApprovalTimeout(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	ref, _ := f.snapRef("Place order")
	start := time.Now()
	if err := f.click(ref); codeOf(err) != core.CodeTimeout {
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
	if err := e.SetShare(tab, core.Control); err != nil {
		t.Fatal(err)
	}
	agent := e.Connect(core.Agent{Name: "Test agent", PID: 4121, Exe: "/usr/bin/claude"})
	allowed := make(chan struct{})
	events, stop := e.Subscribe(64)
	go func() {
		first := true
		for ev := range events {
			if ev.Kind == core.EventApproval && first {
				first = false
				e.Answer(ev.Request.ID, core.AllowTab)
				close(allowed)
			}
		}
	}()
	defer stop()
	snap, err := agent.Snapshot(ctx, tab)
	if err != nil {
		t.Fatal(err)
	}
	ref := regexp.MustCompile(`"Place order"[^\n]*\[ref=(e\d+)\]`).FindStringSubmatch(snap.Text)[1]
	click := func() error {
		_, err := agent.Act(ctx, core.ActRequest{Tab: tab, Ref: ref, Act: core.Act{Kind: "click"}})
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
	if err := click(); codeOf(err) != core.CodeTimeout {
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
	dir := t.TempDir()
	start := func() *core.Runtime {
		rt, err := core.Start(context.Background(), core.StartOptions{DataDir: dir, Executor: &executor.Fake{}, Logf: t.Logf})
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
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, core.SettingsFile)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("settings file mode %v, want 0600", fi.Mode().Perm())
	}
	n, err := rt.VerifyAudit(context.Background())
	if err != nil || n < 3 {
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
	if s.ApprovalTimeout != 45*time.Second || s.RememberFor != 20*time.Minute || !s.StartAtLogin || s.BridgePort != free {
		t.Fatalf("after a restart: %+v", s)
	}
	if rt.Port() != free {
		t.Fatalf("the bridge listens on %d, want the saved %d", rt.Port(), free)
	}
}

func TestADamagedSettingsFileDoesNotStopReins(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, core.SettingsFile), []byte(`{"approvalTimeoutSeconds": 3600, "startAtLogin": true}`), 0o600)
	rt, err := core.Start(context.Background(), core.StartOptions{DataDir: dir, Executor: &executor.Fake{}, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	if s := rt.Settings(); s.ApprovalTimeout != 30*time.Second || !s.StartAtLogin {
		t.Fatalf("want the default timeout and the valid rest kept: %+v", s)
	}
	var saved map[string]any
	b, _ := os.ReadFile(filepath.Join(dir, core.SettingsFile))
	json.Unmarshal(b, &saved)
	if saved["approvalTimeoutSeconds"] != float64(3600) {
		t.Fatal("loading rewrote the file")
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
