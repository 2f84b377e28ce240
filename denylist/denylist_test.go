package denylist

import (
	"strings"
	"testing"

	"github.com/reins-app/reins/vocab"
)

func TestDenyListMatchesEveryWayAnAppShowsUp(t *testing.T) {
	d := List{
		{Label: "KeePassXC", Names: []string{"KeePassXC"}, Exes: []string{"keepassxc"}},
		{Label: "GNOME Settings", Names: []string{"org.gnome.Settings"}},
		{Label: "Keychain Access", IDs: []string{"com.apple.keychainaccess"}},
	}
	for _, tc := range []struct {
		app  vocab.App
		want string
	}{
		{vocab.App{Name: "KeePassXC"}, "KeePassXC"},
		{vocab.App{Name: "keepassxc"}, "KeePassXC"},
		{vocab.App{Name: "Vault", Class: "keepassxc.Vault"}, "KeePassXC"},
		{vocab.App{Name: "Vault", Class: "vault.KEEPASSXC"}, "KeePassXC"},
		{vocab.App{Name: "x", Exe: "/usr/bin/keepassxc"}, "KeePassXC"},
		{vocab.App{Name: "x", Exe: "/usr/bin/keepassxc (deleted)"}, "KeePassXC"},
		{vocab.App{Name: "x", Class: "gnome-control-center.org.gnome.Settings"}, "GNOME Settings"},
		{vocab.App{Name: "x", Class: "org.gnome.Settings.Gnome-control-center"}, "GNOME Settings"},
		{vocab.App{Name: "Schlüsselbund", ID: "com.apple.KeychainAccess"}, "Keychain Access"},
		{vocab.App{Name: "Firefox", Class: "Navigator.firefox", Exe: "/usr/lib/firefox/firefox"}, ""},
		{vocab.App{Name: "KeePassXC-Browser helper", Class: "notkeepassxc.Helper"}, ""},
		{vocab.App{Name: "x", Exe: "/opt/keepassxc-tools/helper"}, ""},
		{vocab.App{}, ""},
		{vocab.App{Name: "desktop"}, ""},
		{unknownApp, ""},
	} {
		rule, ok := d.Match(tc.app)
		if rule != tc.want || ok != (tc.want != "") {
			t.Errorf("Match(%+v) = %q, %v; want %q", tc.app, rule, ok, tc.want)
		}
	}
}

func TestDefaultDenyLists(t *testing.T) {
	linux := []vocab.App{
		{Name: "KeePassXC", Class: "keepassxc.KeePassXC", Exe: "/usr/bin/keepassxc"},
		{Name: "1Password", Class: "1password.1Password", Exe: "/opt/1Password/1password"},
		{Name: "Bitwarden", Class: "bitwarden.Bitwarden", Exe: "/opt/Bitwarden/bitwarden"},
		{Name: "Seahorse", Class: "seahorse.Seahorse", Exe: "/usr/bin/seahorse"},
		{Name: "Gcr-prompter", Class: "gcr-prompter.Gcr-prompter"},
		{Name: "kwalletmanager5", Class: "kwalletmanager5.kwalletmanager5"},
		{Name: "Gnome-control-center", Class: "gnome-control-center.Gnome-control-center"},
		{Name: "systemsettings", Class: "systemsettings.systemsettings"},
		{Name: "Xfce4-settings-manager", Class: "xfce4-settings-manager.Xfce4-settings-manager"},
		{Name: "reins", Exe: "/home/me/go/bin/reins"},
	}
	for _, a := range linux {
		if _, ok := linuxDenyList().Match(a); !ok {
			t.Errorf("the Linux deny list lets %+v through", a)
		}
	}
	mac := []vocab.App{
		{Name: "1Password", ID: "com.1password.1password"},
		{Name: "Keychain Access", ID: "com.apple.keychainaccess"},
		{Name: "System Settings", ID: "com.apple.systempreferences"},
		{Name: "Systemeinstellungen", ID: "com.apple.systempreferences"},
		{Name: "System Preferences"},
		{Name: "Bitwarden", ID: "com.bitwarden.desktop"},
		{Name: "KeePassXC", ID: "org.keepassxc.keepassxc"},
		{Name: "Dashlane"},
		{Name: "LastPass"},
		{Name: "Reins", ID: "app.reins.Reins", Exe: "/Applications/Reins.app/Contents/MacOS/reins"},
	}
	for _, a := range mac {
		if _, ok := macDenyList().Match(a); !ok {
			t.Errorf("the macOS deny list lets %+v through", a)
		}
	}
	ordinary := []vocab.App{
		{Name: "Chromium", Class: "chromium.Chromium", Exe: "/usr/lib/chromium/chromium"},
		{Name: "Google Chrome", ID: "com.google.Chrome"},
		{Name: "Terminal", ID: "com.apple.Terminal"},
		{Name: "witness", Class: "witness.Witness", Exe: "/tmp/executor.test"},
	}
	for _, a := range ordinary {
		if rule, ok := Default().Match(a); ok {
			t.Errorf("the default deny list refuses %+v (rule %s)", a, rule)
		}
	}
}

