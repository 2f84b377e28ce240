package executor

import (
	"fmt"
	"time"
	"unicode"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"github.com/reins-app/reins/vocab"
)

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

// x11Stroke is one key press with the modifier keys held around it.
type x11Stroke struct {
	mods  []xproto.Keycode
	code  xproto.Keycode
	round int // the binding round the key needs, or -1 when it is on the keyboard
}

// x11Binding gives a spare keycode a keysym for a while.
type x11Binding struct {
	code xproto.Keycode
	sym  xproto.Keysym
}

// x11Keys is an act's keys resolved to keycodes before anything fires.
// Characters the keyboard lacks are bound to spare keycodes, in rounds when
// there are more such characters than spare keycodes.
type x11Keys struct {
	chord  x11Stroke
	clear  []x11Stroke
	text   []x11Stroke
	submit *x11Stroke
	rounds [][]x11Binding
	per    int              // keysyms per keycode, for ChangeKeyboardMapping
	used   []xproto.Keycode // every spare bound in any round: round 0 takes them all before a round 1 opens
}

// planKeys resolves every key of an act, or says which one does not exist.
func (x *X11) planKeys(c checked, capsLock bool) (*x11Keys, error) {
	km, err := x.keymap()
	if err != nil {
		return nil, err
	}
	p := &x11Planner{km: km, spares: km.spares(), keys: &x11Keys{per: km.per}}
	switch c.act.Kind {
	case vocab.Key:
		if p.keys.chord, err = p.stroke(c.chord, false); err != nil {
			return nil, err
		}
	case vocab.Type:
		for _, ch := range c.clear {
			st, err := p.stroke(ch, false)
			if err != nil {
				return nil, err
			}
			p.keys.clear = append(p.keys.clear, st)
		}
		for _, ch := range c.keys {
			st, err := p.stroke(ch, capsLock)
			if err != nil {
				return nil, err
			}
			p.keys.text = append(p.keys.text, st)
		}
		if c.submit != nil {
			st, err := p.stroke(*c.submit, false)
			if err != nil {
				return nil, err
			}
			p.keys.submit = &st
		}
	}
	return p.keys, nil
}

type x11Planner struct {
	km     *x11Keymap
	spares []xproto.Keycode
	keys   *x11Keys
}

var x11ModSyms = map[mods]xproto.Keysym{
	modShift:   0xffe1, // Shift_L
	modControl: 0xffe3, // Control_L
	modAlt:     0xffe9, // Alt_L
	modMeta:    0xffeb, // Super_L
}

var modLabels = map[mods]string{modShift: "Shift", modControl: "Control", modAlt: "Alt", modMeta: "Meta"}

// stroke resolves one chord. In typed text (capsLock says whether Caps Lock
// is on) a letter takes the Shift that gives its case; in a chord a letter
// names its key and Shift is held only when the chord says so.
func (p *x11Planner) stroke(ch chord, capsLock bool) (x11Stroke, error) {
	st := x11Stroke{round: -1}
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
		st.code = code
	} else {
		var err error
		if st.code, st.round, err = p.bind(ks, what); err != nil {
			return st, err
		}
	}
	for _, mod := range modOrder {
		if m&mod == 0 {
			continue
		}
		code, _, ok := p.km.find(x11ModSyms[mod])
		if !ok {
			return st, fmt.Errorf("%w: this keyboard has no %s key", ErrUnknownKey, modLabels[mod])
		}
		st.mods = append(st.mods, code)
	}
	return st, nil
}

// bind finds ks a spare keycode in the latest round, opening a new round
// when that one is full.
func (p *x11Planner) bind(ks xproto.Keysym, what string) (xproto.Keycode, int, error) {
	if len(p.spares) == 0 {
		return 0, 0, fmt.Errorf("%w: the keyboard has no key for %s and no spare keycode to lend it", ErrUnknownKey, what)
	}
	k := p.keys
	if n := len(k.rounds); n > 0 {
		for _, b := range k.rounds[n-1] {
			if b.sym == ks {
				return b.code, n - 1, nil
			}
		}
	}
	if n := len(k.rounds); n == 0 || len(k.rounds[n-1]) == len(p.spares) {
		k.rounds = append(k.rounds, nil)
	}
	r := len(k.rounds) - 1
	code := p.spares[len(k.rounds[r])]
	k.rounds[r] = append(k.rounds[r], x11Binding{code, ks})
	if r == 0 {
		k.used = append(k.used, code)
	}
	return code, r, nil
}

// remap binds round r's keysyms and gives clients time to notice.
func (in *x11Input) remap(r int) error {
	k := in.keys
	// Marked first, so that a failure half-way still restores.
	in.round = r
	for _, b := range k.rounds[r] {
		syms := make([]xproto.Keysym, k.per)
		// Both levels, so that Shift held for another reason changes nothing.
		syms[0] = b.sym
		if k.per > 1 {
			syms[1] = b.sym
		}
		if err := xproto.ChangeKeyboardMappingChecked(in.x.conn, 1, b.code, byte(k.per), syms).Check(); err != nil {
			return fmt.Errorf("cannot lend keycode %d a character: %w", b.code, err)
		}
	}
	return in.sleep(x11RemapWait)
}

// restore gives the spare keycodes back their emptiness. It runs even when
// the act's context has ended.
func (k *x11Keys) restore(x *X11) {
	if len(k.used) == 0 {
		return
	}
	time.Sleep(x11RemapWait)
	empty := make([]xproto.Keysym, k.per)
	for _, code := range k.used {
		_ = xproto.ChangeKeyboardMappingChecked(x.conn, 1, code, byte(k.per), empty).Check()
	}
}
