// Package denylist knows desktop applications by every name they show on
// screen. It holds the deny list, the applications no act may touch (those
// built in, and each one the person or the organisation adds by name), and
// the web browsers and terminals, which a desktop act is kept out of or
// warned about, all matched one way.
//
// It is a leaf, apart from the executor that checks the list before every
// act, so that the settings and the person's windows can read and extend
// it without linking the code that sends input.
package denylist

import (
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/reins-app/reins/vocab"
)

// Rule names one application by every way it shows up on screen. It matches
// a [vocab.App] when any of its names does, compared case-insensitively.
type Rule struct {
	Label string   // how the rule is shown to people and agents, e.g. "1Password"
	Names []string // App.Name, or either half of the Linux App.Class "instance.Class"
	Exes  []string // the base name of App.Exe
	IDs   []string // the macOS bundle identifier, App.ID
	// PIDs are processes whose windows the rule covers, whatever they are
	// called: Reins' own (the executor's OwnRule).
	PIDs []int
}

// Browsers are the programs whose windows show web pages, matched as the
// deny list matches applications. A desktop act never lands in one: a tab
// is acted on with the browser tools, under that tab's share and checks, so
// the desktop at Control does not reach tabs the person did not share.
var Browsers = List{{Label: "web browser", Names: browserNames, Exes: browserNames, IDs: browserIDs}}

// browserNames are both the names and window classes and the executables
// of browsers.
var browserNames = []string{
	"chromium", "chromium-browser", "chrome", "google-chrome", "google-chrome-stable", "google-chrome-beta",
	"google-chrome-unstable", "brave", "brave-browser", "msedge", "microsoft-edge", "vivaldi", "vivaldi-bin",
	"vivaldi-stable", "thorium-browser", "cromite", "ungoogled-chromium", "opera-beta", "opera-developer",
	"firefox", "firefox-esr", "firefox-bin", "epiphany", "opera", "arc", "librewolf", "waterfox", "floorp",
	"mullvad-browser", "tor-browser", "qutebrowser", "falkon", "yandex_browser",
	"Google Chrome", "Google Chrome Beta", "Google Chrome Dev", "Google Chrome Canary", "Brave Browser",
	"Microsoft Edge", "Mozilla Firefox", "Navigator", "Safari", "Safari Technology Preview", "Vivaldi", "Opera",
	"org.mozilla.firefox", "org.chromium.Chromium", "com.google.Chrome", "com.brave.Browser", "org.qutebrowser.qutebrowser",
	"com.microsoft.Edge", "com.vivaldi.Vivaldi", "com.opera.Opera", "io.github.ungoogled_software.ungoogled_chromium",
	"org.gnome.Epiphany", "io.gitlab.librewolf-community",
}

// browserIDs are the macOS bundle identifiers of browsers.
var browserIDs = []string{
	"com.google.Chrome", "com.google.Chrome.beta", "com.google.Chrome.dev", "com.google.Chrome.canary",
	"org.chromium.Chromium", "com.brave.Browser", "com.brave.Browser.beta", "com.brave.Browser.nightly",
	"com.microsoft.edgemac", "com.microsoft.edgemac.Beta", "com.microsoft.edgemac.Dev", "com.vivaldi.Vivaldi",
	"com.operasoftware.Opera", "company.thebrowser.Browser", "com.apple.Safari", "com.apple.SafariTechnologyPreview",
	"org.mozilla.firefox", "org.mozilla.firefoxdeveloperedition", "org.mozilla.nightly", "org.torproject.torbrowser",
}

// Terminals are the programs whose windows run a shell: a line break typed
// there runs the command on its line, so such typing is asked with a
// warning. Matched as the deny list matches applications.
var Terminals = List{{Label: "terminal", Names: terminalNames, Exes: terminalNames, IDs: terminalIDs}}

