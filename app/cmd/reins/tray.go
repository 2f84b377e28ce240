//go:build cgo

package main

import (
	"context"
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"

	"github.com/reins-app/reins/app/macwin"
	"github.com/reins-app/reins/app/ui"
	"github.com/reins-app/reins/core"
)

// runTray is Reins for the person: the tray menu, approval popups and the
// windows behind them, on the real core.
func runTray(args []string) error {
	fs := flag.NewFlagSet("reins", flag.ContinueOnError)
	port := fs.Int("port", 0, "the bridge's port on 127.0.0.1 (0 takes the one in preferences, else picks a free one)")
	mcpPort := fs.Int("mcp-port", 0, "the agents' HTTP door on 127.0.0.1 (0 picks a free one, -1 keeps it closed)")
	hooks := testOnlyFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logf := func(f string, args ...any) { fmt.Fprintf(os.Stderr, "reins: "+f+"\n", args...) }
	front := &selfTestFront{}
	rt, stopReins, err := startReins(ctx, *port, *mcpPort, logf, front, hooks.coreOptions)
	if err != nil {
		return err
	}
	defer stopReins()

	exe, _ := os.Executable()
	facts := ui.Settings{
		BridgePort: rt.Port(), DataDir: rt.DataDir, Executable: exe, ExtensionDir: filepath.Join(rt.DataDir, "extension"),
	}
	// The pause chord is taken by startReins; a failure is logged there.
	facts.GlobalKeys = runtime.GOOS == "linux" || runtime.GOOS == "darwin"
	canTray, host := trayHost(ctx, logf)
	newApp := func() fyne.App {
		a := app.NewWithID("app.reins.Reins")
		a.SetIcon(ui.TrayIcon(ui.IconConnected))
		return a
	}
	// The tray's icon and menu go to fyne before it runs: it starts the
	// tray only if a menu is set by then.
	a, u := openUI(glfwHints, newApp, func(a fyne.App) ui.Options {
		return ui.Options{
			App: a, Engine: rt.PersonDoor(), Settings: facts, Tray: canTray, TrayHost: host,
			AfterTrayIcon: afterTrayIcon,
			FirstRun: ui.FirstRunOptions{
				RevealExtension:        func() (string, error) { return revealExtension(facts.ExtensionDir) },
				OpenURL:                openURL,
				Accessibility:          core.AccessibilityAllowed,
				RequestAccessibility:   core.RequestAccessibility,
				InputMonitoring:        core.InputMonitoringAllowed,
				RequestInputMonitoring: core.RequestInputMonitoring,
			},
			Logf: logf,
		}
	})
	front.setTray(u.SelfTestTray)
	a.Lifecycle().SetOnStarted(func() {
		// Before any window: Reins lives in the menu bar, not the Dock.
		if err := macwin.Accessory(); err != nil {
			logf("cannot hide the Dock icon: %v", err)
		}
		// Before any window that allows: its press must be told apart.
		if err := macwin.WatchPresses(); err != nil {
			logf("cannot tell your clicks on Reins' windows from a program's, so they allow nothing: %v", err)
		}
		u.Show()
		trayStarted()
		hooks.start(ctx, rt, u)
		if u.StandInShown() {
			fmt.Fprintln(os.Stderr, "reins: no tray host on this desktop; a small Reins window stands in for the menu")
		}
		fmt.Fprintf(os.Stderr, "Reins is running. The extension pairs on 127.0.0.1:%d; data in %s.\n", rt.Port(), rt.DataDir)
	})
	go func() {
		<-ctx.Done()
		fyne.Do(a.Quit)
	}()
	a.Run()
	u.Stop()
	return stopReins()
}

// openUI makes fyne's app, then the person's UI on it, with GLFW's init
// hints set first (setHints; nil where none is needed). GLFW reads them
// once, in glfwInit, and a hint set later is ignored. fyne 2.7.1 calls
// glfwInit from its driver's init, at the first window made (ui.New makes
// the popup's when a question already waits) or at Run, whichever comes
// first; app.NewWithID only makes the driver.
func openUI(setHints func(), newApp func() fyne.App, options func(fyne.App) ui.Options) (fyne.App, *ui.UI) {
	if setHints != nil {
		setHints()
	}
	a := newApp()
	return a, ui.New(options(a))
}

// revealExtension writes the extension and the pairing helper as
// `reins extension` does, and opens the folder.
func revealExtension(dir string) (string, error) {
	var discard nopWriter
	if err := runExtension([]string{dir}, discard); err != nil {
		return "", err
	}
	return dir, openURL((&url.URL{Scheme: "file", Path: dir}).String())
}

type nopWriter struct{}

func (nopWriter) Write(p []byte) (int, error) { return len(p), nil }

// openURL opens a URL with the desktop's opener; chrome:// pages go to
// Chrome itself, which is the only program that can open them.
func openURL(u string) error {
	var cmd *exec.Cmd
	switch {
	case runtime.GOOS == "darwin" && len(u) > 9 && u[:9] == "chrome://":
		cmd = exec.Command("open", "-a", "Google Chrome", u)
	case runtime.GOOS == "darwin":
		cmd = exec.Command("open", u)
	case len(u) > 9 && u[:9] == "chrome://":
		cmd = exec.Command(firstOnPath("google-chrome", "chromium", "chromium-browser"), u)
	default:
		cmd = exec.Command("xdg-open", u)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait()
	return nil
}

func firstOnPath(names ...string) string {
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return names[0]
}
