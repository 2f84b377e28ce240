package core

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/extension"
	"github.com/reins-app/reins/internal/folderlock"
	"github.com/reins-app/reins/internal/paths"
	"github.com/reins-app/reins/internal/trayhost"
	"github.com/reins-app/reins/settings"
)

// WriteExtension writes the Chrome extension folder into dir.
func WriteExtension(dir string) (string, error) { return extension.WriteTo(dir) }

// NativeHostDirs lists the per-user folders where Chrome-family browsers look
// for native messaging host manifests.
func NativeHostDirs() ([]string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, err
	}
	if runtime.GOOS == "darwin" {
		base := filepath.Join(home, "Library", "Application Support")
		return []string{
			filepath.Join(base, "Google", "Chrome", "NativeMessagingHosts"),
			filepath.Join(base, "Chromium", "NativeMessagingHosts"),
		}, nil
	}
	return []string{
		filepath.Join(home, ".config", "google-chrome", "NativeMessagingHosts"),
		filepath.Join(home, ".config", "chromium", "NativeMessagingHosts"),
	}, nil
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
		out = append(out, anchorChecks(context.Background(), audit.AnchorOptions{Remote: saved.AuditRemote, RemoteRequired: saved.AuditRemoteRequired})...)
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
	out = append(out, trayCheck(trayhost.Present()))
	return out
}

// anchorChecks are doctor's lines about the copies of each audit row's
// hash outside the database: the system log, and the remote receiver when
// the settings name one.
func anchorChecks(ctx context.Context, opts audit.AnchorOptions) []Check {
	local, remote := audit.CheckAnchor(ctx, opts)
	var out []Check
	if opts.SystemLog != "off" {
		where := opts.SystemLog
		if where == "" {
			where = "the system log"
		}
		c := Check{What: "audit anchor: " + where + " keeps each row's hash", OK: local == nil, Optional: true}
		if local != nil {
			c.Fix = local.Error()
		}
		out = append(out, c)
	}
	if opts.Remote == "" {
		return out
	}
	c := Check{What: "audit anchor: remote receiver " + opts.Remote, OK: remote == nil, Optional: !opts.RemoteRequired}
	switch {
	case remote != nil && opts.RemoteRequired:
		c.Fix = remote.Error() + "; it is marked required, so Reins refuses every act (audit_anchor_unreachable) until it answers"
	case remote != nil:
		c.Fix = remote.Error() + "; rows' hashes wait for it in Reins while it runs"
	}
	return append(out, c)
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
