package executor

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/vocab"
)

// An upload (vocab.Upload) is a click that opens the browser's file
// chooser and keys typed into the native file dialog it shows: the
// dialog's location field, the file's path, the dialog's accept key. The
// dialog is another window, so the checks every act passes are not
// enough: before any key, the dialog typed into must be the one the click
// opened. It must come up after the click, belong to the process whose
// window was clicked (a desktop portal's dialog, which another process
// shows, is not supported and is refused), say it is a dialog for the
// window clicked and say it is a file dialog (its role), and hold the
// keyboard focus, checked again before every key. A window of the same
// process that says less is not the dialog: the page's own popup window,
// which its script may open with the activation Reins' click gives it,
// names no window it is for. When any of that fails, nothing more is
// typed; the dialog is cancelled with Escape when it has the focus and
// left for the person otherwise.

// Errors of an upload, for errors.Is.
var (
	// ErrNoChooser: no file dialog of the clicked browser's own came up
	// and took the keyboard focus in time, so nothing was typed.
	ErrNoChooser = errors.New("no file dialog of the browser's own came up with the keyboard focus")
	// ErrChooserLost: the file dialog lost the keyboard focus, or went,
	// while its keys were being typed; typing stopped there.
	ErrChooserLost = errors.New("the file dialog lost the keyboard focus")
	// ErrChooserStayed: the dialog was still open after its accept key.
	ErrChooserStayed = errors.New("the file dialog did not close after the path was accepted")
)

// Waits of an upload.
const (
	chooserDeadline = 5 * time.Second        // for the dialog to come up with the focus, and to go once accepted
	chooserPoll     = 10 * time.Millisecond  // how often the window list is read meanwhile
	locationWait    = 150 * time.Millisecond // after the chord that opens the location field
	beforeAccept    = 100 * time.Millisecond // after the path, before the accept key
	betweenAccepts  = 300 * time.Millisecond // between two accept keys (macOS: the sheet, then the panel)
)

// uploader is an Executor that fires uploads.
type uploader interface {
	FireUpload(ctx context.Context, t audit.Ticket) error
}

// SheetFocus says whether the keyboard focus of the application with
// process id pid is inside a sheet (macOS's file dialog is one), and the
// frames, in global points, of the outermost sheet on the way and of the
// window it is on. Reading it is the desktop reader's (package deskread);
// the executor only asks, right before it types into the dialog.
type SheetFocus func(pid int) (sheet, window Bounds, ok bool, err error)

// Upload fires t's upload on ex: the click on the plan's point, then the
// file's path typed into the file dialog the click opened, under the
// checks above and every check Fire makes (the deny list, the person's own
// input, the witness ctx carries). An executor that cannot find file
// dialogs refuses with an error wrapping ErrUnsupported.
func Upload(ctx context.Context, ex Executor, t audit.Ticket) error {
	u, ok := ex.(uploader)
	if !ok {
		return fmt.Errorf("%w: this Reins cannot drive a file dialog", ErrUnsupported)
	}
	return u.FireUpload(ctx, t)
}

// chooser is a file dialog as a backend knows it.
type chooser struct {
	id        uint64 // the backend's handle for its window
	app       App
	title     string
	forWindow uint64 // the window it is a dialog for: the one clicked
}

// windowSet is the windows shown at one moment, by the backend's handle.
type windowSet map[uint64]bool

// chooserDesk is a backend that can tell the file dialog a click opened.
type chooserDesk interface {
	// shownWindows lists the windows shown now.
	shownWindows() (windowSet, error)
	// clickedWindow is the handle of the window under p, which a dialog
	// it opens names as the window it is for; 0 when unknown.
	clickedWindow(p point) (uint64, error)
	// newDialogs lists the windows shown now that are not in before,
	// with their applications, and for each the window it is a dialog
	// for (0 when it does not say) and its role ("" when it has none).
	newDialogs(before windowSet) ([]newDialog, error)
	// chooserRole is the role this desktop's file dialog says it has.
	chooserRole() string
	// chooserFocused reports whether c, or a window inside it, holds the
	// keyboard focus.
	chooserFocused(c chooser) (bool, error)
	// chooserShown reports whether c is still shown.
	chooserShown(c chooser) (bool, error)
	// chooserKeys are the keys this desktop's file dialogs take.
	chooserKeys() chooserKeys
	// chooserWait is how long a dialog may take to come up with the
	// focus, and to go once accepted.
	chooserWait() time.Duration
}

