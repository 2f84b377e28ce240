package executor

import (
	"fmt"
	"time"
	"unicode"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"github.com/reins-app/reins/vocab"
)

// x11KeyPace is how typing paces its keys through XTEST: each key held
// 2 ms, and 2 ms from one key's release to the next key's press.
// Measured (e2e BenchmarkKeyPace): a real Chromium field and a GTK field
// lost none of 300 keys, shifted and repeated ones among them, in three
// runs at every pace down to none at all. The X server stamps events in
// whole milliseconds, and clients take a release and a press of the same
// key stamped alike for the key repeating: twice the smallest pause
// measured (1 ms) keeps a press, its release and the next press in
// milliseconds of their own.
var x11KeyPace = KeyPace{Hold: 2 * time.Millisecond, Gap: 2 * time.Millisecond}

// Keysyms of keys that type no character.
var x11NamedSyms = map[named]xproto.Keysym{
	keyEnter:       0xff0d, // Return
	keyTab:         0xff09,
	keyEscape:      0xff1b,
	keyBackspace:   0xff08,
	keyDelete:      0xffff,
	keyInsert:      0xff63,
	keyHome:        0xff50,
	keyEnd:         0xff57,
	keyPageUp:      0xff55, // Prior
	keyPageDown:    0xff56, // Next
	keyArrowLeft:   0xff51,
	keyArrowUp:     0xff52,
	keyArrowRight:  0xff53,
	keyArrowDown:   0xff54,
	keyCapsLock:    0xffe5,
	keyContextMenu: 0xff67, // Menu
	keyShift:       0xffe1, // Shift_L
	keyControl:     0xffe3, // Control_L
	keyAlt:         0xffe9, // Alt_L
	keyMeta:        0xffeb, // Super_L: what Playwright's Meta is on Linux
}

func x11NamedSym(n named) (xproto.Keysym, bool) {
	if n >= keyF1 && n <= keyF24 {
		return 0xffbe + xproto.Keysym(n-keyF1), true // F1 …
	}
	ks, ok := x11NamedSyms[n]
	return ks, ok
}

// runeKeysym is the keysym that types r: Latin-1 keysyms equal their code
// point; every other character has the Unicode keysym 0x01000000+r.
func runeKeysym(r rune) xproto.Keysym {
	if (r >= 0x20 && r <= 0x7e) || (r >= 0xa0 && r <= 0xff) {
		return xproto.Keysym(r)
	}
	return xproto.Keysym(0x01000000 | r)
}

// keysymRune is the character a keysym types, if it is one of the two
// kinds runeKeysym makes.
func keysymRune(ks xproto.Keysym) (rune, bool) {
	switch {
	case (ks >= 0x20 && ks <= 0x7e) || (ks >= 0xa0 && ks <= 0xff):
		return rune(ks), true
	case ks >= 0x01000100 && ks <= 0x0110ffff:
		return rune(ks & 0x00ffffff), true
	}
	return 0, false
}

// x11Keymap is the server's keycode → keysyms table.
type x11Keymap struct {
	min  xproto.Keycode
	per  int
	syms []xproto.Keysym
	mods map[xproto.Keycode]bool // keycodes that act as modifiers
}

func (x *X11) keymap() (*x11Keymap, error) { return readKeymap(x.conn, x.minCode, x.maxCode) }

func readKeymap(conn *xgb.Conn, minCode, maxCode xproto.Keycode) (*x11Keymap, error) {
	n := int(maxCode) - int(minCode) + 1
	r, err := xproto.GetKeyboardMapping(conn, minCode, byte(n)).Reply()
	if err != nil {
		return nil, fmt.Errorf("cannot read the keyboard mapping: %w", err)
	}
	mm, err := xproto.GetModifierMapping(conn).Reply()
	if err != nil {
		return nil, fmt.Errorf("cannot read the modifier mapping: %w", err)
	}
	km := &x11Keymap{min: minCode, per: int(r.KeysymsPerKeycode), syms: r.Keysyms, mods: map[xproto.Keycode]bool{}}
	for _, c := range mm.Keycodes {
		if c != 0 {
			km.mods[c] = true
		}
	}
	return km, nil
}

func (km *x11Keymap) codes() int {
	if km.per == 0 {
		return 0
	}
	return len(km.syms) / km.per
}

func (km *x11Keymap) raw(i, col int) xproto.Keysym {
	if col >= km.per {
		return 0
	}
	return km.syms[i*km.per+col]
}

// level returns the keysym that keycode index i types without (0) or with
// (1) Shift, by the core protocol's rule for a missing second keysym: a
// letter's second is its capital, anything else repeats the first.
func (km *x11Keymap) level(i, shift int) xproto.Keysym {
	k0, k1 := km.raw(i, 0), km.raw(i, 1)
	if k1 != 0 {
		if shift == 1 {
			return k1
		}
		return k0
	}
	if r, ok := keysymRune(k0); ok {
		lo, up := unicode.ToLower(r), unicode.ToUpper(r)
		if lo != up {
			if shift == 1 {
				return runeKeysym(up)
			}
			return runeKeysym(lo)
		}
	}
	return k0
}

// find returns the keycode that types ks, and whether Shift is needed;
// keycodes that need no Shift are preferred.
func (km *x11Keymap) find(ks xproto.Keysym) (code xproto.Keycode, shift bool, ok bool) {
	for s := range 2 {
		for i := range km.codes() {
			if km.level(i, s) == ks {
				return km.min + xproto.Keycode(i), s == 1, true
			}
		}
	}
	return 0, false, false
}

