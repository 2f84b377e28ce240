package core

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/bridge"
	"github.com/reins-app/reins/deskread"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/executor/hand"
	"github.com/reins-app/reins/extension"
	"github.com/reins-app/reins/internal/folderlock"
	"github.com/reins-app/reins/internal/paths"
	"github.com/reins-app/reins/internal/trayhost"
	"github.com/reins-app/reins/policy"
	"github.com/reins-app/reins/settings"
)

// WriteExtension writes the Chrome extension folder into dir.
func WriteExtension(dir string) (string, error) { return extension.WriteTo(dir) }

// NativeHostDirs lists the per-user folders where Chrome-family browsers look
// for native messaging host manifests: every channel of Chrome, Chromium,
// Brave, Edge, Vivaldi and, on macOS, Arc. Each is the browser's user data
// folder plus NativeMessagingHosts; a folder is listed whether or not that
// browser is installed, so one installed later finds the helper too.
func NativeHostDirs() ([]string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, err
	}
	return nativeHostDirs(runtime.GOOS, home, os.Getenv("XDG_CONFIG_HOME")), nil
}

// nativeHostDirs is [NativeHostDirs] for goos, home and $XDG_CONFIG_HOME.
// The user data folders are those of Chromium's docs/user_data_dir.md
// (Chrome's channels, Chromium; on Linux under $XDG_CONFIG_HOME when it is
// an absolute path, as chrome_paths_linux.cc reads it); for Brave, Edge,
// Vivaldi and Arc, the folders other native messaging hosts' installers
// write to (Arc's on macOS is "Arc/User Data").
func nativeHostDirs(goos, home, xdgConfig string) []string {
	var base string
	var data []string
	if goos == "darwin" {
		base = filepath.Join(home, "Library", "Application Support")
		data = []string{
			"Google/Chrome", "Google/Chrome Beta", "Google/Chrome Dev", "Google/Chrome Canary",
			"Chromium", "BraveSoftware/Brave-Browser", "Microsoft Edge", "Vivaldi", "Arc/User Data",
		}
	} else {
		base = filepath.Join(home, ".config")
		if filepath.IsAbs(xdgConfig) {
			base = xdgConfig
		}
		data = []string{
			"google-chrome", "google-chrome-beta", "google-chrome-unstable", "google-chrome-canary",
			"chromium", "BraveSoftware/Brave-Browser", "microsoft-edge", "vivaldi",
		}
	}
	dirs := make([]string, len(data))
	for i, d := range data {
		dirs[i] = filepath.Join(base, filepath.FromSlash(d), "NativeMessagingHosts")
	}
	return dirs
}

// Check is one line of `reins doctor`.
type Check struct {
	What string
	OK   bool
	Fix  string
	// Optional says Reins works without it, differently: Fix then says
	// how, and how to have it.
	Optional bool
}

// Doctor says what Reins needs and whether it is there.
func Doctor() []Check {
	var out []Check
	dir, err := paths.DataDir()
	out = append(out, Check{What: "data folder " + dir, OK: err == nil, Fix: "set REINS_DATA_DIR"})
	if err == nil {
		out = append(out, runningCheck(folderlock.Holding(dir)))
		saved, _ := settings.File{Path: filepath.Join(dir, settings.FileName)}.Load()
		pol := policy.System().Read()
		out = append(out, policyCheck(pol))
		out = append(out, anchorChecks(context.Background(), ManagedAnchor(AnchorOptions(saved, ""), pol.Effective()))...)
	}
	hosts, _ := NativeHostDirs()
	found := false
	for _, h := range hosts {
		if _, err := os.Stat(filepath.Join(h, extension.NativeHost+".json")); err == nil {
			found = true
		}
	}
	out = append(out, Check{What: "pairing helper for Chrome", OK: found, Fix: "run: reins extension ~/reins-extension"})
	ex, err := executor.New(executor.Options{})
	if err == nil {
		ex.Close()
	}
	fix := ""
	if err != nil {
		fix = err.Error()
	}
	out = append(out, Check{What: "input to the display", OK: err == nil, Fix: fix})
	if runtime.GOOS == "darwin" {
		out = append(out, accessibilityCheck(executor.AccessibilityStatus()))
		out = append(out, screenRecordingCheck(deskread.ScreenRecordingStatus()))
		out = append(out, inputMonitoringCheck(hand.InputMonitoringStatus()))
	}
	out = append(out, trayCheck(trayhost.Present()))
	return out
}

