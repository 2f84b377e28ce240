//go:build reinsdemo

// The demo exists only in builds with the reinsdemo tag (make demo): it holds
// the scripted answerer, which allows every act without a person. A release
// build has no way to answer approvals automatically.

package main

import (
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/internal/testrig/chromium"
	"github.com/reins-app/reins/internal/testrig/xvfb"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

//go:embed demo.html
var demoPage string

func init() { extraCommands["demo"] = runDemo }

func runDemo(args []string) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	out := fs.String("out", "demo-out", "folder for the screenshot and the demo's data")
	if err := fs.Parse(args); err != nil {
		return err
	}
	dir, err := filepath.Abs(*out)
	if err != nil {
		return err
	}
	os.RemoveAll(filepath.Join(dir, "data"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	step("Starting a virtual display (Xvfb)")
	x, err := xvfb.Start(ctx, xvfb.Options{Screen: "1280x800x24"})
	if err != nil {
		return err
	}
	defer x.Close()

	step("Starting Reins (the core of `reins serve`) with its audit log in " + filepath.Join(dir, "data"))
	rt, err := core.Start(ctx, core.StartOptions{DataDir: filepath.Join(dir, "data"), Display: x.Display, ApprovalTimeout: 20 * time.Second, Logf: func(string, ...any) {}})
	if err != nil {
		return err
	}
	defer rt.Close()
	stopAnswering := scriptedAnswerer(rt)
	defer stopAnswering()

	site, stopSite, err := serveDemoPage()
	if err != nil {
		return err
	}
	defer stopSite()

	step("Starting Chromium with the Reins extension on " + site)
	browser, err := chromium.Launch(chromium.Options{
		Display: x.Display, Dir: filepath.Join(dir, "chromium"), Reins: exe, DataDir: filepath.Join(dir, "data"),
		URL: site + "/", Width: 1200, Height: 780,
	})
	if err != nil {
		return err
	}
	defer browser.Stop()

	tab, err := waitForTab(ctx, rt, site)
	if err != nil {
		return err
	}
	step("The extension paired; the person shares tab " + tab + " at Control")
	if err := rt.SetShare(tab, vocab.Control); err != nil {
		return err
	}

	// The agent comes in through the agents' door, as an MCP client would;
	// the person allows it through theirs.
	agent := rt.AgentDoor().Admit(vocab.Agent{Name: "Demo agent", Version: "1.0", PID: os.Getpid(), Exe: exe})
	defer agent.Close()
	step("The demo agent connects; the person allows it")
	if err := rt.PersonDoor().AllowAgent(persondoor.AgentKey(agent.Agent())); err != nil {
		return err
	}
	step("The agent takes a snapshot")
	snap, err := agent.Snapshot(ctx, tab)
	if err != nil {
		return err
	}
	fmt.Print(indent(snap.Text))

	add := refOf(snap.Text, "button", "Add to cart")
	step("The agent clicks “Add to cart” by its ref " + add)
	if _, err := agent.Act(ctx, agentdoor.ActRequest{Tab: tab, Ref: add, Act: vocab.Act{Kind: "click"}}); err != nil {
		return err
	}
	search := refOf(snap.Text, "textbox", "Search")
	step("The agent types into “Search” by its ref " + search)
	if _, err := agent.Act(ctx, agentdoor.ActRequest{Tab: tab, Ref: search, Act: vocab.Act{Kind: "type", Text: "reins for horses"}}); err != nil {
		return err
	}
	// The page updates its cart in its own time: read again until it shows
	// the click, for a few seconds at most.
	after, err := agent.Snapshot(ctx, tab)
	for deadline := time.Now().Add(5 * time.Second); err == nil && !strings.Contains(after.Text, "1 item") && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		after, err = agent.Snapshot(ctx, tab)
	}
	if err != nil {
		return err
	}
	step("What the page shows now")
	fmt.Print(indent(after.Text))

	// Right after the approval pictures: the extension's capture queue
	// keeps Chrome's two-a-second limit, so this waits its turn.
	png, err := agent.Screenshot(ctx, tab)
	if err != nil {
		return fmt.Errorf("the screenshot failed: %w", err)
	}
	shot := filepath.Join(dir, "demo-screenshot.png")
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		return err
	}
	step("Screenshot saved: " + shot)

	step("The audit log, oldest first")
	rows, err := rt.AuditRows(ctx, persondoor.AuditFilter{})
	if err != nil {
		return err
	}
	for i := len(rows) - 1; i >= 0; i-- {
		fmt.Println("  " + persondoor.FormatAuditRow(rows[i]))
	}
	if !strings.Contains(after.Text, "1 item") {
		return errors.New("the page did not confirm the click (no “1 item” in the cart)")
	}
	step("Demo finished")
	return nil
}

func step(s string) { fmt.Printf("\n== %s\n", s) }

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ") + "\n"
}

// scriptedAnswerer allows every act, printing each as a person would see it.
func scriptedAnswerer(rt *core.Runtime) func() {
	events, stop := rt.Subscribe(64)
	go func() {
		for ev := range events {
			switch ev.Kind {
			case persondoor.EventApproval:
				r := ev.Request
				fmt.Printf("   approval %s: %s asks to %s on %s — allowed by the demo's scripted answerer\n", r.ID, r.Agent.Label(), r.Sentence(), plain.Text(r.Target.Origin, plain.URLMax))
				rt.Answer(r.ID, vocab.AllowOnce)
			case persondoor.EventActivity:
				a := ev.Activity
				fmt.Printf("   activity: %s — %s\n", a.Act, a.Outcome)
			}
		}
	}()
	return stop
}

func serveDemoPage() (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, demoPage)
	})}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String(), func() { srv.Close() }, nil
}

func waitForTab(ctx context.Context, rt *core.Runtime, site string) (string, error) {
	for {
		for _, t := range rt.Tabs() {
			if t.Connected && strings.HasPrefix(t.URL, site) {
				return t.ID, nil
			}
		}
		select {
		case <-ctx.Done():
			return "", errors.New("the extension did not pair with Reins in time")
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func refOf(text, role, name string) string {
	m := regexp.MustCompile(`- ` + role + ` "` + regexp.QuoteMeta(name) + `"[^\n]*\[ref=(\w+)\]`).FindStringSubmatch(text)
	if m == nil {
		return "(missing)"
	}
	return m[1]
}