// newDialog is a window that came up: the dialog, the window it says it
// is for (chooser.forWindow) and what it says it is.
type newDialog struct {
	chooser
	role string
}

// dialogFit is what a window that came up after an upload's click is to
// the upload.
type dialogFit int

const (
	fitChooser    dialogFit = iota // the file dialog the click opened
	fitOtherApp                    // another process's window
	fitForNone                     // the browser's, naming no window it is for: a page's popup
	fitForOther                    // the browser's dialog for another window than the one clicked
	fitNotChooser                  // the browser's dialog for the window clicked, of another role
)

// fitOf judges d, a window that came up after a click on the window
// clicked of owner's process, for a desktop whose file dialog has role: it
// is the dialog the click opened only when it is that process's, names the
// window clicked as the window it is for, and has the file dialog's role.
func fitOf(d newDialog, owner App, clicked uint64, role string) dialogFit {
	switch {
	case d.app.PID != owner.PID:
		return fitOtherApp
	case d.forWindow == 0:
		return fitForNone
	case clicked == 0 || d.forWindow != clicked:
		return fitForOther
	case role == "" || d.role != role:
		return fitNotChooser
	}
	return fitChooser
}

// chooserKeys are a file dialog's keys: the chord that opens its location
// field, and the keys that accept the path typed there.
type chooserKeys struct {
	location chord
	accept   []chord
}

// escape cancels a dialog.
var escape = chord{name: keyEscape}

