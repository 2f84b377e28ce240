package autostart

import "os"

// where is the LaunchAgent in the person's Library.
func where() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return LaunchAgentPath(home), nil
}

func render(exe string) []byte { return LaunchAgent(exe) }

// active: the file says nothing of whether it is switched off. Since macOS
// 13 the person switches a LaunchAgent off in System Settings › General ›
// Login Items; macOS keeps that switch in its own records and leaves the
// file in place, so an agent that is there may still not start.
func active([]byte) bool { return true }
