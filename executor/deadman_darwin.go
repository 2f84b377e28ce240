package executor

import (
	"errors"
	"fmt"

	"github.com/reins-app/reins/executor/internal/quartz"
)

// guardBackend is the macOS event system the release guard lets go on.
// The helper is Reins' child, so macOS counts its input as Reins' own for
// Accessibility permission: TCC credits a process's "responsible"
// process, which a child started by Reins inherits at its start.
//
// For the self-test to confirm: whom TCC credits once the parent has died,
// which is exactly when the guard posts. The responsibility is set when
// the child starts and no other process takes the orphan's, so the guard's
// events should still count as Reins' (the same code identity, as long as
// the same signed Reins.app started it); if TCC instead checks a
// responsible process that must be alive, CGEventPost drops them silently
// and a key Reins held stays down until the person presses it. Either way
// the guard's events carry Reins' mark (quartz.EventPost), so a hand watch
// never takes them for the person's.
func guardBackend(string) (backend, func() error, error) {
	m, err := NewMac(MacOptions{})
	if err != nil {
		return nil, nil, err
	}
	return m, m.Close, nil
}

// macKeyCodes is one more than the highest virtual key code of a Mac
// keyboard.
const macKeyCodes = 128

// letGoOfLeftovers posts a key up for every key the HID system reports
// down, and a button up for each mouse button down. macOS keeps no state
// apart for posted events, so a key the person holds at that moment is
// let go of too: once, as Reins starts.
func (m *Mac) letGoOfLeftovers() ([]string, error) {
	m.seq.mu.Lock()
	defer m.seq.mu.Unlock()
	if m.isClosed() {
		return nil, errClosed
	}
	if err := m.CheckPermission(); err != nil {
		return nil, err
	}
	var done []string
	var errs []error
	for code := range uint16(macKeyCodes) {
		if !quartz.EventSourceKeyState(quartz.EventSourceStateHIDSystemState, code) {
			continue
		}
		if err := m.post(event{kind: keyUp, key: key{code: code}}); err != nil {
			errs = append(errs, fmt.Errorf("key %d may still be down: %w", code, err))
			continue
		}
		done = append(done, fmt.Sprintf("key %d", code))
	}
	at, _, _ := m.pointer()
	for _, b := range []button{leftButton, rightButton} {
		_, num := macButtonEvent(b, false)
		if !quartz.EventSourceButtonState(quartz.EventSourceStateHIDSystemState, num) {
			continue
		}
		if err := m.post(event{kind: buttonUp, button: b, at: at, clicks: 1}); err != nil {
			errs = append(errs, fmt.Errorf("button %d may still be down: %w", num, err))
			continue
		}
		done = append(done, fmt.Sprintf("button %d", num))
	}
	return done, errors.Join(errs...)
}

func (m *Mac) guarded() *sequence { return &m.seq }
