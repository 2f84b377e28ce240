// Package xdesk looks at and drives an X desktop the way a person at it
// would, for tests and the screenshots tool: the screen's pixels, the
// menus open on it, a click, a key. Reins itself acts through the
// executor; this package is for the programs that check what Reins shows.
package xdesk

import (
	"fmt"
	"image"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"
)

// Capture reads the root window's pixels.
func Capture(display string) (*image.RGBA, error) {
	conn, err := xgb.NewConnDisplay(display)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	s := xproto.Setup(conn).DefaultScreen(conn)
	w, h := int(s.WidthInPixels), int(s.HeightInPixels)
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	const band = 200 // rows per request: one reply carries at most 16 MB
	for y := 0; y < h; y += band {
		bh := min(band, h-y)
		r, err := xproto.GetImage(conn, xproto.ImageFormatZPixmap, xproto.Drawable(s.Root), 0, int16(y), uint16(w), uint16(bh), 0xffffffff).Reply()
		if err != nil {
			return nil, err
		}
		for p := 0; p < w*bh && 4*p+3 < len(r.Data); p++ {
			o := img.PixOffset(p%w, y+p/w)
			img.Pix[o], img.Pix[o+1], img.Pix[o+2], img.Pix[o+3] = r.Data[4*p+2], r.Data[4*p+1], r.Data[4*p], 0xff
		}
	}
	return img, nil
}

// Menus counts the mapped override-redirect windows: the menus and
// submenus open on the screen.
func Menus(display string) (int, error) {
	conn, err := xgb.NewConnDisplay(display)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	tree, err := xproto.QueryTree(conn, xproto.Setup(conn).DefaultScreen(conn).Root).Reply()
	if err != nil {
		return 0, err
	}
	n := 0
	for _, w := range tree.Children {
		a, err := xproto.GetWindowAttributes(conn, w).Reply()
		if err == nil && a.MapState == xproto.MapStateViewable && a.OverrideRedirect {
			n++
		}
	}
	return n, nil
}

// Move moves the pointer to (x, y) through XTEST, as a person's mouse
// would, and returns once the server has taken the move.
func Move(display string, x, y int) error {
	conn, err := xgb.NewConnDisplay(display)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := xtest.Init(conn); err != nil {
		return fmt.Errorf("XTEST: %w", err)
	}
	root := xproto.Setup(conn).DefaultScreen(conn).Root
	if err := xtest.FakeInputChecked(conn, xproto.MotionNotify, 0, 0, root, int16(x), int16(y), 0).Check(); err != nil {
		return err
	}
	_, err = xproto.QueryPointer(conn, root).Reply()
	return err
}

// Click moves the pointer to (x, y) and clicks the left button through
// XTEST, at a person's pace so that the toolkit sees the move first.
func Click(display string, x, y int) error {
	conn, err := xgb.NewConnDisplay(display)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := xtest.Init(conn); err != nil {
		return fmt.Errorf("XTEST: %w", err)
	}
	root := xproto.Setup(conn).DefaultScreen(conn).Root
	for _, ev := range []struct {
		typ, detail byte
		pause       time.Duration
	}{{xproto.MotionNotify, 0, 150 * time.Millisecond}, {xproto.ButtonPress, 1, 60 * time.Millisecond}, {xproto.ButtonRelease, 1, 0}} {
		if err := xtest.FakeInputChecked(conn, ev.typ, ev.detail, 0, root, int16(x), int16(y), 0).Check(); err != nil {
			return err
		}
		time.Sleep(ev.pause)
	}
	_, err = xproto.GetInputFocus(conn).Reply()
	return err
}

var keysyms = map[string]xproto.Keysym{"Down": 0xff54, "Up": 0xff52, "Right": 0xff53, "Left": 0xff51, "Return": 0xff0d, "Escape": 0xff1b}

// Type types text as a person at the keyboard would, key by key through
// XTEST: lower-case letters, digits, space, "-", "." and "\n" (Return),
// which every layout has without Shift.
func Type(display, text string) error {
	var names []string
	for _, r := range text {
		switch {
		case r == '\n':
			names = append(names, "Return")
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == ' ', r == '-', r == '.':
			names = append(names, string(r))
		default:
			return fmt.Errorf("xdesk.Type types no %q", r)
		}
	}
	return Keys(display, names...)
}

// Keys presses and releases each named key (Down, Up, Right, Left, Return,
// Escape, or one printable ASCII character) in turn through XTEST, at a person's pace so that a menu follows
// each one.
func Keys(display string, names ...string) error {
	conn, err := xgb.NewConnDisplay(display)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := xtest.Init(conn); err != nil {
		return fmt.Errorf("XTEST: %w", err)
	}
	setup := xproto.Setup(conn)
	root := setup.DefaultScreen(conn).Root
	n := byte(setup.MaxKeycode - setup.MinKeycode + 1)
	km, err := xproto.GetKeyboardMapping(conn, setup.MinKeycode, n).Reply()
	if err != nil {
		return err
	}
	code := func(ks xproto.Keysym) (xproto.Keycode, bool) {
		per := int(km.KeysymsPerKeycode)
		for i := 0; i < int(n); i++ {
			for j := 0; j < per; j++ {
				if km.Keysyms[i*per+j] == ks {
					return setup.MinKeycode + xproto.Keycode(i), true
				}
			}
		}
		return 0, false
	}
	for _, name := range names {
		ks, ok := keysyms[name]
		if r := []rune(name); !ok && len(r) == 1 && r[0] >= ' ' && r[0] <= '~' {
			ks, ok = xproto.Keysym(r[0]), true // Latin-1 keysyms are the characters' codes
		}
		if !ok {
			return fmt.Errorf("xdesk.Keys knows no key %q", name)
		}
		c, ok := code(ks)
		if !ok {
			return fmt.Errorf("no key code for %s on this display", name)
		}
		if err := xtest.FakeInputChecked(conn, xproto.KeyPress, byte(c), 0, root, 0, 0, 0).Check(); err != nil {
			return err
		}
		time.Sleep(40 * time.Millisecond)
		if err := xtest.FakeInputChecked(conn, xproto.KeyRelease, byte(c), 0, root, 0, 0, 0).Check(); err != nil {
			return err
		}
		time.Sleep(120 * time.Millisecond)
	}
	_, err = xproto.GetInputFocus(conn).Reply()
	return err
}

// KeysDown lists the key codes the X server holds down now, whoever pressed
// them.
func KeysDown(display string) ([]int, error) {
	conn, err := xgb.NewConnDisplay(display)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	km, err := xproto.QueryKeymap(conn).Reply()
	if err != nil {
		return nil, err
	}
	var down []int
	for i, b := range km.Keys {
		for bit := range 8 {
			if b&(1<<bit) != 0 {
				down = append(down, i*8+bit)
			}
		}
	}
	return down, nil
}

// KeyOf is the key code that types r, a Latin-1 character, unshifted in
// display's keyboard mapping now.
func KeyOf(display string, r rune) (byte, error) {
	conn, err := xgb.NewConnDisplay(display)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	s := xproto.Setup(conn)
	km, err := xproto.GetKeyboardMapping(conn, s.MinKeycode, byte(s.MaxKeycode-s.MinKeycode+1)).Reply()
	if err != nil {
		return 0, err
	}
	per := int(km.KeysymsPerKeycode)
	for i := 0; i*per < len(km.Keysyms); i++ {
		if km.Keysyms[i*per] == xproto.Keysym(r) {
			return byte(int(s.MinKeycode) + i), nil
		}
	}
	return 0, fmt.Errorf("no key code types %q on %s", r, display)
}
