package autostart

import (
	"encoding/xml"
	"path/filepath"
	"strings"
)

// LaunchAgentPath is the LaunchAgent's path under home, the person's home
// folder.
func LaunchAgentPath(home string) string {
	return filepath.Join(home, "Library", "LaunchAgents", ID+".plist")
}

// LaunchAgent is the launchd property list that starts exe when the person
// logs in to the graphical session. exe is run as given, also when it is the
// executable inside Reins.app: launchd starts the bundle's program
// directly, and macOS still knows it by its bundle. Then the entry also
// names the bundle, so the Login Items settings show Reins by its name and
// icon rather than as a bare program. AssociatedBundleIdentifiers (read
// since macOS 13) is an array of bundle identifiers, even for one.
//
// A LaunchAgent rather than SMAppService.mainApp: Reins supports macOS 12,
// which has no SMAppService, and the file works the same on 13 and later.
func LaunchAgent(exe string) []byte {
	var b strings.Builder
	str := func(s string) string {
		var e strings.Builder
		xml.EscapeText(&e, []byte(s))
		return "<string>" + e.String() + "</string>"
	}
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
`)
	b.WriteString("\t<key>Label</key>\n\t" + str(ID) + "\n")
	b.WriteString("\t<key>ProgramArguments</key>\n\t<array>\n\t\t" + str(exe) + "\n\t</array>\n")
	b.WriteString("\t<key>RunAtLoad</key>\n\t<true/>\n")
	b.WriteString("\t<key>ProcessType</key>\n\t" + str("Interactive") + "\n")
	b.WriteString("\t<key>LimitLoadToSessionType</key>\n\t" + str("Aqua") + "\n")
	if inAppBundle(exe) {
		b.WriteString("\t<key>AssociatedBundleIdentifiers</key>\n\t<array>\n\t\t" + str(ID) + "\n\t</array>\n")
	}
	b.WriteString("</dict>\n</plist>\n")
	return []byte(b.String())
}

// inAppBundle reports whether exe is a bundle's program,
// "….app/Contents/MacOS/name".
func inAppBundle(exe string) bool {
	macos := filepath.Dir(exe)
	contents := filepath.Dir(macos)
	return filepath.Base(macos) == "MacOS" && filepath.Base(contents) == "Contents" &&
		strings.HasSuffix(filepath.Dir(contents), ".app")
}