// terminalNames are the names, window classes and executables of terminal
// emulators.
var terminalNames = []string{
	"xterm", "uxterm", "rxvt", "urxvt", "rxvt-unicode", "st", "st-256color", "gnome-terminal", "gnome-terminal-server",
	"Gnome-terminal", "org.gnome.Terminal", "org.gnome.Console", "kgx", "konsole", "org.kde.konsole", "xfce4-terminal",
	"Xfce4-terminal", "mate-terminal", "lxterminal", "qterminal", "terminator", "tilix", "com.gexperts.Tilix", "guake",
	"tilda", "yakuake", "kitty", "alacritty", "Alacritty", "foot", "footclient", "wezterm", "wezterm-gui",
	"org.wezfurlong.wezterm", "ghostty", "com.mitchellh.ghostty", "warp", "warp-terminal", "dev.warp.Warp-Stable",
	"hyper", "Hyper", "tabby", "Tabby", "terminology", "cool-retro-term", "sakura", "eterm", "Eterm", "aterm", "blackbox",
	"com.raggesilver.BlackBox", "contour", "rio", "wave", "waveterm", "extraterm", "cosmic-term", "ptyxis",
	"org.gnome.Ptyxis", "deepin-terminal", "Terminal", "iTerm2", "iTerm", "Warp", "Ghostty", "WezTerm", "kitty.app",
}

// terminalIDs are the macOS bundle identifiers of terminal emulators.
var terminalIDs = []string{
	"com.apple.Terminal", "com.googlecode.iterm2", "dev.warp.Warp-Stable", "com.mitchellh.ghostty", "net.kovidgoyal.kitty",
	"org.alacritty", "io.alacritty", "com.github.wez.wezterm", "co.zeit.hyper", "org.tabby", "dev.commandline.waveterm",
}

// List is a set of rules an application matches when it matches one of
// them. As the deny list, it is the applications no act may touch: an act
// is refused when the frontmost application or the one under the point
// matches.
type List []Rule

// Match reports whether a matches a rule, and which one, by its label.
func (l List) Match(a vocab.App) (rule string, ok bool) {
	r, ok := l.RuleFor(a)
	return r.Label, ok
}

// RuleFor is the first rule a matches, and whether there is one.
func (l List) RuleFor(a vocab.App) (Rule, bool) {
	exe := ExeName(a.Exe)
	for _, r := range l {
		if r.matches(a, exe) {
			return r, true
		}
	}
	return Rule{}, false
}

func (r Rule) matches(a vocab.App, exe string) bool {
	if a.PID > 1 && slices.Contains(r.PIDs, a.PID) {
		return true
	}
	for _, n := range r.Names {
		if n == "" {
			continue
		}
		if strings.EqualFold(n, a.Name) || classHas(a.Class, n) {
			return true
		}
	}
	for _, e := range r.Exes {
		if e != "" && strings.EqualFold(e, exe) {
			return true
		}
	}
	for _, id := range r.IDs {
		if id != "" && strings.EqualFold(id, a.ID) {
			return true
		}
	}
	return false
}

// Named is the rule for an application the person names as they would
// type it: "Signal", "org.signal.Signal" or "signal-desktop". The text,
// trimmed, is compared case-insensitively with App.Name, either half of the
// Linux WM_CLASS, the program's file name and the macOS bundle identifier,
// so the person need not know which of them their desktop reports. A path
// such as "/usr/bin/signal-desktop" matches by its file name.
func Named(name string) Rule {
	name = strings.TrimSpace(name)
	return Rule{Label: name, Names: []string{name}, Exes: []string{ExeName(name)}, IDs: []string{name}}
}

// classHas reports whether name is the instance or the class in the
// "instance.Class" form. Either half may itself contain dots
// ("org.gnome.Settings"), so the halves are found by the name's own length
// rather than by splitting.
func classHas(class, name string) bool {
	if class == "" {
		return false
	}
	c, n := strings.ToLower(class), strings.ToLower(name)
	return c == n || strings.HasPrefix(c, n+".") || strings.HasSuffix(c, "."+n)
}

// ExeName is the file name of the program at exe, as rules match it. Linux
// reports a replaced binary as "/path (deleted)", which must still match:
// an upgrade in place does not change which program is running.
func ExeName(exe string) string {
	if exe == "" {
		return ""
	}
	return strings.TrimSuffix(filepath.Base(exe), " (deleted)")
}

// Default is the deny list built in on this OS: what Reins never touches.
func Default() List { return DefaultFor(runtime.GOOS) }

// DefaultFor is the deny list built in on the OS goos (as runtime.GOOS names
// it): password managers, keychains, the system settings, authentication
// prompts, and Reins itself, so an agent can never approve its own request.
func DefaultFor(goos string) List {
	switch goos {
	case "darwin":
		return macDenyList()
	case "linux":
		return linuxDenyList()
	}
	return append(linuxDenyList(), macDenyList()...)
}

