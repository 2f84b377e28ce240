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

// active: launchd starts any agent whose file is there.
func active([]byte) bool { return true }
