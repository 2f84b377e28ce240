//go:build !darwin

package core

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/reins-app/reins/internal/peercred"
	"github.com/reins-app/reins/internal/trayhost"
)

// alwaysThere are the applications the self-test's accessibility check
// may read, in order: the process that hosts the tray, and the one that
// started it, for a panel whose tray runs in a helper of its own
// (xfce4-panel's plugins); a desktop keeps its panel running.
func alwaysThere() ([]readable, error) {
	h, err := trayhost.Lookup(os.Getpid())
	if err != nil {
		return nil, err
	}
	if h.PID == 0 {
		return nil, errors.New("no panel hosts a tray on this desktop, and it is the application the check reads")
	}
	out := []readable{{h.PID, "the tray's host " + exeName(h.PID)}}
	if parent, err := peercred.Parent(h.PID); err == nil && parent > 1 {
		out = append(out, readable{parent, "the panel " + exeName(parent)})
	}
	return out, nil
}

func exeName(pid int) string {
	exe, _ := peercred.Exe(pid)
	return filepath.Base(exe)
}

// osVersion is the system's name, as /etc/os-release says it.
func osVersion() string {
	f, err := os.Open("/etc/os-release")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "PRETTY_NAME="); ok {
			return strings.Trim(v, `"`)
		}
	}
	return ""
}
