package executor

import (
	"context"
	"errors"
	"fmt"
	"github.com/reins-app/reins/executor/hand"
	"slices"
	"sync"
	"time"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/denylist"
	"github.com/reins-app/reins/vocab"
)

// sequence is how every executor fires an act, over its backend. Its zero
// value is ready to use.
type sequence struct {
	mu        sync.Mutex // one act at a time
	own       time.Time  // guarded by mu: when the last act's last event was sent
	stillLent []uint16   // guarded by mu: key codes an act could not give back
	// guard, when set, is told of every key and button the sequence holds
	// down and every key code it lends, so that they are let go of if Reins
	// dies (deadman.go). Set before the first act.
	guard guard

	closedMu sync.Mutex
	closed   bool // guarded by closedMu
}

func (s *sequence) isClosed() bool {
	s.closedMu.Lock()
	defer s.closedMu.Unlock()
	return s.closed
}

// close makes every later act fail, waits for an act in flight to stop at
// its next event and let go of what it holds, gives back any key code
// still lent, then runs release (which may be nil). Only the first call
// does anything.
func (s *sequence) close(b backend, release func() error) error {
	s.closedMu.Lock()
	if s.closed {
		s.closedMu.Unlock()
		return nil
	}
	s.closed = true
	s.closedMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	if len(s.stillLent) > 0 {
		errs = append(errs, s.giveBack(b, nil))
	}
	if release != nil {
		errs = append(errs, release())
	}
	if s.guard != nil {
		errs = append(errs, s.guard.Close())
	}
	return errors.Join(errs...)
}

// lastInput is when the person last used the mouse or keyboard, or the
// zero time when the latest input was an act's own. It waits for an act in
// flight, whose events are not the person's either.
func (s *sequence) lastInput(b backend) (time.Time, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.isClosed() {
		return time.Time{}, errClosed
	}
	in, err := b.lastInput()
	if err != nil {
		return time.Time{}, err
	}
	return in.person(s.own), nil
}

// lastChecks are the checks right before an act's first event, with s.mu
// held: the person has left the mouse and keyboard alone since the act's
// quiet began, and the pointer is where Reins can put it back. A recording
// backend is told the act fires. It returns the pointer's place, whether it
// goes back there, and the recorder, if b is one.
func (s *sequence) lastChecks(ctx context.Context, b backend, t audit.Ticket) (home point, back bool, w recorder, err error) {
	seen, err := b.lastInput()
	if err != nil {
		return point{}, false, nil, err
	}
	if err := personCheck(seen, s.own, quietFrom(t)); err != nil {
		return point{}, false, nil, err
	}
	if home, back, err = b.pointer(); err != nil {
		return point{}, false, nil, err
	}
	w, _ = b.(recorder)
	if w != nil {
		if err := w.firing(ctx, t); err != nil {
			return point{}, false, nil, err
		}
	}
	return home, back, w, nil
}

