package hand

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"sync"
	"time"
)

// NewListener opens a listener on the X display, on a connection of
// its own, which watches through XInput 2's raw events: they name the
// physical device each input came from (its source), and reach a client
// that asked for XInput 2.1 or later even while another client grabs the
// pointer or keyboard, as Chromium does during a click. The devices whose
// input is synthetic are those the X server marks with the "XTEST Device"
// property: every program's XTEST input, Reins' own included, comes from
// them. The listener reads the device list again whenever it changes.
//
// What X cannot tell apart, neither can the listener: other XTEST users
// (x11vnc, Barrier, on-screen keyboards, voice control) look like Reins,
// and a program that sends XTEST's device events in the name of a
// physical device (as xdesk.Person does, to stand in for the person in
// tests) looks like the person.
//
// Between watches it selects no input, only the device list's changes. An
// error wraps ErrNoWatch when this display cannot tell the person's
// input from synthetic input; then an act cannot be watched, and must not
// fire.
func NewListener(ctx context.Context, opts Options) (*Listener, error) {
	display := opts.Display
	if display == "" {
		display = os.Getenv("DISPLAY")
	}
	if display == "" {
		return nil, fmt.Errorf("%w: DISPLAY is not set", ErrNoWatch)
	}
	motion := opts.Motion
	if motion <= 0 {
		motion = defaultMotion
	}
	x := &xiListener{motion: motion, queue: newXIQueue(), active: map[*Watch]*xiWatched{}, wanted: map[uint32]int{}, loopDone: make(chan struct{})}
	wire, err := dialX(ctx, display, x.queue.push)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoWatch, err)
	}
	x.wire = wire
	if err := x.start(ctx); err != nil {
		wire.close()
		return nil, fmt.Errorf("%w: %w", ErrNoWatch, err)
	}
	go x.loop()
	return &Listener{impl: x}, nil
}

// XInput 2 requests, events and constants (XI2proto.txt).
const (
	xiQueryPointer   = 40
	xiSelectEvents   = 46
	xiQueryVersion   = 47
	xiQueryDevice    = 48
	xiGetProperty    = 59
	xiAllDevices     = 0
	xiMasterPointer  = 1
	xiMasterKeyboard = 2
	xiFloatingSlave  = 5

	xiHierarchyChanged = 11
	xiRawKeyPress      = 13
	xiRawButtonPress   = 15
	xiRawMotion        = 17
	xiRawTouchBegin    = 22

	xiValuatorClass = 2
	xiScrollClass   = 3
	xiModeAbsolute  = 1
	xiKeyRepeat     = 1 << 16
)

// xiListener is a Listener on X.
type xiListener struct {
	wire   *xWire
	queue  *xiQueue
	op     byte   // XInputExtension's major opcode
	xtest  uint32 // the atom "XTEST Device"
	touch  bool   // the server speaks XInput 2.2, with touches
	motion float64

	// devices is the server's input devices, by id. Read and written by
	// start, then only by loop.
	devices map[uint16]*xiDevice
	// broken is why the loop closed the connection: the devices could no
	// longer be followed. Written by loop.
	broken error

	selMu sync.Mutex
	// wanted counts the watches started and not closed, by the raw input
	// each needs read; selected is the input selected now, what they need
	// together. Both guarded by selMu.
	wanted   map[uint32]int
	selected uint32

	mu     sync.Mutex
	active map[*Watch]*xiWatched // guarded by mu: the watches the loop passes input to
	closed bool                  // guarded by mu

	loopDone chan struct{}
}

// xiWatched is what one watch has seen the devices do.
type xiWatched struct {
	motion map[uint16]*xiMotion
}

// xiMotion is where a device has carried the pointer since a watch began.
type xiMotion struct {
	moved [2]float64
	// start: for an absolute device, its first position in the watch.
	start    [2]float64
	hasStart [2]bool
}

// xiDevice is what the listener knows of an input device.
type xiDevice struct {
	synthetic bool   // an XTEST device
	master    uint16 // the master pointer whose position a press of it moves, or the device itself
	axes      [2]xiAxis
	scroll    uint64 // bit n: valuator n scrolls
}

// xiAxis is one of a device's x and y valuators.
type xiAxis struct {
	absolute bool
	min, max float64
}