func TestNamedRuleMatchesTheNameHoweverTheDesktopReportsIt(t *testing.T) {
	for _, tc := range []struct {
		name string
		app  vocab.App
		want bool
	}{
		{"Signal", vocab.App{Name: "Signal"}, true},
		{"  signal ", vocab.App{Name: "SIGNAL"}, true},
		{"signal", vocab.App{Name: "x", Class: "signal.Signal"}, true},
		{"Signal", vocab.App{Name: "x", Class: "signal-desktop.Signal"}, true},
		{"signal-desktop", vocab.App{Name: "x", Class: "signal-desktop.Signal"}, true},
		{"signal-desktop", vocab.App{Name: "x", Exe: "/opt/Signal/signal-desktop"}, true},
		{"/opt/Signal/signal-desktop", vocab.App{Name: "x", Exe: "/usr/lib/signal-desktop"}, true},
		{"org.signal.Signal", vocab.App{Name: "Signal", ID: "ORG.SIGNAL.SIGNAL"}, true},
		{"org.whispersystems.signal-desktop", vocab.App{Name: "x", ID: "org.whispersystems.signal-desktop"}, true},
		// Whole names only: a name is never a prefix or a part of another.
		{"Signal", vocab.App{Name: "Signal Beta", Class: "signalbeta.Signal Beta", Exe: "/opt/signal-beta", ID: "org.signal.beta"}, false},
		{"Sig", vocab.App{Name: "Signal", Class: "signal.Signal", Exe: "/opt/Signal/signal", ID: "org.signal.Signal"}, false},
		{"Signal", vocab.App{}, false},
		{"Signal", unknownApp, false},
	} {
		r := Named(tc.name)
		if r.Label != strings.TrimSpace(tc.name) {
			t.Errorf("Named(%q).Label = %q", tc.name, r.Label)
		}
		label, ok := List{r}.Match(tc.app)
		if ok != tc.want || (ok && label != r.Label) {
			t.Errorf("Named(%q) matching %+v = %q, %v; want %v", tc.name, tc.app, label, ok, tc.want)
		}
	}
	// Added after the defaults, a person's rule refuses its app and keeps
	// refusing what the defaults refuse.
	list := append(Default(), Named("Signal"))
	if rule, ok := list.Match(vocab.App{Name: "Signal", Class: "signal.Signal"}); !ok || rule != "Signal" {
		t.Errorf("the extended list gives %q, %v for Signal", rule, ok)
	}
	if _, ok := list.Match(vocab.App{Name: "reins", Exe: "/usr/bin/reins"}); !ok {
		t.Error("the extended list lets Reins through")
	}
}

var unknownApp = vocab.App{Name: "unknown"}