// upload is an upload's fire sequence on b: fire's, with the dialog's
// checks between the click and the keys.
func (s *sequence) upload(ctx context.Context, b backend, t audit.Ticket) (err error) {
	if !t.Valid() {
		return ErrInvalid
	}
	up, plan := t.Act(), t.Landing()
	if up.Kind != vocab.Upload {
		return fmt.Errorf("%w: %q is not an upload", ErrUnsupported, up.Kind)
	}
	if up.File.Path == "" {
		return fmt.Errorf("%w: the upload names no file", ErrInvalid)
	}
	desk, ok := b.(chooserDesk)
	if !ok {
		return fmt.Errorf("%w: this desktop's file dialogs cannot be found", ErrUnsupported)
	}
	path := up.File.Path
	if err := typeable(path); err != nil {
		return err
	}
	here := point{plan.X, plan.Y}
	if math.IsNaN(here.X) || math.IsNaN(here.Y) || math.IsInf(here.X, 0) || math.IsInf(here.Y, 0) {
		return fmt.Errorf("%w: the plan's point (%g, %g) is not a place", ErrOffScreen, here.X, here.Y)
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.begin(ctx, b); err != nil {
		return err
	}
	pts, err := b.toDevice([]point{here}, scale(plan.Scale))
	if err != nil {
		return err
	}
	// Every key resolved before anything fires: the path on the layout in
	// use, as typing is; the dialog's chords as key presses are.
	keys, err := b.strokes(checked{act: vocab.Act{Kind: vocab.Type, Text: path}, landing: plan, keys: textKeys(path)})
	if err != nil {
		return err
	}
	ck := desk.chooserKeys()
	chord1 := func(ch chord) (stroke, error) {
		k, err := b.strokes(checked{act: vocab.Act{Kind: vocab.Key}, chord: ch})
		if err != nil {
			return stroke{}, err
		}
		if len(k.loans) > 0 {
			return stroke{}, fmt.Errorf("%w: the file dialog's keys are not all on this keyboard", ErrUnknownKey)
		}
		return k.chord, nil
	}
	location, err := chord1(ck.location)
	if err != nil {
		return err
	}
	var accept []stroke
	for _, ch := range ck.accept {
		st, err := chord1(ch)
		if err != nil {
			return err
		}
		accept = append(accept, st)
	}
	cancel, err := chord1(escape)
	if err != nil {
		return err
	}

	a := s.open(ctx, b, keys)
	defer a.close(&err)
	if len(keys.loans) > 0 {
		if err := a.lend(0); err != nil {
			return err
		}
	}
	if err := denyCheck(ctx, b, []point{here}, pts, false); err != nil {
		return err
	}
	owner, err := b.appAt(ctx, pts[0])
	if err != nil {
		return fmt.Errorf("cannot tell which application is under the element, so nothing was fired: %w", err)
	}
	if owner.PID <= 0 {
		return fmt.Errorf("%w: the window under the element names no process (%s), so its file dialog could not be told from another program's window; nothing was fired", ErrNoChooser, plain.Text(owner.Name, plain.NameMax))
	}
	clicked, err := desk.clickedWindow(pts[0])
	if err != nil {
		return err
	}
	if clicked == 0 {
		return fmt.Errorf("%w: which window is under the element cannot be told, so neither can the file dialog it opens; nothing was fired", ErrNoChooser)
	}
	hw, err := b.watchHand(ctx)
	if err != nil {
		return err
	}
	defer a.watched(hw)()
	home, back, w, err := s.lastChecks(ctx, b, t)
	if err != nil {
		return err
	}
	before, err := desk.shownWindows()
	if err != nil {
		return fmt.Errorf("cannot list the windows shown, so the file dialog could not be told from the others; nothing was fired: %w", err)
	}
	if a.witness != nil {
		a.aim = here
		if home == pts[0] {
			if err := a.move(point{pts[0].X + 1, pts[0].Y}); err != nil {
				return err
			}
		}
	}
	putBack := func(err error) error {
		if back {
			if merr := a.putBack(home); merr != nil {
				return errors.Join(err, fmt.Errorf("%w: %w", ErrPointerNotBack, merr))
			}
		}
		return err
	}
	if err := a.click(pts[0], leftButton, 1); err != nil {
		if errors.Is(err, ErrNotThere) {
			return putBack(err)
		}
		return err
	}
	dlg, err := a.awaitChooser(desk, before, owner, clicked)
	if err != nil {
		return putBack(err)
	}
	// The dialog's keys, each only while the dialog holds the focus and
	// nothing deny-listed is in front.
	total := 1 + len(keys.text) + len(accept)
	done := 0
	press := func(st stroke) error {
		if err := a.inChooser(desk, dlg, done, total); err != nil {
			return err
		}
		if err := a.stroke(st); err != nil {
			return err
		}
		done++
		return nil
	}
	stopped := func(err error) error {
		return putBack(a.cancelChooser(desk, dlg, cancel, err))
	}
	if err := press(location); err != nil {
		return stopped(err)
	}
	if err := a.wait(locationWait); err != nil {
		return stopped(err)
	}
	for _, st := range keys.text {
		if err := press(st); err != nil {
			return stopped(err)
		}
	}
	if err := a.wait(beforeAccept); err != nil {
		return stopped(err)
	}
	for i, st := range accept {
		if i > 0 {
			if err := a.wait(betweenAccepts); err != nil {
				return stopped(err)
			}
		}
		if err := press(st); err != nil {
			return stopped(err)
		}
	}
	if err := a.awaitChooserGone(desk, dlg); err != nil {
		return stopped(err)
	}
	if back {
		if err := a.move(home); err != nil {
			return fmt.Errorf("the file was chosen, but the pointer could not be put back: %w", err)
		}
	}
	if w != nil {
		w.fired(t)
	}
	return nil
}

// awaitChooser waits, up to the desk's chooserWait, for the file dialog
// the click opened: a window that was not there before it, of owner's
// process, a file dialog for the window clicked (fitOf), holding the
// keyboard focus.
func (a *act) awaitChooser(desk chooserDesk, before windowSet, owner App, clicked uint64) (chooser, error) {
	within := desk.chooserWait()
	deadline := time.Now().Add(within)
	role := desk.chooserRole()
	seen := map[dialogFit]*newDialog{} // the last window of each kind that was not the dialog
	var found *chooser
	for {
		if err := a.alive(); err != nil {
			return chooser{}, err
		}
		news, err := desk.newDialogs(before)
		if err != nil {
			return chooser{}, fmt.Errorf("%w: the windows shown could not be read (%v), so nothing was typed", ErrNoChooser, err)
		}
		// Of the browser's new windows (a toolkit makes helper windows
		// too), the file dialog holding the focus.
		found = nil
		for i := range news {
			d := &news[i]
			if fit := fitOf(*d, owner, clicked, role); fit != fitChooser {
				seen[fit] = d
				continue
			}
			focused, err := desk.chooserFocused(d.chooser)
			if err != nil {
				return chooser{}, fmt.Errorf("%w: where the keyboard focus is could not be read (%v), so nothing was typed", ErrNoChooser, err)
			}
			if focused {
				return d.chooser, nil
			}
			found = &d.chooser
		}
		if !time.Now().Before(deadline) {
			break
		}
		if err := a.wait(chooserPoll); err != nil {
			return chooser{}, err
		}
	}
	switch {
	case found != nil:
		return chooser{}, fmt.Errorf("%w: the browser's file dialog %s came up but did not get the keyboard focus within %s, so nothing was typed; it is left open for the person to cancel", ErrNoChooser, quoted(found.title), within)
	case seen[fitNotChooser] != nil:
		return chooser{}, fmt.Errorf("%w: a dialog of the browser's came up for the window clicked, %s, but it is not a file dialog, so nothing was typed", ErrNoChooser, quoted(seen[fitNotChooser].title))
	case seen[fitForOther] != nil:
		return chooser{}, fmt.Errorf("%w: a dialog of the browser's came up, %s, but for another of its windows than the one clicked, so nothing was typed", ErrNoChooser, quoted(seen[fitForOther].title))
	case seen[fitForNone] != nil:
		return chooser{}, fmt.Errorf("%w: a window of the browser's came up instead, %s, which is not a dialog for the window clicked (a window the page opened, say), so nothing was typed", ErrNoChooser, quoted(seen[fitForNone].title))
	case seen[fitOtherApp] != nil:
		d := seen[fitOtherApp]
		return chooser{}, fmt.Errorf("%w: a window of another program came up instead (%s, pid %d, %s); Reins types only into a file dialog of the browser's own process, not a desktop portal's, so nothing was typed", ErrNoChooser, plain.Text(d.app.Name, plain.NameMax), d.app.PID, quoted(d.title))
	}
	return chooser{}, fmt.Errorf("%w: the click opened no file dialog within %s (the element may not open one, or the page may have stopped it), so nothing was typed", ErrNoChooser, within)
}

// inChooser refuses the next key unless the dialog still holds the focus
// and nothing deny-listed has come to the front.
func (a *act) inChooser(desk chooserDesk, dlg chooser, done, total int) error {
	if err := a.frontStillAllowed(done, total); err != nil {
		return err
	}
	focused, err := desk.chooserFocused(dlg)
	if err != nil {
		return fmt.Errorf("%w: where the keyboard focus is could not be read (%v); typing stopped after %d of %d keys", ErrChooserLost, err, done, total)
	}
	if !focused {
		return fmt.Errorf("%w; typing stopped after %d of %d keys", ErrChooserLost, done, total)
	}
	return nil
}

// cancelChooser presses Escape in the dialog when it still holds the
// focus, so that an upload stopped part-way chooses nothing; otherwise it
// leaves the dialog for the person. It returns why the upload stopped.
func (a *act) cancelChooser(desk chooserDesk, dlg chooser, cancel stroke, why error) error {
	shown, err := desk.chooserShown(dlg)
	if err != nil || !shown {
		return why
	}
	focused, err := desk.chooserFocused(dlg)
	if err != nil || !focused || a.s.isClosed() {
		return fmt.Errorf("%w; the file dialog is left open without the keyboard focus, for the person to cancel", why)
	}
	// Escape even when the act's context has ended: a half-typed path must
	// not stay in a dialog one key from being accepted.
	ctx := a.ctx
	a.ctx = context.WithoutCancel(ctx)
	defer func() { a.ctx = ctx }()
	if err := a.stroke(cancel); err != nil {
		return fmt.Errorf("%w; and Escape could not be pressed in the file dialog: %w", why, err)
	}
	return fmt.Errorf("%w; Escape was pressed in the file dialog, which chose nothing", why)
}

// awaitChooserGone waits, up to the desk's chooserWait, for the dialog to
// close once its path was accepted.
func (a *act) awaitChooserGone(desk chooserDesk, dlg chooser) error {
	within := desk.chooserWait()
	deadline := time.Now().Add(within)
	for {
		shown, err := desk.chooserShown(dlg)
		if err != nil {
			return fmt.Errorf("%w: whether it is still open could not be read: %w", ErrChooserStayed, err)
		}
		if !shown {
			return nil
		}
		if !time.Now().Before(deadline) {
			return fmt.Errorf("%w within %s: it may be saying the file cannot be opened, or its accept key may differ in this language", ErrChooserStayed, within)
		}
		if err := a.wait(chooserPoll); err != nil {
			return err
		}
	}
}

// quoted is a window title as words: quoted as any program's text, or
// "with no title".
func quoted(title string) string {
	if plain.Text(title, plain.NameMax) == "" {
		return "with no title"
	}
	return plain.Quote(title, plain.NameMax)
}
