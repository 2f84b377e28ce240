package executor

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// watchHotkey grabs the chord on the root window with its own connection.
// The grab is repeated with Caps Lock and Num Lock on, which would otherwise
// make the same keys a different chord.
func watchHotkey(ctx context.Context, c chord, opts HotkeyOptions) error {
	if opts.Pressed == nil {
		return errors.New("executor: HotkeyOptions.Pressed is required")
	}
	display := opts.Display
	if display == "" {
		display = os.Getenv("DISPLAY")
	}
	if display == "" {
		return fmt.Errorf("%w: DISPLAY is not set", ErrNoDisplay)
	}
	conn, err := xgb.NewConnDisplay(display)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNoDisplay, err)
	}
	setup := xproto.Setup(conn)
	root := setup.DefaultScreen(conn).Root
	km, err := readKeymap(conn, setup.MinKeycode, setup.MaxKeycode)
	if err != nil {
		conn.Close()
		return err
	}
	ks, ok := chordKeysym(c)
	if !ok {
		conn.Close()
		return fmt.Errorf("%w: the chord %q has no X key", ErrUnknownKey, opts.Chord)
	}
	code, _, ok := km.find(ks)
	if !ok {
		conn.Close()
		return fmt.Errorf("%w: no key on this keyboard types %q", ErrUnknownKey, opts.Chord)
	}
	want := x11Mask(c.mods)
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

// chordKeysym is the keysym of a chord's key, lower case for letters.
func chordKeysym(c chord) (xproto.Keysym, bool) {
	if c.name != keyNone {
		return x11NamedSym(c.name)
	}
	if c.char == 0 {
		return 0, false
	}
	return runeKeysym(c.char), true
}

func x11Mask(m mods) uint16 {
	var mask uint16
	if m&modShift != 0 {
		mask |= xproto.ModMaskShift
	}
	if m&modControl != 0 {
		mask |= xproto.ModMaskControl
	}
	if m&modAlt != 0 {
		mask |= xproto.ModMask1
	}
	if m&modMeta != 0 {
		mask |= xproto.ModMask4
	}
	return mask
}
