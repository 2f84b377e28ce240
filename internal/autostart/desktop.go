package autostart

import (
	"bufio"
	"bytes"
	"path/filepath"
	"strings"
)

// DesktopEntryPath is the XDG autostart entry's path under configHome, the
// XDG config folder (normally ~/.config).
func DesktopEntryPath(configHome string) string {
	return filepath.Join(configHome, "autostart", ID+".desktop")
}

// DesktopEntry is the XDG autostart entry that starts exe at login.
func DesktopEntry(exe string) []byte {
	var b strings.Builder
	line := func(key, value string) { b.WriteString(key + "=" + escapeValue(value) + "\n") }
	b.WriteString("[Desktop Entry]\n")
	line("Type", "Application")
	line("Name", "Reins")
	line("Comment", "Lets AI agents use your Chrome tabs and desktop, with your approval for each act")
	b.WriteString("Exec=" + escapeValue(execArg(exe)) + "\n")
	line("Terminal", "false")
	line("X-GNOME-Autostart-enabled", "true")
	return []byte(b.String())
}

// execArg writes one argument of an Exec key by the Desktop Entry
// Specification's quoting rules: an argument with a reserved character is
// put in double quotes, inside which '"', '`', '$' and '\' take a
// backslash; a literal '%' is doubled everywhere, as field codes start
// with it. (GLib looks for the program before it undoes "%%", so GNOME
// skips an entry whose path has a '%'; such paths are rare, and the
// specification's form is kept.)
func execArg(arg string) string {
	arg = strings.ReplaceAll(arg, "%", "%%")
	if arg != "" && !strings.ContainsAny(arg, " \t\n\"'\\><~|&;$*?#()`") {
		return arg
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range arg {
		switch r {
		case '"', '`', '$', '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

// escapeValue applies the specification's escapes for string values, which
// readers undo before they unquote an Exec key's arguments: so a backslash
// inside a quoted argument ends up written as four.
func escapeValue(v string) string {
	var b strings.Builder
	for i, r := range v {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == ' ' && i == 0:
			b.WriteString(`\s`)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// desktopEntryActive reports whether the desktop would start an autostart
// entry: not when it is hidden (how an entry is deleted over a system-wide
// one) nor when GNOME's switch for it is off.
func desktopEntryActive(entry []byte) bool {
	group := ""
	sc := bufio.NewScanner(bytes.NewReader(entry))
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(l, "[") && strings.HasSuffix(l, "]") {
			group = l
			continue
		}
		if group != "[Desktop Entry]" {
			continue
		}
		key, value, ok := strings.Cut(l, "=")
		if !ok {
			continue
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if (key == "Hidden" && value == "true") || (key == "X-GNOME-Autostart-enabled" && value == "false") {
			return false
		}
	}
	return true
}