// anchorChecks are doctor's lines about the audit log's copies outside
// its database: the system log, each receiver the settings name, and a
// line of its own when none of them takes rows: the log is not anchored.
func anchorChecks(ctx context.Context, opts audit.AnchorOptions) []Check {
	var out []Check
	anchored := false
	for _, cp := range audit.CheckCopies(ctx, opts) {
		anchored = anchored || cp.Err == nil
		if cp.Where == "system log" {
			where := opts.SystemLog
			if where == "" {
				where = "the system log"
			}
			c := Check{What: "audit anchor: " + where + " keeps each row's hash", OK: cp.Err == nil, Optional: true}
			if cp.Err != nil {
				c.Fix = cp.Err.Error()
			}
			out = append(out, c)
			continue
		}
		what := "audit anchor: remote receiver " + cp.Where + " gets each row's seq and hash (plain TCP)"
		if cp.Whole {
			what = "audit anchor: remote receiver " + cp.Where + " gets whole rows"
		}
		c := Check{What: what, OK: cp.Err == nil, Optional: !cp.Required}
		switch {
		case cp.Err != nil && cp.Required:
			c.Fix = cp.Err.Error() + "; it is marked required, so Reins refuses every act (audit_anchor_unreachable) until it answers"
		case cp.Err != nil:
			c.Fix = cp.Err.Error() + "; rows wait for it in the audit log"
		}
		out = append(out, c)
	}
	if !anchored {
		c := Check{What: "audit anchor: the log is not anchored", Optional: !opts.RequireAnchor,
			Fix: "no copy of the audit log leaves this computer, so rows cut from its end while Reins is stopped could not be found; start the system's log service, or name a receiver in settings.json (auditAnchor)"}
		if opts.RequireAnchor {
			c.Fix += "; an anchor is required (by the settings or the organisation's policy), so Reins refuses every act (audit_anchor_unreachable) until one takes rows"
		}
		out = append(out, c)
	}
	return out
}

// accessibilityCheck is doctor's line about macOS's Accessibility
// permission, from what executor.AccessibilityStatus said.
func accessibilityCheck(trusted, bare bool, err error) Check {
	c := Check{What: "Accessibility permission (System Settings › Privacy & Security › Accessibility)", OK: trusted && err == nil}
	switch {
	case err != nil:
		c.Fix = "cannot tell: " + err.Error()
	case !trusted && bare:
		c.Fix = "not given; this reins runs outside Reins.app, so macOS would charge the permission to the terminal that started it: start Reins.app instead and allow Reins when macOS asks"
	case !trusted:
		c.Fix = "not given; open Reins, press Allow in Getting started, and turn Reins on in that list"
	case bare:
		c.OK, c.Fix = false, "given, but to the program that started this reins (a terminal, most likely), not to Reins.app: an agent running in that terminal could post input too; remove it there and start Reins.app"
	}
	return c
}

// screenRecordingCheck is doctor's line about macOS's Screen Recording
// permission, from what deskread.ScreenRecordingStatus said. Reins works
// without it, but then refuses agents' pictures of the desktop rather than
// hand over one that shows no other application's windows.
func screenRecordingCheck(allowed bool, err error) Check {
	c := Check{What: "Screen Recording permission (System Settings › Privacy & Security › Screen & System Audio Recording)", OK: allowed && err == nil, Optional: true}
	switch {
	case err != nil:
		c.Fix = "cannot tell: " + err.Error() + "; pictures of the desktop (desktop_screenshot) are refused"
	case !allowed:
		c.Fix = "not given, so pictures of the desktop (desktop_screenshot) are refused; to allow them, turn Reins on in that list, then quit and reopen Reins"
	}
	return c
}

// inputMonitoringCheck is doctor's line about macOS's Input Monitoring
// permission, from what hand.InputMonitoringStatus said: the watch on
// the person's own keyboard and mouse, which stops an act when they reach
// for them, needs it.
func inputMonitoringCheck(allowed bool, err error) Check {
	c := Check{What: "Input Monitoring permission (System Settings › Privacy & Security › Input Monitoring)", OK: allowed && err == nil, Optional: true}
	switch {
	case err != nil:
		c.Fix = "cannot tell: " + err.Error() + "; Reins cannot tell your own keyboard and mouse from its input"
	case !allowed:
		c.Fix = "not given, so Reins cannot tell your own keyboard and mouse from its input, nor stop an act when you reach for them; to allow it, turn Reins on in that list, then quit and reopen Reins"
	}
	return c
}

