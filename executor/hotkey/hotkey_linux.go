package hotkey

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/keychord"
)

// watchHotkey grabs the chord on the root window with its own connection.
// The grab is repeated with Caps Lock and Num Lock on, which would otherwise
// make the same keys a different chord.
func watch(ctx context.Context, c keychord.Chord, opts Options) error {
	if opts.Pressed == nil {
		return errors.New("hotkey: Options.Pressed is required")
	}
	display := opts.Display
	if display == "" {
		display = os.Getenv("DISPLAY")
	}
	if display == "" {
		return fmt.Errorf("%w: DISPLAY is not set", executor.ErrNoDisplay)
	}
	conn, err := xgb.NewConnDisplay(display)
	if err != nil {
		return fmt.Errorf("%w: %v", executor.ErrNoDisplay, err)
	}
	root := xproto.Setup(conn).DefaultScreen(conn).Root
	code, held, err := executor.X11ChordKey(conn, opts.Chord)
	if err != nil {
		conn.Close()
		return err
	}
	want := x11Mask(held)
	const lock, numLock = xproto.ModMaskLock, xproto.ModMask2
	for _, extra := range []uint16{0, lock, numLock, lock | numLock} {
		err := xproto.GrabKeyChecked(conn, true, root, want|extra, code, xproto.GrabModeAsync, xproto.GrabModeAsync).Check()
		if err != nil {
			conn.Close()
			return fmt.Errorf("cannot take %s for Reins: another program holds it (%v)", opts.Chord, err)
		}
	}
	// Let go of the chord before the connection closes, with a round trip,
	// so that once this returns the chord is the desktop's again: closing
	// alone frees it only when the server gets round to the disconnect.
	stop := context.AfterFunc(ctx, func() {
		for _, extra := range []uint16{0, lock, numLock, lock | numLock} {
			xproto.UngrabKey(conn, code, root, want|extra)
		}
		xproto.GetInputFocus(conn).Reply()
		conn.Close()
	})
	defer stop()
	if opts.Ready != nil {
		opts.Ready()
	}
	for {
		ev, xerr := conn.WaitForEvent()
		if ev == nil && xerr == nil {
			return nil // the connection closed: ctx ended
		}
		if k, ok := ev.(xproto.KeyPressEvent); ok && k.Detail == code && k.State&^(lock|numLock) == want {
			opts.Pressed()
		}
	}
}

// x11Mask is the X modifier mask of m.
func x11Mask(m keychord.Mods) uint16 {
	var mask uint16
	if m&keychord.Shift != 0 {
		mask |= xproto.ModMaskShift
	}
	if m&keychord.Control != 0 {
		mask |= xproto.ModMaskControl
	}
	if m&keychord.Alt != 0 {
		mask |= xproto.ModMask1
	}
	if m&keychord.Meta != 0 {
		mask |= xproto.ModMask4
	}
	return mask
}