// begin readies an act to fire, with s.mu held: the sequence open, ctx
// live, keys and buttons an earlier act lent given back, the backend and
// the guard ready.
func (s *sequence) begin(ctx context.Context, b backend) error {
	if s.isClosed() {
		return errClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(s.stillLent) > 0 {
		// Told to the act that lent them; they stay listed until given back.
		_ = s.giveBack(b, nil)
	}
	if err := b.ready(); err != nil {
		return err
	}
	if s.guard != nil {
		if err := s.guard.ready(); err != nil {
			return err
		}
	}
	return nil
}

// fire performs t's act on b. For every act: check the ticket; find every
// point on a screen; resolve every key (nothing fires on an unknown key)
// and lend spare key codes to characters the keyboard lacks; check the
// deny list; check that the person has been still since the act's quiet
// moment; fire, checking the frontmost application again before every
// typed key, and, for a tab's act whose plan names the tab's window, that
// the keyboard focus is in that window before every key and that it is
// the window under the point before every button and wheel event; let go
// of anything still held and give back lent key codes, even when the act
// stops part-way; and, once it is done, put the pointer back where the
// person had it (all but Hover).
func (s *sequence) fire(ctx context.Context, b backend, t audit.Ticket) (err error) {
	c, err := check(t)
	if err != nil {
		return err
	}
	if c, err = stepped(ctx, c); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.begin(ctx, b); err != nil {
		return err
	}
	pts, err := b.toDevice(c.points, scale(c.landing.Scale))
	if err != nil {
		return err
	}
	keys := &strokes{}
	if c.act.Kind == vocab.Key || c.act.Kind == vocab.Type {
		if keys, err = b.strokes(c); err != nil {
			return err
		}
	}

	a := s.open(ctx, b, keys)
	defer a.close(&err)
	a.desktop = c.desktop
	if !c.desktop {
		a.tab = c.landing.Window
	}
	if len(keys.loans) > 0 {
		// Before the deny check, because lending waits for clients to
		// catch up, and the check belongs right before the first event.
		if err := a.lend(0); err != nil {
			return err
		}
	}
	if err := denyCheck(ctx, b, c.points, pts, c.desktop); err != nil {
		return err
	}
	// The person's hand is watched from before the last look at their
	// input to the act's last event.
	hw, err := b.watchHand(ctx)
	if err != nil {
		return err
	}
	defer a.watched(hw)()
	home, back, w, err := s.lastChecks(ctx, b, t)
	if err != nil {
		return err
	}
	if a.witness != nil && len(pts) > 0 && len(c.points) > 0 {
		a.aim = c.points[0]
		if home == pts[0] {
			// No event shows a page a pointer that does not move.
			if err := a.move(point{pts[0].X + 1, pts[0].Y}); err != nil {
				return err
			}
		}
	}
	if err := a.perform(c, pts); err != nil {
		if errors.Is(err, ErrNotThere) && back {
			// Back even when the act's context ended (a pause, say): the
			// pointer is the person's. Only a closed sequence sends nothing.
			if merr := a.putBack(home); merr != nil {
				return errors.Join(err, fmt.Errorf("%w: %w", ErrPointerNotBack, merr))
			}
		}
		return err
	}
	if returnsPointer(c.act.Kind) && len(pts) > 0 && back {
		if err := a.move(home); err != nil {
			return fmt.Errorf("the act was done, but the pointer could not be put back: %w", err)
		}
	}
	if w != nil {
		w.fired(t)
	}
	return nil
}

// afterStop adds to an act's outcome what went wrong letting go.
func afterStop(err, ferr error) error {
	if err == nil {
		return fmt.Errorf("the act was done, but %w", ferr)
	}
	return fmt.Errorf("%w; and then %w", err, ferr)
}

// giveBack gives back codes and those an earlier act could not. What still
// fails stays listed, to be tried before the next act and at close: a lent
// key code goes on typing its character for whoever presses it.
func (s *sequence) giveBack(b backend, codes []uint16) error {
	todo := append(append([]uint16(nil), s.stillLent...), codes...)
	s.stillLent = nil
	var errs []error
	for _, code := range todo {
		if err := b.giveBack(code); err != nil {
			s.stillLent = append(s.stillLent, code)
			errs = append(errs, err)
			continue
		}
		s.letGo(press{kind: pressLent, code: code})
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("key codes %v still type the characters lent to them; Reins tries again before its next act and when it closes: %w",
		s.stillLent, errors.Join(errs...))
}

// pressing tells the guard of h before it is pressed; an error stops the act.
func (s *sequence) pressing(h press) error {
	if s.guard == nil {
		return nil
	}
	return s.guard.pressing(h)
}

// letGo tells the guard h is no longer pressed.
func (s *sequence) letGo(h press) {
	if s.guard != nil {
		s.guard.letGo(h)
	}
}

// open starts an act on b that types keys; close it, deferred, with the
// act's error.
func (s *sequence) open(ctx context.Context, b backend, keys *strokes) *act {
	tr := b.traits()
	pace, ok := ctx.Value(paceKey{}).(KeyPace)
	if !ok {
		pace = tr.keys
	}
	return &act{s: s, b: b, ctx: ctx, tr: tr, keys: keys, pace: pace, round: -1, witness: witnessOf(ctx)}
}

// close lets go of all the act holds and gives back what it lent, adding
// what goes wrong there to *err, and notes when its own input was last
// sent, so that it is not taken for the person's.
func (a *act) close(err *error) {
	if ferr := a.finish(); ferr != nil {
		*err = afterStop(*err, ferr)
	}
	if a.sent {
		a.s.own = time.Now().Add(a.tr.postLag)
	}
}

// act is one act under way: what it holds, so that it can let go.
type act struct {
	s    *sequence
	b    backend
	ctx  context.Context
	tr   traits
	keys *strokes
	pace KeyPace // how typed keys are paced
	// round is the lending round in place, or -1.
	round int
	// witness, when set, is asked before the first press at aim, the act's
	// point in DIP.
	witness Witness
	aim     point
	asked   bool // the witness has been asked

	at      point    // where the pointer was last sent
	buttons []button // pressed, in press order
	pressed []key    // pressed, in press order
	mods    mods     // modifiers pressed
	sent    bool     // an event was sent
	count   int      // events sent
	// desktop: a desktop act, whose keys stop when a web browser comes to
	// the front (for typing by point, once the click has put the focus).
	desktop bool
	// tab is, for a tab's act, the window that shows the tab (the plan's),
	// which its keys and buttons must land in; 0 for none.
	tab uint64
	// downAt is where the left button last went down, inside the tab's
	// window; strayed says a button is pressed over another window, so that
	// it is let go of back at downAt, where a drop lands on the page.
	downAt  point
	strayed bool
	// hand is the watch on the person's hand while the act fires
	// (handact.go); nil before it begins.
	hand *hand.Watch
	// sentAt is when the last event was sent, hadAt when post returned
	// (the desktop had it); upSent and upHad are those of the last typed
	// key's release.
	sentAt, hadAt, upSent, upHad time.Time
}

func (a *act) send(e event) error {
	a.sentAt = time.Now()
	defer func() { a.hadAt = time.Now() }()
	err := a.b.post(e)
	if !errors.Is(err, errNoEvent) {
		a.sent = true
		a.count++
	}
	return err
}

// sendIn sends e once check passes, right before it. Between the two, one
// round trip to the display, another program may still move the focus or
// a window: holding the display still meanwhile (an X server grab) would
// freeze the whole desktop for as long as Reins is stopped, and leave the
// release guard unable to let go of what it holds.
func (a *act) sendIn(check func() error, e event) error {
	if err := a.handCheck(); err != nil {
		return err
	}
	if err := check(); err != nil {
		return err
	}
	return a.send(e)
}

func (a *act) wait(d time.Duration) error {
	if err := a.b.wait(a.ctx, d); err != nil {
		return a.stoppedByHand(err)
	}
	return nil
}

// alive says whether the act may send its next event.
func (a *act) alive() error {
	if a.s.isClosed() {
		return errClosed
	}
	if a.hand != nil {
		if err := a.hand.Err(); err != nil {
			return a.stoppedByHand(err)
		}
	}
	return a.ctx.Err()
}

func (a *act) perform(c checked, pts []point) error {
	switch c.act.Kind {
	case vocab.Hover:
		return a.move(pts[0])
	case vocab.Click:
		return a.click(pts[0], leftButton, 1)
	case vocab.DoubleClick:
		return a.click(pts[0], leftButton, 2)
	case vocab.RightClick:
		return a.click(pts[0], rightButton, 1)
	case vocab.Scroll:
		return a.scroll(pts[0], c.act.DX, c.act.DY)
	case vocab.Drag:
		return a.drag(pts[0], pts[1])
	case vocab.Key:
		return a.stroke(a.keys.chord)
	case vocab.Type:
		if len(pts) > 0 {
			if err := a.click(pts[0], leftButton, 1); err != nil {
				return err
			}
			if err := a.awaitFocus(); err != nil {
				return err
			}
		}
		// The click may have brought something else to the front: the
		// clearing chord is checked as every typed key is.
		for _, st := range a.keys.clear {
			if err := a.frontStillAllowed(0, len(a.keys.text)); err != nil {
				return err
			}
			if err := a.stroke(st); err != nil {
				return err
			}
		}
		// The clearing may have brought something else to the front, and
		// so may anything while the text is typed.
		text := a.keys.text
		for i, st := range text {
			if i > 0 {
				if err := a.keyGap(); err != nil {
					return err
				}
			}
			if err := a.frontStillAllowed(i, len(text)); err != nil {
				return err
			}
			if err := a.typedKey(st); err != nil {
				return err
			}
		}
		if a.keys.submit != nil {
			if err := a.keyGap(); err != nil {
				return err
			}
			if err := a.frontStillAllowed(len(text), len(text)); err != nil {
				return err
			}
			return a.typedKey(*a.keys.submit)
		}
		return nil
	}
	return fmt.Errorf("%w: %q", ErrUnsupported, c.act.Kind)
}

// awaitFocus waits, after the click that focuses a field, until the
// field's page says the focus is there, at most focusWait; without a page
// to ask, or one that cannot tell, the whole of focusWait.
func (a *act) awaitFocus() error {
	w := focusWitnessOf(a.ctx)
	if w == nil {
		return a.wait(focusWait)
	}
	start := time.Now()
	if _, err := w(a.ctx, focusWait); err != nil {
		if err := a.alive(); err != nil {
			return err
		}
		if left := focusWait - time.Since(start); left > 0 {
			return a.wait(left)
		}
	}
	return a.alive()
}

// keyGap is the pause between two typed keys, if the pace has one.
func (a *act) keyGap() error {
	return a.pause(a.upSent, a.upHad, a.pace.Gap)
}

// frontStillAllowed stops typing when a deny-listed application has come to
// the front since the act began (a password manager's prompt, say), or one
// of Reins' own windows, or, for a desktop act, a web browser.
func (a *act) frontStillAllowed(done, total int) error {
	app, err := a.b.frontmost(a.ctx)
	if err != nil {
		return fmt.Errorf("typing stopped after %d of %d keys: cannot tell which application is in front: %w", done, total, err)
	}
	if rule, ok := a.b.denyList().RuleFor(app); ok {
		if len(rule.PIDs) > 0 {
			return fmt.Errorf("%w: %s came to the front; typing stopped after %d of %d keys", ErrOwnWindow, app.Name, done, total)
		}
		return fmt.Errorf("%w: %s came to the front (deny list: %s); typing stopped after %d of %d keys", ErrDenyListed, app.Name, rule.Label, done, total)
	}
	if _, ok := denylist.Browsers.RuleFor(app); ok && a.desktop {
		return fmt.Errorf("%w: %s came to the front; typing stopped after %d of %d keys", ErrBrowser, app.Name, done, total)
	}
	return nil
}

func (a *act) move(to point) error { return a.pointer(moveTo, to) }

// putBack sends the pointer home whether or not the act's context has
// ended; not once the sequence is closed.
func (a *act) putBack(home point) error {
	if a.s.isClosed() {
		return errClosed
	}
	if err := a.send(event{kind: moveTo, at: home}); err != nil {
		return err
	}
	a.at = home
	return nil
}

// arrive moves the pointer to at and lets it settle there; the first
// time, with a witness, it asks the witness instead whether the pointer is
// over the target: its yes means the page has seen the pointer arrive,
// which is what the wait stands for.
func (a *act) arrive(at point) error {
	if err := a.move(at); err != nil {
		return err
	}
	if a.witness == nil || a.asked {
		return a.wait(settleWait)
	}
	a.asked = true
	if err := a.witness(a.ctx, a.aim.X, a.aim.Y); err != nil {
		return fmt.Errorf("%w: %w", ErrNotThere, err)
	}
	return a.alive()
}

func (a *act) dragTo(to point) error { return a.pointer(dragTo, to) }

// pointer sends the pointer to to, by a move or a drag.
func (a *act) pointer(kind eventKind, to point) error {
	if err := a.alive(); err != nil {
		return err
	}
	if err := a.send(event{kind: kind, at: to}); err != nil {
		return err
	}
	a.at = to
	return nil
}

func (a *act) buttonDown(b button, clicks int) error {
	if err := a.alive(); err != nil {
		return err
	}
	if err := a.s.pressing(pressedButton(b)); err != nil {
		return err
	}
	what := "the press"
	if b >= wheelUp {
		what = "the wheel"
	}
	at, before := a.at, a.count
	if err := a.sendIn(func() error { return a.pointerInTab(at, what) }, event{kind: buttonDown, button: b, at: at, clicks: clicks}); err != nil {
		if a.count == before {
			a.s.letGo(pressedButton(b)) // never went down
		}
		return err
	}
	if b < wheelUp {
		a.downAt = at
	}
	a.buttons = append(a.buttons, b)
	return nil
}

// buttonUp lets go of b where the pointer is: a wheel notch's at once, any
// other button only over the tab's window, else it stays pressed for finish.
func (a *act) buttonUp(b button, clicks int) error {
	e := event{kind: buttonUp, button: b, at: a.at, clicks: clicks}
	var err error
	before := a.count
	if b >= wheelUp {
		err = a.send(e)
	} else {
		err = a.sendIn(func() error { return a.pointerInTab(e.at, "the release") }, e)
	}
	if err != nil && a.count == before {
		return err // not let go of: still pressed, for finish
	}
	a.buttons = remove(a.buttons, b)
	if err != nil {
		return err
	}
	a.s.letGo(pressedButton(b))
	return nil
}

func pressedButton(b button) press { return press{kind: pressButton, code: uint16(b)} }

func pressedKey(k key) press { return press{kind: pressKey, code: k.code} }

// press is one click of b; clicks says which of a double click it is.
func (a *act) press(b button, clicks int) error {
	if err := a.buttonDown(b, clicks); err != nil {
		return err
	}
	if err := a.wait(buttonHold); err != nil {
		return err
	}
	return a.buttonUp(b, clicks)
}

func (a *act) click(at point, b button, times int) error {
	if err := a.arrive(at); err != nil {
		return err
	}
	for i := 1; i <= times; i++ {
		if i > 1 {
			if err := a.wait(doubleGap); err != nil {
				return err
			}
		}
		if err := a.press(b, i); err != nil {
			return err
		}
	}
	return nil
}

// scroll turns the wheel dy notches down (up when negative), then dx
// notches right (left when negative).
func (a *act) scroll(at point, dx, dy int) error {
	if err := a.arrive(at); err != nil {
		return err
	}
	notches := func(n int, vertical bool) error {
		sign := 1
		if n < 0 {
			sign, n = -1, -n
		}
		for range n {
			if err := a.notch(vertical, sign); err != nil {
				return err
			}
			if err := a.wait(wheelGap); err != nil {
				return err
			}
		}
		return nil
	}
	if err := notches(dy, true); err != nil {
		return err
	}
	return notches(dx, false)
}

func (a *act) notch(vertical bool, sign int) error {
	if a.tr.wheelButtons {
		return a.press(wheelButton(vertical, sign), 1)
	}
	if err := a.alive(); err != nil {
		return err
	}
	e := event{kind: wheel, dx: sign, at: a.at}
	if vertical {
		e = event{kind: wheel, dy: sign, at: a.at}
	}
	return a.sendIn(func() error { return a.pointerInTab(e.at, "the wheel") }, e)
}

// drag presses at from, moves in steps so that pages see a drag start
// rather than a jump, and releases at to.
func (a *act) drag(from, to point) error {
	if err := a.arrive(from); err != nil {
		return err
	}
	// Its end is the page's before anything is pressed, and again before
	// the release.
	if err := a.pointerInTab(to, "the drag's end"); err != nil {
		return err
	}
	if err := a.buttonDown(leftButton, 1); err != nil {
		return err
	}
	for i := 1; i <= dragSteps; i++ {
		if err := a.wait(stepGap); err != nil {
			return err
		}
		if err := a.dragTo(point{lerp(from.X, to.X, i, dragSteps), lerp(from.Y, to.Y, i, dragSteps)}); err != nil {
			return err
		}
	}
	if err := a.wait(settleWait); err != nil {
		return err
	}
	return a.buttonUp(leftButton, 1)
}

// stroke is a key or chord of its own (a key act's, the chord that clears
// a field), held keyHold.
func (a *act) stroke(st stroke) error { return a.strokeHeld(st, keyHold) }

// typedKey is one key of typed text, held as the pace says.
func (a *act) typedKey(st stroke) error { return a.strokeHeld(st, a.pace.Hold) }

// strokeHeld holds the modifiers, presses the key, waits hold and lets go
// in reverse order, lending the key's code first when it needs another
// round. The hold counts from when the key was sent.
func (a *act) strokeHeld(st stroke, hold time.Duration) error {
	if st.round >= 0 && st.round != a.round {
		if err := a.lend(st.round); err != nil {
			return err
		}
	}
	if err := a.keysDown(append(slices.Clone(st.mods), st.key)); err != nil {
		return err
	}
	if err := a.pause(a.sentAt, a.hadAt, hold); err != nil {
		return err
	}
	ups := []key{st.key}
	for i := len(st.mods) - 1; i >= 0; i-- {
		ups = append(ups, st.mods[i])
	}
	if err := a.keysUp(ups); err != nil {
		return err
	}
	a.upSent, a.upHad = a.sentAt, a.hadAt
	return nil
}

// pause waits d from when an event was sent, and at least serverTick (d,
// when shorter) after the desktop had it: the wait starts once post has
// returned, so the event's own round trip counts towards d.
func (a *act) pause(sent, had time.Time, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	took := had.Sub(sent).Truncate(tookGrain)
	return a.wait(max(d-took, min(d, serverTick)))
}

// keysDown presses ks in order, one chord: the checks that come before
// every key (the person's hand, the focus in the tab's window) run once,
// right before the first, and the presses go out together, the desktop
// answering once for all of them.
func (a *act) keysDown(ks []key) error {
	es := make([]event, len(ks))
	for i, k := range ks {
		a.mods |= k.mod
		es[i] = event{kind: keyDown, key: k, mods: a.mods}
	}
	if err := a.alive(); err != nil {
		return err
	}
	for i, k := range ks {
		if err := a.s.pressing(pressedKey(k)); err != nil {
			a.neverDown(ks[:i])
			return err
		}
	}
	if err := a.handCheck(); err != nil {
		a.neverDown(ks)
		return err
	}
	if err := a.keysInTab(); err != nil {
		a.neverDown(ks)
		return err
	}
	// Any of them may have gone down, whatever the answer: finish lets go.
	a.pressed = append(a.pressed, ks...)
	before := a.count
	if err := a.sendAll(es); err != nil {
		return fmt.Errorf("a key could not be sent, so the act stopped after %s: %w", inputEvents(before), err)
	}
	return nil
}

// neverDown tells the guard that ks were not pressed after all.
func (a *act) neverDown(ks []key) {
	for _, k := range ks {
		a.s.letGo(pressedKey(k))
	}
}

// keysUp lets go of ks in order, together, as keysDown pressed them.
func (a *act) keysUp(ks []key) error {
	es := make([]event, len(ks))
	for i, k := range ks {
		a.mods &^= k.mod
		a.pressed = remove(a.pressed, k)
		es[i] = event{kind: keyUp, key: k, mods: a.mods}
	}
	if err := a.sendAll(es); err != nil {
		return err
	}
	for _, k := range ks {
		a.s.letGo(pressedKey(k))
	}
	return nil
}

// sendAll sends es in order, on a desktop that can send several events for
// one answer all at once, else one by one; the first that fails stops it.
func (a *act) sendAll(es []event) error {
	b, ok := a.b.(batcher)
	if !ok || len(es) == 1 {
		for _, e := range es {
			if err := a.send(e); err != nil {
				return err
			}
		}
		return nil
	}
	a.sentAt = time.Now()
	defer func() { a.hadAt = time.Now() }()
	a.sent = true
	a.count += len(es)
	return b.postAll(es)
}

// lend binds round r's key codes and gives clients time to notice.
func (a *act) lend(r int) error {
	// Marked first, so that a failure half-way still gives back.
	a.round = r
	for _, l := range a.keys.loans[r] {
		if err := a.s.pressing(press{kind: pressLent, code: l.code}); err != nil {
			return err
		}
		if err := a.b.lend(l); err != nil {
			return err
		}
	}
	return a.wait(a.tr.lendWait)
}

// finish lets go of whatever is still pressed, last pressed first, then gives
// back any key codes lent to characters. It runs even when the act's
// context has ended, and says what it could not let go of.
func (a *act) finish() error {
	var errs []error
	if a.strayed && len(a.buttons) > 0 && !a.s.isClosed() {
		// Back over the page where the button went down, so that what is
		// dragged is not dropped on the window that lay at the end.
		kind := moveTo
		if slices.Contains(a.buttons, leftButton) {
			kind = dragTo
		}
		if err := a.send(event{kind: kind, at: a.downAt}); err != nil {
			errs = append(errs, fmt.Errorf("the pointer could not be brought back over the tab before letting go: %w", err))
		} else {
			a.at = a.downAt
		}
	}
	a.strayed = false
	for i := len(a.buttons) - 1; i >= 0; i-- {
		if err := a.send(event{kind: buttonUp, button: a.buttons[i], at: a.at, clicks: 1}); err != nil {
			errs = append(errs, fmt.Errorf("a mouse button may still be down: %w", err))
			continue
		}
		a.s.letGo(pressedButton(a.buttons[i]))
	}
	for i := len(a.pressed) - 1; i >= 0; i-- {
		k := a.pressed[i]
		k.text = 0
		if err := a.send(event{kind: keyUp, key: k, mods: a.mods}); err != nil {
			errs = append(errs, fmt.Errorf("a key may still be down: %w", err))
			continue
		}
		a.s.letGo(pressedKey(k))
	}
	a.buttons, a.pressed, a.mods = nil, nil, 0
	if a.round >= 0 && len(a.keys.lent) > 0 {
		_ = a.b.wait(context.Background(), a.tr.lendWait)
		if err := a.s.giveBack(a.b, a.keys.lent); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// returnsPointer reports whether the pointer goes back where the person had
// it once the act is done: after everything but Hover, whose whole point is
// to leave it there.
func returnsPointer(k vocab.ActKind) bool { return k != vocab.Hover }

// Timings chosen so that pages see every event as its own: a press and its
// release in one frame can be merged or missed by apps that poll state.
const (
	settleWait = 20 * time.Millisecond // after moving, before pressing
	buttonHold = 15 * time.Millisecond
	keyHold    = 10 * time.Millisecond // a key or chord of its own; typed text keeps its KeyPace
	doubleGap  = 60 * time.Millisecond // well inside every double-click interval
	stepGap    = 15 * time.Millisecond // between drag steps
	wheelGap   = 5 * time.Millisecond  // between wheel notches: the X server queues each as its own
	dragSteps  = 10
	focusWait  = 30 * time.Millisecond // after the click that focuses a field
)

// serverTick is the shortest pause after the desktop has a key event
// before the next one is sent: the X server stamps events in whole
// milliseconds, and a press, its release and the next press each need a
// millisecond of their own. tookGrain rounds an event's round trip down
// before it counts towards a pause.
const (
	serverTick = time.Millisecond
	tookGrain  = 250 * time.Microsecond
)

// KeyPace is how typing paces its keys: how long each key is held down,
// and how long it waits from one key's release to the next key's press.
type KeyPace struct {
	Hold, Gap time.Duration
}

type paceKey struct{}

// WithKeyPace has the typing of an act fired with ctx keep pace p instead
// of the desktop's own: for a test that measures how fast a field takes
// keys before some go missing.
func WithKeyPace(ctx context.Context, p KeyPace) context.Context {
	return context.WithValue(ctx, paceKey{}, p)
}

// sleep waits d, or less when ctx ends first.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// lerp is the i-th of n steps from a to b.
func lerp(a, b float64, i, n int) float64 { return a + (b-a)*float64(i)/float64(n) }

// remove drops the last v from s.
func remove[T comparable](s []T, v T) []T {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == v {
			return append(s[:i], s[i+1:]...)
		}
	}
	return s
}