// start asks for XInput 2.2, selects the hierarchy's changes on the root
// window, and reads the device list.
func (x *xiListener) start(ctx context.Context) error {
	ext, err := x.wire.send(queryExtensionReq("XInputExtension"), true, nil)
	if err != nil {
		return err
	}
	atom, err := x.wire.send(internAtomReq("XTEST Device", true), true, nil)
	if err != nil {
		return err
	}
	r, err := x.wire.wait(ctx, ext)
	if err != nil {
		return err
	}
	if r[8] == 0 {
		return errors.New("the X server has no XInput extension")
	}
	x.op = r[9]
	if r, err = x.wire.wait(ctx, atom); err != nil {
		return err
	}
	if x.xtest = le.Uint32(r[8:]); x.xtest == 0 {
		return errors.New(`the X server marks no device "XTEST Device"`)
	}

	version, err := x.wire.send(x.req(xiQueryVersion, 8, func(b []byte) {
		le.PutUint16(b[4:], 2)
		le.PutUint16(b[6:], 2)
	}), true, nil)
	if err != nil {
		return err
	}
	// Selected before the device list is read, so that no change of the
	// hierarchy falls between the two.
	sel, err := x.wire.send(x.selectReq(0), false, nil)
	if err != nil {
		return err
	}
	if r, err = x.wire.wait(ctx, version); err != nil {
		return err
	}
	major, minor := le.Uint16(r[8:]), le.Uint16(r[10:])
	if major < 2 || major == 2 && minor < 1 {
		return fmt.Errorf("the X server has XInput %d.%d; telling the person's input apart needs 2.1 or later", major, minor)
	}
	x.touch = major > 2 || minor >= 2
	devices, err := x.readDevices(ctx)
	if err != nil {
		return err
	}
	if _, err := x.wire.wait(ctx, sel); err != nil {
		return fmt.Errorf("cannot watch the input devices: %w", err)
	}
	n := 0
	for _, d := range devices {
		if d.synthetic {
			n++
		}
	}
	if n == 0 {
		return errors.New(`no input device is marked "XTEST Device", so synthetic input cannot be told apart`)
	}
	x.devices = devices
	return nil
}

// watch selects the raw input w needs, unless other watches have, and
// returns once the loop passes w every input after the selection and the
// call.
func (x *xiListener) watch(ctx context.Context, w *Watch) (handSource, error) {
	src := &xiSource{x: x, w: w, input: x.inputFor(w)}
	activated := make(chan error, 1)
	x.selMu.Lock()
	x.wanted[src.input]++
	sel, err := x.reselect()
	if err == nil {
		// Passed to the loop in stream order: w gets no input the
		// server took before it.
		_, err = x.wire.send(getInputFocusReq(), true, func(err error) {
			if err == nil {
				x.mu.Lock()
				switch {
				case x.closed:
					err = errHandListenerClosed
				case !src.closed:
					x.active[w] = &xiWatched{motion: map[uint16]*xiMotion{}}
				}
				x.mu.Unlock()
			}
			activated <- err
		})
	}
	x.selMu.Unlock()
	if err == nil {
		select {
		case err = <-activated:
		case <-ctx.Done():
			err = ctx.Err()
		case <-x.loopDone:
			err = errHandListenerClosed
		}
	}
	if err == nil && sel != nil {
		// Answered before the marker was: a refused selection would
		// leave the watch blind.
		if it := <-sel.ch; it.err != nil {
			err = fmt.Errorf("%w: the X server would not send the input: %w", ErrNoWatch, it.err)
		}
	}
	if err != nil {
		src.close()
		if !errors.Is(err, ErrNoWatch) && ctx.Err() == nil {
			err = fmt.Errorf("%w: the listener lost the X display: %w", ErrNoWatch, err)
		}
		return nil, err
	}
	return src, nil
}

var errHandListenerClosed = fmt.Errorf("%w: the listener was closed", ErrNoWatch)

// xiSource is one watch's side of the listener.
type xiSource struct {
	x      *xiListener
	w      *Watch
	input  uint32 // the raw input the watch needs read
	closed bool   // guarded by x.mu
}

// inputFor is the raw input w needs read: an act's watch every press and
// the motion; a watch of presses, buttons and touches, and keys only when
// it counts them.
func (x *xiListener) inputFor(w *Watch) uint32 {
	m := uint32(1 << xiRawButtonPress)
	if x.touch {
		m |= 1 << xiRawTouchBegin
	}
	if !w.presses || w.keys {
		m |= 1 << xiRawKeyPress
	}
	if !w.presses {
		m |= 1 << xiRawMotion
	}
	return m
}

// reselect selects what the watches on need together, when that changed;
// the call, if one was sent, is returned. Called with selMu held.
func (x *xiListener) reselect() (*xCall, error) {
	var m uint32
	for input, n := range x.wanted {
		if n > 0 {
			m |= input
		}
	}
	if m == x.selected {
		return nil, nil
	}
	c, err := x.wire.send(x.selectReq(m), false, nil)
	if err == nil {
		x.selected = m
	}
	return c, err
}

