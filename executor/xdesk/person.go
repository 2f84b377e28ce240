package xdesk

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"
)

// Person stands in for the person at an X desktop, for tests. Its input
// comes from the server's own core keyboard and mouse ("Xvfb keyboard" and
// "Xvfb mouse" on Xvfb), through XTEST's device events: to every client,
// and to Reins' watch on the person's hand, it is a person's keyboard and
// mouse. (Plain XTEST input, Move, Click and Keys above, or xdotool's,
// comes from the server's XTEST devices, as Reins' own does.)
//
// Each method returns once the server has taken the input. A Person holds
// a connection open; Close it. Only one goroutine may use it at a time.
type Person struct {
	// Keyboard and Mouse are the devices' ids: the XI2 source of their
	// input.
	Keyboard, Mouse int

	conn            *xgb.Conn
	root            xproto.Window
	xiEvent         byte // XInputExtension's first event
	keyboard, mouse byte
	min, max        xproto.Keycode
	keymap          *xproto.GetKeyboardMappingReply
}

// XI1 device event types, offsets from the extension's first event.
const (
	xiDeviceValuator     = 0
	xiDeviceKeyPress     = 1
	xiDeviceKeyRelease   = 2
	xiDeviceButtonPress  = 3
	xiDeviceButtonRelse  = 4
	xiDeviceMotionNotify = 5
)

// NewPerson connects to display and finds its physical keyboard and mouse:
// the slave devices attached to the core keyboard and pointer that are not
// XTEST devices. Xvfb has one of each.
func NewPerson(display string) (*Person, error) {
	conn, err := xgb.NewConnDisplay(display)
	if err != nil {
		return nil, err
	}
	p := &Person{conn: conn}
	if err := p.init(); err != nil {
		conn.Close()
		return nil, err
	}
	return p, nil
}

func (p *Person) init() error {
	if err := xtest.Init(p.conn); err != nil {
		return fmt.Errorf("XTEST: %w", err)
	}
	setup := xproto.Setup(p.conn)
	p.root = setup.DefaultScreen(p.conn).Root
	p.min, p.max = setup.MinKeycode, setup.MaxKeycode
	const name = "XInputExtension"
	ext, err := xproto.QueryExtension(p.conn, uint16(len(name)), name).Reply()
	if err != nil {
		return err
	}
	if !ext.Present {
		return errors.New("the X server has no XInput extension")
	}
	p.xiEvent = ext.FirstEvent
	xtestAtom, err := xproto.InternAtom(p.conn, true, uint16(len("XTEST Device")), "XTEST Device").Reply()
	if err != nil {
		return err
	}

	// XIQueryVersion 2.0, then XIQueryDevice for all devices, sent as
	// they are encoded (XI2proto.txt): xgb has no XInput 2.
	op := ext.MajorOpcode
	if _, err := p.request([]byte{op, 47, 2, 0, 2, 0, 0, 0}, true); err != nil {
		return fmt.Errorf("XIQueryVersion: %w", err)
	}
	r, err := p.request([]byte{op, 48, 2, 0, 0, 0, 0, 0}, true)
	if err != nil {
		return fmt.Errorf("XIQueryDevice: %w", err)
	}
	le := binary.LittleEndian
	type dev struct {
		id, use, attach uint16
		name            string
	}
	var devs []dev
	off := 32
	for range int(le.Uint16(r[8:])) {
		if off+12 > len(r) {
			return errors.New("a short XIQueryDevice reply")
		}
		d := dev{id: le.Uint16(r[off:]), use: le.Uint16(r[off+2:]), attach: le.Uint16(r[off+4:])}
		classes, n := int(le.Uint16(r[off+6:])), int(le.Uint16(r[off+8:]))
		d.name = string(r[off+12 : off+12+n])
		off += 12 + n + (4-n%4)%4
		for range classes {
			off += 4 * int(le.Uint16(r[off+2:]))
		}
		devs = append(devs, d)
	}
	synthetic := func(id uint16) (bool, error) {
		b := make([]byte, 24)
		b[0], b[1] = op, 59
		le.PutUint16(b[2:], 6)
		le.PutUint16(b[4:], id)
		le.PutUint32(b[8:], uint32(xtestAtom.Atom))
		le.PutUint32(b[20:], 1)
		r, err := p.request(b, true)
		if err != nil {
			return false, err
		}
		return le.Uint32(r[8:]) != 0 && le.Uint32(r[16:]) > 0 && r[32] != 0, nil
	}
	const masterPointer, masterKeyboard, slavePointer, slaveKeyboard = 1, 2, 3, 4
	for _, d := range devs {
		if d.use != slavePointer && d.use != slaveKeyboard {
			continue
		}
		if s, err := synthetic(d.id); err != nil || s {
			continue
		}
		// Attached to the first master of its kind: the core device.
		if d.use == slaveKeyboard && p.keyboard == 0 {
			p.keyboard = byte(d.id)
		}
		if d.use == slavePointer && p.mouse == 0 {
			p.mouse = byte(d.id)
		}
	}
	if p.keyboard == 0 || p.mouse == 0 {
		return errors.New("the X server has no physical keyboard or mouse to stand in with")
	}
	p.Keyboard, p.Mouse = int(p.keyboard), int(p.mouse)
	km, err := xproto.GetKeyboardMapping(p.conn, p.min, byte(p.max-p.min+1)).Reply()
	if err != nil {
		return err
	}
	p.keymap = km
	return nil
}