func linuxDenyList() List {
	return List{
		{Label: "Reins", Names: []string{"reins"}, Exes: []string{"reins"}},
		{Label: "KeePassXC", Names: []string{"KeePassXC", "org.keepassxc.KeePassXC"}, Exes: []string{"keepassxc"}},
		{Label: "1Password", Names: []string{"1Password"}, Exes: []string{"1password"}},
		{Label: "Bitwarden", Names: []string{"Bitwarden"}, Exes: []string{"bitwarden"}},
		{Label: "Passwords and Keys (GNOME Keyring)", Names: []string{"Seahorse", "org.gnome.seahorse.Application", "gcr-prompter"}, Exes: []string{"seahorse", "gcr-prompter", "gnome-keyring-daemon"}},
		{Label: "KWallet", Names: []string{"kwalletmanager", "kwalletmanager5", "org.kde.kwalletmanager", "org.kde.kwalletmanager5", "kwalletd5", "kwalletd6", "ksecretd"}, Exes: []string{"kwalletmanager", "kwalletmanager5", "kwalletd5", "kwalletd6", "ksecretd"}},
		{Label: "GNOME Settings", Names: []string{"gnome-control-center", "org.gnome.Settings"}, Exes: []string{"gnome-control-center"}},
		{Label: "KDE System Settings", Names: []string{"systemsettings", "systemsettings5", "org.kde.systemsettings"}, Exes: []string{"systemsettings", "systemsettings5"}},
		{Label: "Xfce Settings", Names: []string{"xfce4-settings-manager"}, Exes: []string{"xfce4-settings-manager"}},
		{Label: "Authentication dialog", Names: []string{"polkit-gnome-authentication-agent-1", "polkit-kde-authentication-agent-1", "org.kde.polkit-kde-authentication-agent-1"}, Exes: []string{"polkit-gnome-authentication-agent-1", "polkit-kde-authentication-agent-1"}},
	}
}

// macDenyList names each application by its localized name (App.Name, as
// NSRunningApplication and kCGWindowOwnerName give it, in English: other
// languages differ), the file name of its executable (App.Exe, the same in
// every language) and its bundle identifier (App.ID).
func macDenyList() List {
	return List{
		{Label: "Reins", Names: []string{"Reins"}, Exes: []string{"reins"}, IDs: []string{"app.reins.Reins"}},
		{Label: "1Password", Names: []string{"1Password", "1Password 7"}, Exes: []string{"1Password", "1Password 7"}, IDs: []string{"com.1password.1password", "com.agilebits.onepassword7", "com.agilebits.onepassword-osx"}},
		{Label: "Keychain Access", Names: []string{"Keychain Access"}, Exes: []string{"Keychain Access"}, IDs: []string{"com.apple.keychainaccess"}},
		{Label: "Passwords", Names: []string{"Passwords"}, Exes: []string{"Passwords"}, IDs: []string{"com.apple.Passwords"}},
		{Label: "System Settings", Names: []string{"System Settings", "System Preferences"}, Exes: []string{"System Settings", "System Preferences"}, IDs: []string{"com.apple.systempreferences"}},
		{Label: "Authentication dialog", Names: []string{"SecurityAgent"}, Exes: []string{"SecurityAgent"}, IDs: []string{"com.apple.SecurityAgent"}},
		// The system's prompts above other windows (the executor's
		// macSystemUI): alerts
		// and notification banners, the "downloaded from the internet" and
		// permission prompts, the lock screen and login window.
		{Label: "macOS system prompt", Names: []string{"UserNotificationCenter", "Notification Center", "NotificationCenter", "CoreServicesUIAgent", "loginwindow"}, Exes: []string{"UserNotificationCenter", "NotificationCenter", "CoreServicesUIAgent", "loginwindow"}, IDs: []string{"com.apple.UserNotificationCenter", "com.apple.notificationcenterui", "com.apple.coreservices.uiagent", "com.apple.loginwindow"}},
		{Label: "Bitwarden", Names: []string{"Bitwarden"}, Exes: []string{"Bitwarden"}, IDs: []string{"com.bitwarden.desktop"}},
		{Label: "KeePassXC", Names: []string{"KeePassXC"}, Exes: []string{"KeePassXC"}, IDs: []string{"org.keepassxc.keepassxc"}},
		{Label: "Dashlane", Names: []string{"Dashlane"}, Exes: []string{"Dashlane"}},
		{Label: "LastPass", Names: []string{"LastPass"}, Exes: []string{"LastPass"}, IDs: []string{"com.lastpass.LastPass"}},
	}
}