func (s *xiSource) sync(ctx context.Context) error { return s.x.sync(ctx) }

// close stops passing input to the watch, and stops selecting raw input
// when it was the last watch on.
func (s *xiSource) close() error {
	x := s.x
	x.mu.Lock()
	was := s.closed
	s.closed = true
	delete(x.active, s.w)
	x.mu.Unlock()
	if was {
		return nil
	}
	x.selMu.Lock()
	defer x.selMu.Unlock()
	x.wanted[s.input]--
	// This fails only when the connection has ended, and its selections
	// with it.
	x.reselect()
	return nil
}

// close closes the connection; every watch on trips.
func (x *xiListener) close() error {
	x.mu.Lock()
	x.closed = true
	x.mu.Unlock()
	err := x.wire.close()
	<-x.loopDone
	return err
}

// req is an XInput request of n bytes (a multiple of 4), filled by fill.
func (x *xiListener) req(minor byte, n int, fill func([]byte)) []byte {
	b := make([]byte, n)
	b[0], b[1] = x.op, minor
	if fill != nil {
		fill(b)
	}
	return b
}

// selectReq selects, on the root window for every device, the hierarchy's
// changes and the raw input in input ([xiListener.inputFor]): of key and
// button presses, raw motion and raw touch beginnings, what the watches on
// need. Releases are never selected: a release is never the person's hand
// reaching in (the key or button that approved an act is released while
// it fires), and what is not read cannot be kept.
func (x *xiListener) selectReq(input uint32) []byte {
	mask := uint32(1<<xiHierarchyChanged) | input
	return x.req(xiSelectEvents, 20, func(b []byte) {
		le.PutUint32(b[4:], x.wire.screen.root)
		le.PutUint16(b[8:], 1) // one mask
		le.PutUint16(b[12:], xiAllDevices)
		le.PutUint16(b[14:], 1) // of one 4-byte unit
		le.PutUint32(b[16:], mask)
	})
}

// readDevices reads the device list and, for every device, whether it is
// an XTEST device.
func (x *xiListener) readDevices(ctx context.Context) (map[uint16]*xiDevice, error) {
	r, err := x.wire.call(ctx, x.req(xiQueryDevice, 8, func(b []byte) { le.PutUint16(b[4:], xiAllDevices) }))
	if err != nil {
		return nil, fmt.Errorf("cannot list the input devices: %w", err)
	}
	devices, err := parseDevices(r)
	if err != nil {
		return nil, err
	}
	// One XIGetProperty per device, all sent before the first answer is
	// read: one round trip for the lot.
	calls := make(map[uint16]*xCall, len(devices))
	for id := range devices {
		c, err := x.wire.send(x.req(xiGetProperty, 24, func(b []byte) {
			le.PutUint16(b[4:], id)
			le.PutUint32(b[8:], x.xtest)
			le.PutUint32(b[16:], 0) // offset
			le.PutUint32(b[20:], 1) // one 4-byte unit is plenty for a BOOL
		}), true, nil)
		if err != nil {
			return nil, err
		}
		calls[id] = c
	}
	for id, c := range calls {
		r, err := x.wire.wait(ctx, c)
		var xe *xError
		if errors.As(err, &xe) {
			// The device went between the list and the question; the
			// hierarchy's change that says so is on its way.
			delete(devices, id)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("cannot read the input devices' properties: %w", err)
		}
		devices[id].synthetic = xtestMarked(r)
	}
	return devices, nil
}

// xtestMarked reads an XIGetProperty reply of "XTEST Device": a present,
// non-zero value marks a device whose input is synthetic.
func xtestMarked(r []byte) bool {
	if len(r) < 32 || le.Uint32(r[8:]) == 0 { // type None: no such property
		return false
	}
	n, format := le.Uint32(r[16:]), r[20]
	if n == 0 || format == 0 {
		return false
	}
	size := int(format) / 8
	if len(r) < 32+size {
		return false
	}
	for _, b := range r[32 : 32+size] {
		if b != 0 {
			return true
		}
	}
	return false
}

