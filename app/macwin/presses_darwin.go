//go:build darwin && cgo

package macwin

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/progrium/darwinkit/macos/appkit"

	"github.com/reins-app/reins/internal/macos"
	"github.com/reins-app/reins/persondoor"
)

var monitor struct {
	once sync.Once
	err  error
}

// reinsEventMark is the kCGEventSourceUserData Reins' executor writes on
// every event it posts (executor/internal/quartz, ReinsEventMark): never the person's.
const reinsEventMark int64 = 0x5265696E73

// WatchPresses starts noting the presses Reins' own windows receive, for
// Hand; call it once from the main thread, as the app starts. It keeps of
// each press its kind, whether the HID system made it (the person's
// hardware) and when: never a key.
func WatchPresses() error {
	monitor.once.Do(func() {
		mask := appkit.EventMaskLeftMouseDown | appkit.EventMaskRightMouseDown | appkit.EventMaskOtherMouseDown | appkit.EventMaskKeyDown
		m := appkit.Event_AddLocalMonitorForEventsMatchingMaskHandler(mask, func(e appkit.Event) appkit.Event {
			kind := pressButton
			if e.Type() == appkit.EventTypeKeyDown {
				kind = pressKey
			}
			presses.record(kind, personsEvent(e))
			return e
		})
		if m.Ptr() == nil {
			monitor.err = fmt.Errorf("AppKit gave no local event monitor")
		}
	})
	return monitor.err
}

// personsEvent reports whether e came from the person's own hardware: no
// process posted it, and it bears no Reins mark. What cannot be read is a
// program's.
func personsEvent(e appkit.Event) bool {
	ref := uintptr(unsafe.Pointer(e.CGEvent()))
	if ref == 0 {
		return false
	}
	pid, err := macos.EventField(ref, macos.EventSourceUnixProcessID)
	if err != nil || pid != 0 {
		return false
	}
	mark, err := macos.EventField(ref, macos.EventSourceUserData)
	return err == nil && mark != reinsEventMark
}

// Hand tells the person's own click on Reins' windows from a program's,
// from the presses WatchPresses notes: until it has started, or if it could
// not, no press is seen, and nothing passes.
func Hand() persondoor.Hand { return pressHand{log: presses} }