// capsFlips reports whether Caps Lock swaps what keycode types: for a key
// whose two levels are a letter's two cases (XKB's ALPHABETIC type).
func (km *x11Keymap) capsFlips(code xproto.Keycode) bool {
	i := int(code - km.min)
	r0, ok0 := keysymRune(km.level(i, 0))
	r1, ok1 := keysymRune(km.level(i, 1))
	return ok0 && ok1 && r0 != r1 && unicode.ToUpper(r0) == r1
}

// spares returns keycodes bound to nothing and acting as no modifier, the
// highest first (the least likely to be a physical key).
func (km *x11Keymap) spares() []xproto.Keycode {
	var out []xproto.Keycode
	for i := km.codes() - 1; i >= 0; i-- {
		code := km.min + xproto.Keycode(i)
		if km.mods[code] {
			continue
		}
		free := true
		for col := range km.per {
			if km.raw(i, col) != 0 {
				free = false
				break
			}
		}
		if free {
			out = append(out, code)
		}
	}
	return out
}

// strokes resolves every key of an act to keycodes. Characters the keyboard
// lacks are lent spare keycodes, in rounds when there are more such
// characters than spare keycodes. Typed letters take the Shift that gives
// their case with Caps Lock as it is now.
func (x *X11) strokes(c checked) (*strokes, error) {
	capsLock := false
	if c.act.Kind == vocab.Type {
		ptr, err := xproto.QueryPointer(x.conn, x.root).Reply()
		if err != nil {
			return nil, fmt.Errorf("cannot read the keyboard's state: %w", err)
		}
		capsLock = ptr.Mask&xproto.ModMaskLock != 0
	}
	km, err := x.keymap()
	if err != nil {
		return nil, err
	}
	x.keyPer = km.per
	p := &x11Planner{km: km, lender: &lender{}}
	for _, code := range km.spares() {
		p.lender.spares = append(p.lender.spares, uint16(code))
	}
	k, err := planStrokes(c, func(ch chord, typed bool) (stroke, error) {
		return p.stroke(ch, typed && capsLock)
	})
	if err != nil {
		return nil, err
	}
	k.lendAll(p.lender)
	return k, nil
}

type x11Planner struct {
	km     *x11Keymap
	lender *lender
}

var x11ModSyms = map[mods]xproto.Keysym{
	modShift:   0xffe1, // Shift_L
	modControl: 0xffe3, // Control_L
	modAlt:     0xffe9, // Alt_L
	modMeta:    0xffeb, // Super_L
}

// stroke resolves one chord. In typed text (capsLock says whether Caps Lock
// is on) a letter takes the Shift that gives its case; in a chord a letter
// names its key and Shift is held only when the chord says so.
func (p *x11Planner) stroke(ch chord, capsLock bool) (stroke, error) {
	st := stroke{round: -1}
	var ks xproto.Keysym
	var what string
	if ch.name != keyNone {
		var ok bool
		if ks, ok = x11NamedSym(ch.name); !ok {
			return st, fmt.Errorf("%w: no X keysym for key %d", ErrUnknownKey, ch.name)
		}
		what = fmt.Sprintf("keysym %#x", ks)
	} else {
		ks = runeKeysym(ch.char)
		what = fmt.Sprintf("%q", ch.char)
	}
	m := ch.mods
	code, shift, ok := p.km.find(ks)
	if ok {
		if capsLock && p.km.capsFlips(code) {
			shift = !shift
		}
		if shift {
			m |= modShift
		}
		st.key.code = uint16(code)
	} else {
		lent, round, ok := p.lender.lend(uint32(ks))
		if !ok {
			return st, fmt.Errorf("%w: the keyboard has no key for %s and no spare keycode to lend it", ErrUnknownKey, what)
		}
		st.key.code, st.round = lent, round
	}
	for _, mod := range modOrder {
		if m&mod == 0 {
			continue
		}
		code, _, ok := p.km.find(x11ModSyms[mod])
		if !ok {
			return st, fmt.Errorf("%w: this keyboard has no %s key", ErrUnknownKey, mod)
		}
		st.mods = append(st.mods, key{code: uint16(code), mod: mod})
	}
	return st, nil
}

// lend binds a spare keycode to its keysym, on both levels, so that Shift
// held for another reason changes nothing.
func (x *X11) lend(l loan) error {
	syms := make([]xproto.Keysym, x.keyPer)
	syms[0] = xproto.Keysym(l.sym)
	if x.keyPer > 1 {
		syms[1] = xproto.Keysym(l.sym)
	}
	// Recorded first: a Reins and release guard that both die in between
	// leave the next Reins a code to give back, not a character bound.
	x.recordLent(uint16(l.code), true)
	if err := xproto.ChangeKeyboardMappingChecked(x.conn, 1, xproto.Keycode(l.code), byte(x.keyPer), syms).Check(); err != nil {
		return fmt.Errorf("cannot lend keycode %d a character: %w", l.code, err)
	}
	return nil
}

// giveBack gives a lent keycode back its emptiness.
func (x *X11) giveBack(code uint16) error {
	empty := make([]xproto.Keysym, x.keyPer)
	if err := xproto.ChangeKeyboardMappingChecked(x.conn, 1, xproto.Keycode(code), byte(x.keyPer), empty).Check(); err != nil {
		return fmt.Errorf("cannot give back keycode %d: %w", code, err)
	}
	x.recordLent(code, false)
	return nil
}