// parseDevices reads an XIQueryDevice reply.
func parseDevices(r []byte) (map[uint16]*xiDevice, error) {
	short := errors.New("a short XIQueryDevice reply")
	if len(r) < 32 {
		return nil, short
	}
	n := int(le.Uint16(r[8:]))
	out := make(map[uint16]*xiDevice, n)
	off := 32
	for range n {
		if off+12 > len(r) {
			return nil, short
		}
		id, use, attach := le.Uint16(r[off:]), le.Uint16(r[off+2:]), le.Uint16(r[off+4:])
		classes, nameLen := int(le.Uint16(r[off+6:])), int(le.Uint16(r[off+8:]))
		d := &xiDevice{master: attach}
		if use == xiMasterPointer || use == xiMasterKeyboard || use == xiFloatingSlave {
			d.master = id
		}
		off += 12 + nameLen + pad4(nameLen)
		for range classes {
			if off+8 > len(r) {
				return nil, short
			}
			typ, size := le.Uint16(r[off:]), 4*int(le.Uint16(r[off+2:]))
			if size < 8 || off+size > len(r) {
				return nil, short
			}
			c := r[off : off+size]
			switch typ {
			case xiValuatorClass:
				if len(c) >= 44 {
					if num := le.Uint16(c[6:]); num < 2 {
						d.axes[num] = xiAxis{absolute: c[40] == xiModeAbsolute, min: fp3232(c[12:]), max: fp3232(c[20:])}
					}
				}
			case xiScrollClass:
				if num := le.Uint16(c[6:]); num < 64 {
					d.scroll |= 1 << num
				}
			}
			off += size
		}
		out[id] = d
	}
	return out, nil
}

// fp3232 reads a 32.32 fixed-point number.
func fp3232(b []byte) float64 {
	return float64(int32(le.Uint32(b))) + float64(le.Uint32(b[4:]))/(1<<32)
}

// xiQueue hands the reader's items to the watch's loop, unbounded, so that
// the reader never waits on the loop while the loop waits on a reply.
type xiQueue struct {
	mu    sync.Mutex
	items []xItem // guarded by mu
	wake  chan struct{}
}

func newXIQueue() *xiQueue { return &xiQueue{wake: make(chan struct{}, 1)} }

