package executor

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"
)

// guardBackend is the X display the release guard lets go on.
func guardBackend(display string) (backend, func() error, error) {
	x, err := NewX11(X11Options{Display: display})
	if err != nil {
		return nil, nil, err
	}
	// Giving a key code back writes as many keysyms as the keyboard has
	// per key code.
	km, err := x.keymap()
	if err != nil {
		x.Close()
		return nil, nil, err
	}
	x.keyPer = km.per
	return x, x.Close, nil
}

// x11ButtonMasks are the pointer's state bits of buttons 1 to 5.
var x11ButtonMasks = [...]uint16{xproto.ButtonMask1, xproto.ButtonMask2, xproto.ButtonMask3, xproto.ButtonMask4, xproto.ButtonMask5}

// letGoOfLeftovers releases, through XTEST, every key and button the
// server holds down. XTEST's device has its own key and button state, and
// the server drops a release of what that device does not hold: a key the
// person holds on their own keyboard stays down.
func (x *X11) letGoOfLeftovers() ([]string, error) {
	x.seq.mu.Lock()
	defer x.seq.mu.Unlock()
	if x.isClosed() {
		return nil, errClosed
	}
	km, err := xproto.QueryKeymap(x.conn).Reply()
	if err != nil {
		return nil, fmt.Errorf("cannot read which keys are down: %w", err)
	}
	ptr, err := xproto.QueryPointer(x.conn, x.root).Reply()
	if err != nil {
		return nil, fmt.Errorf("cannot read which buttons are down: %w", err)
	}
	var done []string
	var errs []error
	for i, bits := range km.Keys {
		for bit := range 8 {
			if bits&(1<<bit) == 0 {
				continue
			}
			code := byte(i*8 + bit)
			if err := xtest.FakeInputChecked(x.conn, xproto.KeyRelease, code, 0, x.root, 0, 0, 0).Check(); err != nil {
				errs = append(errs, fmt.Errorf("key %d may still be down: %w", code, err))
				continue
			}
			done = append(done, fmt.Sprintf("key %d", code))
		}
	}
	for i, mask := range x11ButtonMasks {
		if ptr.Mask&mask == 0 {
			continue
		}
		if err := xtest.FakeInputChecked(x.conn, xproto.ButtonRelease, byte(i+1), 0, x.root, 0, 0, 0).Check(); err != nil {
			errs = append(errs, fmt.Errorf("button %d may still be down: %w", i+1, err))
			continue
		}
		done = append(done, fmt.Sprintf("button %d", i+1))
	}
	lent, err := x.giveBackDeadLoans()
	if err != nil {
		errs = append(errs, err)
	}
	return append(done, lent...), errors.Join(errs...)
}

// lentPrefix begins the name of the root window property in which a Reins
// records the key codes it has lent, followed by its pid: a Reins and its
// release guard killed together leave the next Reins that record, on the
// display itself, to give the codes back.
const lentPrefix = "_REINS_LENT_KEYCODES_"

// lentRecord is this process's record of its lent key codes.
type lentRecord struct {
	atom  xproto.Atom
	codes []uint16
}

// recordLent notes on the display that code is lent now, or no longer.
// Best effort: the release guard gives lent codes back too, and a record
// that could not be written costs only the case where both die.
func (x *X11) recordLent(code uint16, lent bool) {
	r := &x.lent
	if lent == slices.Contains(r.codes, code) {
		return
	}
	if lent {
		r.codes = append(r.codes, code)
	} else {
		r.codes = slices.DeleteFunc(r.codes, func(c uint16) bool { return c == code })
	}
	if r.atom == 0 {
		name := lentPrefix + strconv.Itoa(os.Getpid())
		reply, err := xproto.InternAtom(x.conn, false, uint16(len(name)), name).Reply()
		if err != nil {
			return
		}
		r.atom = reply.Atom
	}
	if len(r.codes) == 0 {
		xproto.DeleteProperty(x.conn, x.root, r.atom)
		return
	}
	data := make([]byte, 0, 4*len(r.codes))
	for _, c := range r.codes {
		data = binary.LittleEndian.AppendUint32(data, uint32(c))
	}
	xproto.ChangeProperty(x.conn, xproto.PropModeReplace, x.root, r.atom, xproto.AtomCardinal, 32, uint32(len(r.codes)), data)
}

// giveBackDeadLoans gives back the key codes that Reins processes no
// longer running recorded as lent and that still type something, and
// drops their records.
func (x *X11) giveBackDeadLoans() ([]string, error) {
	props, err := xproto.ListProperties(x.conn, x.root).Reply()
	if err != nil {
		return nil, fmt.Errorf("cannot read the key codes a stopped Reins lent: %w", err)
	}
	var done []string
	var errs []error
	for _, atom := range props.Atoms {
		name, err := xproto.GetAtomName(x.conn, atom).Reply()
		if err != nil || !strings.HasPrefix(name.Name, lentPrefix) {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimPrefix(name.Name, lentPrefix))
		if err != nil || pid == os.Getpid() || running(pid) {
			continue // not a record, this Reins' own, or a Reins still running
		}
		prop, err := xproto.GetProperty(x.conn, true, x.root, atom, xproto.AtomCardinal, 0, 1024).Reply()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		km, err := x.keymap()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		x.keyPer = km.per
		for i := 0; i+4 <= len(prop.Value) && prop.Format == 32; i += 4 {
			code := uint16(binary.LittleEndian.Uint32(prop.Value[i:]))
			if xproto.Keycode(code) < km.min || int(code-uint16(km.min)) >= km.codes() || km.raw(int(code-uint16(km.min)), 0) == 0 {
				continue // off the keyboard, or given back already (by its release guard)
			}
			if err := x.giveBack(code); err != nil {
				errs = append(errs, err)
				continue
			}
			done = append(done, press{kind: pressLent, code: code}.String())
		}
	}
	return done, errors.Join(errs...)
}

// running reports whether process pid runs: it exists and has not
// exited (a killed process whose parent has not yet reaped it is dead).
func running(pid int) bool {
	if syscall.Kill(pid, 0) == syscall.ESRCH {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // it exists, but cannot be looked at: count it as running
	}
	// The state follows the command's name, which is in parentheses.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) == 0 || (f[0] != "Z" && f[0] != "X")
}

func (x *X11) guarded() *sequence { return &x.seq }