// In other languages macOS gives other localized names; the executable's
// file name and the bundle identifier stay the same.
func TestMacDenyListMatchesByExecutable(t *testing.T) {
	for _, a := range []vocab.App{
		{Name: "Schlüsselbundverwaltung", Exe: "/System/Applications/Utilities/Keychain Access.app/Contents/MacOS/Keychain Access"},
		{Name: "Passwörter", Exe: "/System/Applications/Passwords.app/Contents/MacOS/Passwords"},
		{Name: "Passwords"},
		{Name: "Systemeinstellungen", Exe: "/System/Applications/System Settings.app/Contents/MacOS/System Settings"},
		{Name: "x", Exe: "/System/Library/Frameworks/Security.framework/Versions/A/MachServices/SecurityAgent.bundle/Contents/MacOS/SecurityAgent"},
		{Name: "x", Exe: "/Applications/1Password.app/Contents/MacOS/1Password"},
		{Name: "x", Exe: "/Applications/Bitwarden.app/Contents/MacOS/Bitwarden"},
		{Name: "x", Exe: "/Applications/KeePassXC.app/Contents/MacOS/KeePassXC"},
		{Name: "x", Exe: "/Applications/Dashlane.app/Contents/MacOS/Dashlane"},
		{Name: "x", Exe: "/Applications/LastPass.app/Contents/MacOS/LastPass"},
		{Name: "x", Exe: "/Applications/Reins.app/Contents/MacOS/reins"},
		{Name: "Mitteilungszentrale", Exe: "/System/Library/CoreServices/NotificationCenter.app/Contents/MacOS/NotificationCenter"},
		{Name: "x", Exe: "/System/Library/CoreServices/UserNotificationCenter.app/Contents/MacOS/UserNotificationCenter"},
		{Name: "x", Exe: "/System/Library/CoreServices/CoreServicesUIAgent.app/Contents/MacOS/CoreServicesUIAgent"},
		{Name: "x", Exe: "/System/Library/CoreServices/loginwindow.app/Contents/MacOS/loginwindow"},
		{Name: "x", ID: "com.apple.notificationcenterui"},
	} {
		if _, ok := macDenyList().Match(a); !ok {
			t.Errorf("the macOS deny list lets %+v through", a)
		}
	}
	for _, r := range macDenyList() {
		if len(r.Names) == 0 || len(r.Exes) == 0 {
			t.Errorf("the macOS rule %q lacks a display name or an executable name", r.Label)
		}
	}
	for _, a := range []vocab.App{
		{Name: "Google Chrome", Exe: "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome", ID: "com.google.Chrome"},
		{Name: "Finder", Exe: "/System/Library/CoreServices/Finder.app/Contents/MacOS/Finder", ID: "com.apple.finder"},
		{Name: "Dock", Exe: "/System/Library/CoreServices/Dock.app/Contents/MacOS/Dock", ID: "com.apple.dock"},
	} {
		if rule, ok := macDenyList().Match(a); ok {
			t.Errorf("the macOS deny list refuses %+v (rule %s)", a, rule)
		}
	}
}

// Browsers are known by every way they show up: name, window class,
// executable, and on macOS bundle identifier; other programs are not.
func TestBrowsersAreKnownEveryWayTheyShowUp(t *testing.T) {
	for _, tc := range []struct {
		app  vocab.App
		want bool
	}{
		{vocab.App{Name: "Chromium", Class: "chromium.Chromium", Exe: "/usr/lib/chromium/chromium"}, true},
		{vocab.App{Name: "x", Exe: "/opt/google/chrome/chrome"}, true},
		{vocab.App{Name: "x", Class: "Navigator.firefox-esr"}, true},
		{vocab.App{Name: "x", Class: "com.vivaldi.Vivaldi.Vivaldi-stable"}, true},
		{vocab.App{Name: "Chrome", ID: "com.google.Chrome.canary"}, true},
		{vocab.App{Name: "Edge", ID: "com.microsoft.edgemac"}, true},
		{vocab.App{Name: "Arc", ID: "company.thebrowser.Browser"}, true},
		{vocab.App{Name: "Safari", ID: "com.apple.Safari"}, true},
		{vocab.App{Name: "gedit", Exe: "/usr/bin/gedit"}, false},
		{vocab.App{Name: "Slack", Exe: "/usr/lib/slack/slack", ID: "com.tinyspeck.slackmacgap"}, false},
		{vocab.App{Name: "Terminal", ID: "com.apple.Terminal"}, false},
		{vocab.App{}, false},
	} {
		if _, ok := Browsers.Match(tc.app); ok != tc.want {
			t.Errorf("Browsers.Match(%+v) = %v, want %v", tc.app, ok, tc.want)
		}
	}
}