func (q *xiQueue) push(it xItem) {
	q.mu.Lock()
	q.items = append(q.items, it)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// take waits for items and returns them all.
func (q *xiQueue) take() []xItem {
	for {
		q.mu.Lock()
		items := q.items
		q.items = nil
		q.mu.Unlock()
		if len(items) > 0 {
			return items
		}
		<-q.wake
	}
}

// loop looks at every event and ordered answer in stream order, until the
// connection ends.
func (x *xiListener) loop() {
	defer close(x.loopDone)
	ctx := context.Background()
	for {
		for _, it := range x.queue.take() {
			switch {
			case it.end:
				x.ended(it.err)
				return
			case it.call != nil:
				// A marker: everything before it has been looked at.
				it.call.ordered(it.err)
			default:
				x.event(ctx, it.event)
			}
		}
	}
}

// ended trips every watch on: the connection is gone.
func (x *xiListener) ended(err error) {
	x.mu.Lock()
	watches := make([]*Watch, 0, len(x.active))
	for w := range x.active {
		watches = append(watches, w)
	}
	x.active = map[*Watch]*xiWatched{}
	closed := x.closed
	x.mu.Unlock()
	why := fmt.Errorf("%w: the listener lost the X display: %w", ErrNoWatch, err)
	switch {
	case closed:
		why = errHandListenerClosed
	case x.broken != nil:
		why = x.broken
	}
	for _, w := range watches {
		w.fail(why)
	}
}

// watching is the watches on now.
func (x *xiListener) watching() map[*Watch]*xiWatched {
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(x.active) == 0 {
		return nil
	}
	out := make(map[*Watch]*xiWatched, len(x.active))
	for w, st := range x.active {
		out[w] = st
	}
	return out
}

// event looks at one XInput event, for every watch on.
func (x *xiListener) event(ctx context.Context, ev []byte) {
	if len(ev) < 32 || ev[1] != x.op {
		return
	}
	evtype := le.Uint16(ev[8:])
	if evtype == xiHierarchyChanged {
		devices, err := x.readDevices(ctx)
		if err != nil {
			// What the listener knows of the devices is out of date
			// now: nothing can be told apart any more.
			x.broken = fmt.Errorf("%w: cannot follow a change of the input devices: %w", ErrNoWatch, err)
			x.wire.conn.Close()
			return
		}
		x.devices = devices
		return
	}
	device, source := le.Uint16(ev[10:]), le.Uint16(ev[20:])
	if device != source {
		// The same input again, as its master device forwards it.
		return
	}
	watches := x.watching()
	if len(watches) == 0 {
		// Raw input selected for a watch since closed.
		return
	}
	d := x.devices[source]
	if d == nil {
		// Not on the list the last change left: look again, and count
		// a device that is still unknown as the person's.
		if devices, err := x.readDevices(ctx); err == nil {
			x.devices = devices
			d = devices[source]
		}
		if d == nil {
			d = &xiDevice{master: source}
		}
	}
	now := time.Now()
	in := Input{Device: int(source), At: now}
	switch evtype {
	case xiRawKeyPress:
		if le.Uint32(ev[24:])&xiKeyRepeat != 0 {
			return
		}
		// A watch of presses that counts keys keeps that a key was
		// pressed, and by which device; never which key.
		for w := range watches {
			if w.presses && w.keys {
				w.press(Press{Kind: Key, Person: !d.synthetic, Device: int(source), At: now})
			}
		}
		if d.synthetic {
			return
		}
		in.Kind = Key
	case xiRawButtonPress, xiRawTouchBegin:
		if button := le.Uint32(ev[16:]); evtype == xiRawButtonPress && button >= 4 && button <= 7 {
			if d.synthetic {
				return
			}
			in.Kind = Wheel
			break
		}
		p := Press{Kind: Button, Person: !d.synthetic, Device: int(source), At: now}
		if !d.synthetic {
			p.X, p.Y, p.Placed = x.place(ctx, d.master)
		}
		for w := range watches {
			w.press(p)
		}
		if d.synthetic {
			return
		}
		in.Kind = Button
	case xiRawMotion:
		if d.synthetic {
			return
		}
		for w, st := range watches {
			if w.presses {
				continue
			}
			m := st.motion[source]
			if m == nil {
				m = &xiMotion{}
				st.motion[source] = m
			}
			if kind, ok := x.moved(d, m, ev); ok {
				w.saw(Input{Kind: kind, Device: int(source), At: now})
			}
		}
		return
	default:
		return
	}
	for w := range watches {
		if !w.presses {
			w.saw(in)
		}
	}
}

// moved adds a raw motion of d to m, and reports whether that is now the
// person's hand: a scroll, or a pointer carried beyond the threshold.
func (x *xiListener) moved(d *xiDevice, m *xiMotion, ev []byte) (Kind, bool) {
	maskLen := 4 * int(le.Uint16(ev[22:]))
	if 32+maskLen > len(ev) {
		return 0, false
	}
	mask := ev[32 : 32+maskLen]
	values := ev[32+maskLen:]
	size := [2]float64{float64(x.wire.screen.width), float64(x.wire.screen.height)}
	i := 0
	for n := 0; n < 8*len(mask); n++ {
		if mask[n/8]&(1<<(n%8)) == 0 {
			continue
		}
		if 8*i+8 > len(values) {
			break
		}
		v := fp3232(values[8*i:])
		i++
		switch {
		case n < 64 && d.scroll&(1<<n) != 0:
			if v != 0 {
				return Wheel, true
			}
		case n < 2:
			a := d.axes[n]
			if !a.absolute {
				m.moved[n] += v
				continue
			}
			if a.max > a.min {
				v = (v - a.min) / (a.max - a.min) * size[n]
			}
			if !m.hasStart[n] {
				m.start[n], m.hasStart[n] = v, true
			}
			m.moved[n] = v - m.start[n]
		}
	}
	if math.Hypot(m.moved[0], m.moved[1]) >= x.motion {
		return Motion, true
	}
	return 0, false
}

// place is where the pointer of master is, on the root window, right after
// a press.
func (x *xiListener) place(ctx context.Context, master uint16) (int, int, bool) {
	r, err := x.wire.call(ctx, x.req(xiQueryPointer, 12, func(b []byte) {
		le.PutUint32(b[4:], x.wire.screen.root)
		le.PutUint16(b[8:], master)
	}))
	if err != nil || len(r) < 24 {
		return 0, 0, false
	}
	fp1616 := func(b []byte) int { return int(math.Round(float64(int32(le.Uint32(b))) / (1 << 16))) }
	return fp1616(r[16:]), fp1616(r[20:]), true
}

// sync sends a marker that the loop answers once it has looked at every
// event the server sent before it.
func (x *xiListener) sync(ctx context.Context) error {
	done := make(chan error, 1)
	if _, err := x.wire.send(getInputFocusReq(), true, func(err error) { done <- err }); err != nil {
		return fmt.Errorf("%w: the listener lost the X display: %w", ErrNoWatch, err)
	}
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("%w: the listener lost the X display: %w", ErrNoWatch, err)
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-x.loopDone:
		return fmt.Errorf("%w: the listener has stopped", ErrNoWatch)
	}
}