// InputMonitoringAllowed reports whether macOS lets Reins watch the
// keyboard and mouse (true on other systems), without asking.
func InputMonitoringAllowed() bool {
	allowed, err := hand.InputMonitoringStatus()
	return allowed && err == nil
}

// RequestInputMonitoring has macOS ask the person, once a process, to let
// Reins watch the keyboard and mouse, and reports whether it may (true on
// other systems).
func RequestInputMonitoring() bool {
	allowed, err := hand.RequestInputMonitoring()
	return allowed && err == nil
}

// AccessibilityAllowed reports whether macOS lets Reins post input (true on
// other systems), without asking.
func AccessibilityAllowed() bool {
	trusted, _, err := executor.AccessibilityStatus()
	return trusted && err == nil
}

// RequestAccessibility has macOS ask the person, once a process, to let
// Reins post input, and reports whether it may (true on other systems).
func RequestAccessibility() bool {
	trusted, err := executor.RequestAccessibility()
	return trusted && err == nil
}

// runningCheck is doctor's line about the Reins that holds the data
// folder, from what folderlock.Holding said.
func runningCheck(h folderlock.Holder, held bool, err error) Check {
	switch {
	case err != nil:
		return Check{What: "Reins for this data folder", Optional: true, Fix: "cannot tell whether one is running (" + err.Error() + ")"}
	case held:
		return Check{What: "Reins is running for this data folder (" + h.String() + ")", OK: true}
	}
	return Check{What: "Reins for this data folder", Optional: true, Fix: "none is running; start it with reins (or reins serve on a machine without a desktop)"}
}

// trayCheck is doctor's line about the tray host, from what
// trayhost.Present said.
func trayCheck(has bool, err error) Check {
	if runtime.GOOS == "darwin" {
		return Check{What: "tray host: the menu bar", OK: true}
	}
	c := Check{What: "tray host (a StatusNotifierItem watcher on the session bus)", OK: has && err == nil, Optional: true}
	switch {
	case errors.Is(err, trayhost.ErrNoSessionBus):
		c.Fix = "no D-Bus session bus here, so no tray: Reins shows its menu in a small window instead; for the icon in the panel, start Reins from the desktop session"
	case err != nil:
		c.Fix = "the session bus did not say (" + err.Error() + "); without a tray host Reins shows its menu in a small window instead"
	case !has:
		c.Fix = "none on this desktop, so Reins shows its menu in a small window instead; for the icon in the panel, add a system tray (status notifier) to the panel, or on GNOME the AppIndicator extension"
	}
	return c
}

// InstallNativeHosts installs the pairing helper, exe, for every Chrome-
// family browser whose own folder exists for this user (NativeHostDirs'
// parents), where no manifest of Reins' is yet, or where the one there names
// a program that is gone. It leaves a working manifest of another Reins
// alone (`reins extension` replaces it on purpose), and creates no folder
// for a browser that is not there. It returns the manifests it wrote.
func InstallNativeHosts(exe string) ([]string, error) {
	dirs, err := NativeHostDirs()
	if err != nil {
		return nil, err
	}
	var wrote []string
	var errs []error
	for _, dir := range dirs {
		if _, err := os.Stat(filepath.Dir(dir)); err != nil {
			continue // the browser is not installed for this user
		}
		if hostWorks(filepath.Join(dir, extension.NativeHost+".json")) {
			continue
		}
		p, err := InstallNativeHost(dir, exe)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		wrote = append(wrote, p)
	}
	return wrote, errors.Join(errs...)
}

// hostWorks reports whether the manifest at p names a program that exists.
func hostWorks(p string) bool {
	b, err := os.ReadFile(p)
	if err != nil {
		return false
	}
	var m bridge.HostManifest
	if json.Unmarshal(b, &m) != nil || m.Path == "" {
		return false
	}
	_, err = os.Stat(m.Path)
	return err == nil
}