// request sends a request encoded whole, length included, and waits for
// its reply (or, without one, for the server to have done it).
func (p *Person) request(b []byte, reply bool) ([]byte, error) {
	c := p.conn.NewCookie(true, reply)
	p.conn.NewRequest(b, c)
	if reply {
		return c.Reply()
	}
	return nil, c.Check()
}

// device sends one XI1 device event of the given type through XTEST, with
// valuators (x, y) after it for a motion: relative when relative is set.
func (p *Person) device(typ byte, detail byte, dev byte, valuators []int32, relative bool) error {
	le := binary.LittleEndian
	n := 1
	if valuators != nil {
		n = 2
	}
	b := make([]byte, 4+32*n)
	b[0] = p.conn.Extensions["XTEST"]
	b[1] = 2 // FakeInput
	le.PutUint16(b[2:], uint16(len(b)/4))
	b[4] = p.xiEvent + typ
	b[5] = detail
	if typ == xiDeviceMotionNotify && !relative {
		b[5] = 0
	} else if typ == xiDeviceMotionNotify {
		b[5] = 1
	}
	le.PutUint32(b[12:], uint32(p.root))
	b[35] = dev
	if valuators != nil {
		v := b[36:]
		v[0] = p.xiEvent + xiDeviceValuator
		v[1] = dev
		v[6] = byte(len(valuators)) // num_valuators
		v[7] = 0                    // first_valuator
		for i, val := range valuators {
			le.PutUint32(v[8+4*i:], uint32(val))
		}
	}
	if _, err := p.request(b, false); err != nil {
		return err
	}
	// A round trip: the server has taken the input, and so has every
	// client it sent events to, by the time it answers the next request.
	_, err := xproto.GetInputFocus(p.conn).Reply()
	return err
}

// Close closes the connection.
func (p *Person) Close() { p.conn.Close() }

// MoveBy moves the pointer by (dx, dy) pixels with the mouse.
func (p *Person) MoveBy(dx, dy int) error {
	return p.device(xiDeviceMotionNotify, 0, p.mouse, []int32{int32(dx), int32(dy)}, true)
}

// MoveTo moves the pointer to (x, y) on the screen with the mouse.
func (p *Person) MoveTo(x, y int) error {
	return p.device(xiDeviceMotionNotify, 0, p.mouse, []int32{int32(x), int32(y)}, false)
}

// Press presses a mouse button (1 left, 2 middle, 3 right) where the
// pointer is. Xvfb's mouse has these three and no wheel.
func (p *Person) Press(button int) error {
	return p.device(xiDeviceButtonPress, byte(button), p.mouse, nil, false)
}

// Release releases a mouse button.
func (p *Person) Release(button int) error {
	return p.device(xiDeviceButtonRelse, byte(button), p.mouse, nil, false)
}

// Click moves the pointer to (x, y) and clicks the left button, at a
// person's pace, as xdesk.Click does, so that a toolkit sees the move
// before the press.
func (p *Person) Click(x, y int) error {
	if err := p.MoveTo(x, y); err != nil {
		return err
	}
	time.Sleep(150 * time.Millisecond)
	if err := p.Press(1); err != nil {
		return err
	}
	time.Sleep(60 * time.Millisecond)
	return p.Release(1)
}

// KeyDown presses the named key (as Keys names them) and holds it.
func (p *Person) KeyDown(name string) error {
	code, err := p.code(name)
	if err != nil {
		return err
	}
	return p.device(xiDeviceKeyPress, byte(code), p.keyboard, nil, false)
}

// KeyUp releases the named key.
func (p *Person) KeyUp(name string) error {
	code, err := p.code(name)
	if err != nil {
		return err
	}
	return p.device(xiDeviceKeyRelease, byte(code), p.keyboard, nil, false)
}

// Key presses and releases the named key.
func (p *Person) Key(name string) error {
	if err := p.KeyDown(name); err != nil {
		return err
	}
	return p.KeyUp(name)
}

// code is the key code that types the named key without a modifier.
func (p *Person) code(name string) (xproto.Keycode, error) {
	ks, ok := keysyms[name]
	if r := []rune(name); !ok && len(r) == 1 && r[0] >= ' ' && r[0] <= '~' {
		ks, ok = xproto.Keysym(r[0]), true // Latin-1 keysyms are the characters' codes
	}
	if !ok {
		return 0, fmt.Errorf("xdesk.Person knows no key %q", name)
	}
	per := int(p.keymap.KeysymsPerKeycode)
	for i := 0; i <= int(p.max-p.min); i++ {
		if per > 0 && p.keymap.Keysyms[i*per] == ks {
			return p.min + xproto.Keycode(i), nil
		}
	}
	return 0, fmt.Errorf("no key code types %s on this display", name)
}
