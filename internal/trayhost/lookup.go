package trayhost

// Host is the tray host as a process sees it: who the host is, and whether
// it lists that process's item.
type Host struct {
	// PID is the host's process, as the session bus tells; 0 on macOS,
	// where the menu bar is the system's.
	PID int
	// Listed reports whether the host lists the item of the process asked
	// about.
	Listed bool
}

// Lookup finds the tray host and whether it lists the tray item of the
// process pid. Its error wraps [ErrNoSessionBus] when there is no session
// bus to ask; a session bus without a host is no error, and a zero Host.
func Lookup(pid int) (Host, error) { return lookup(pid) }
