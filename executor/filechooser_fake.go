package executor

import (
	"context"
	"strings"
	"time"

	"github.com/reins-app/reins/audit"
)

// FileDialog is how the fake desktop's file dialog behaves when an upload
// clicks: the zero value comes up as the clicked application's own, with
// the keyboard focus, and closes once its accept key is pressed.
type FileDialog struct {
	None      bool   // no dialog comes up
	Other     App    // when set, the window that comes up is this application's
	Unfocused bool   // it comes up without the keyboard focus
	LoseAfter int    // when set, it loses the focus after this many of its keys
	Stays     bool   // it stays open once accepted
	Title     string // its title; "Open File" when empty
	// ForNone: the window names no window it is for, as a page's popup
	// window does; ForOther: it names another window than the one clicked.
	ForNone, ForOther bool
	// Role is the window's role; the file dialog's (FakeChooserRole) when
	// empty.
	Role string
}

// FakeChooserRole is the role of the fake desktop's file dialog.
const FakeChooserRole = "file-chooser"

// fakeFiles is the fake's file dialog: how it behaves, and the one up now.
type fakeFiles struct {
	how    FileDialog
	armed  bool // the windows were listed before a click: a dialog comes next
	owner  int  // the pid of the clicked application
	open   bool // a dialog is up
	from   int  // the desk's log line where it came up
	checks int  // focus checks since it came up
	chosen []string
}

// fakeChooserWait is the fake's deadline for a dialog: short, since it
// waits for nothing real.
const fakeChooserWait = 50 * time.Millisecond

var _ chooserDesk = (*Fake)(nil)

// SetFileDialog sets how the file dialog behaves from the next upload on.
func (f *Fake) SetFileDialog(d FileDialog) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.files.how = d
}

// Chosen lists the paths the fake's file dialogs accepted, as typed into
// them, oldest first.
func (f *Fake) Chosen() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.files.chosen...)
}

// FireUpload fires t's upload on the fake desktop: see [Upload].
func (f *Fake) FireUpload(ctx context.Context, t audit.Ticket) error {
	return f.seq.upload(ctx, f, t)
}

func (f *Fake) chooserKeys() chooserKeys {
	return chooserKeys{location: chord{mods: modControl, char: 'l'}, accept: []chord{{mods: modAlt, char: 'o'}}}
}

func (f *Fake) chooserWait() time.Duration { return fakeChooserWait }

func (f *Fake) chooserRole() string { return FakeChooserRole }

func (f *Fake) shownWindows() (windowSet, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.files.armed, f.files.open = true, false
	return windowSet{}, nil
}

// clickedWindow notes whose window is clicked: the dialog is that
// process's, unless FileDialog.Other says otherwise.
func (f *Fake) clickedWindow(p point) (uint64, error) {
	owner := f.appAtNow(p).PID
	f.mu.Lock()
	defer f.mu.Unlock()
	f.files.owner = owner
	return 1, nil
}

func (f *Fake) newDialogs(windowSet) ([]newDialog, error) {
	time.Sleep(time.Millisecond) // no spinning while a test waits for none
	lines := f.logLen()
	f.mu.Lock()
	defer f.mu.Unlock()
	fl := &f.files
	if !fl.armed || fl.how.None {
		return nil, nil
	}
	if !fl.open {
		fl.open, fl.from, fl.checks = true, lines, 0
	}
	app := App{Name: "Chromium", PID: fl.owner}
	if fl.how.Other != (App{}) {
		app = fl.how.Other
	}
	title := fl.how.Title
	if title == "" {
		title = "Open File"
	}
	var forWindow uint64 = 1 // the window clickedWindow names
	switch {
	case fl.how.ForNone:
		forWindow = 0
	case fl.how.ForOther:
		forWindow = 3
	}
	role := fl.how.Role
	if role == "" {
		role = FakeChooserRole
	}
	return []newDialog{{chooser: chooser{id: 2, app: app, title: title, forWindow: forWindow}, role: role}}, nil
}

func (f *Fake) chooserFocused(chooser) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fl := &f.files
	if !fl.open || fl.how.Unfocused {
		return false, nil
	}
	fl.checks++
	// The first check is the one before any key.
	return fl.how.LoseAfter == 0 || fl.checks <= fl.how.LoseAfter+1, nil
}

// chooserShown reads the keys the dialog got from the desk's log: once it
// got its accept key (Alt+O), it chose what was typed after Control+L and
// closes, unless it Stays; Escape closes it choosing nothing.
func (f *Fake) chooserShown(chooser) (bool, error) {
	f.fakeDesk.mu.Lock()
	log := append([]string(nil), f.fakeDesk.log...)
	f.fakeDesk.mu.Unlock()
	f.mu.Lock()
	defer f.mu.Unlock()
	fl := &f.files
	if !fl.open {
		return false, nil
	}
	var typed strings.Builder
	held := map[string]bool{}
	location := false
	for _, l := range log[min(fl.from, len(log)):] {
		if k, ok := strings.CutPrefix(l, "key up "); ok {
			held[k] = false
			continue
		}
		k, ok := strings.CutPrefix(l, "key down ")
		if !ok {
			continue
		}
		switch {
		case k == "Control" || k == "Alt" || k == "Shift" || k == "Meta":
			held[k] = true
		case k == "Escape":
			fl.open, fl.armed = false, false
			return false, nil
		case held["Control"] && k == "l":
			location = true
			typed.Reset()
		case held["Alt"] && k == "o":
			if fl.how.Stays {
				continue
			}
			if location {
				fl.chosen = append(fl.chosen, typed.String())
			}
			fl.open, fl.armed = false, false
			return false, nil
		case location && len(k) == 1:
			typed.WriteString(k)
		}
	}
	return true, nil
}

func (f *Fake) logLen() int {
	f.fakeDesk.mu.Lock()
	defer f.fakeDesk.mu.Unlock()
	return len(f.fakeDesk.log)
}
