package executor

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/vocab"
)

func uploadTicket(path string) audit.Ticket {
	return audit.TestOnlyTicket(vocab.Act{Kind: vocab.Upload, File: vocab.File{Path: path, Size: 5}}, audit.Landing{X: 40, Y: 60, Scale: 1})
}

// keysAfter is the keys pressed after the last button release, as the
// fake desk wrote them down.
func keysAfter(steps []string) []string {
	var out []string
	for _, s := range steps {
		if strings.HasPrefix(s, "up left") {
			out = nil
		}
		if k, ok := strings.CutPrefix(s, "key down "); ok {
			out = append(out, k)
		}
	}
	return out
}

func TestAnUploadClicksThenTypesThePathIntoTheDialogItOpened(t *testing.T) {
	f := &Fake{}
	f.SetAppAt(App{Name: "Chromium", PID: 4321})
	f.SetFrontmost(App{Name: "Chromium", PID: 4321})
	if err := f.FireUpload(context.Background(), uploadTicket("/tmp/a b/Ü.txt")); err != nil {
		t.Fatal(err)
	}
	steps := f.steps()
	if i, j := slices.Index(steps, "down left 1"), slices.Index(steps, "key down Control"); i < 0 || j < i {
		t.Fatalf("the keys did not come after the click:\n%s", strings.Join(steps, "\n"))
	}
	keys := keysAfter(steps)
	want := []string{"Control", "l", "/", "t", "m", "p", "/", "a", " ", "b", "/", "spare0", ".", "t", "x", "t", "Alt", "o"}
	if !slices.Equal(keys, want) {
		t.Errorf("keys %q, want %q", keys, want)
	}
	if got := f.Chosen(); len(got) != 1 || !strings.HasPrefix(got[0], "/tmp/a b/") {
		t.Errorf("the dialog chose %q", got)
	}
	if len(f.lentNow()) != 0 {
		t.Errorf("key codes still lent: %v", f.lentNow())
	}
	if fired := f.Fired(); len(fired) != 1 || fired[0].Act.Kind != vocab.Upload {
		t.Errorf("fired %+v", fired)
	}
}

func TestAnUploadTypesNothingWithoutTheDialog(t *testing.T) {
	for _, c := range []struct {
		name string
		how  FileDialog
		at   App
	}{
		{"none came up", FileDialog{None: true}, App{Name: "Chromium", PID: 4321}},
		{"another program's", FileDialog{Other: App{Name: "portal", PID: 9}}, App{Name: "Chromium", PID: 4321}},
		{"no focus", FileDialog{Unfocused: true}, App{Name: "Chromium", PID: 4321}},
		{"the window names no process", FileDialog{}, App{Name: "unknown"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := &Fake{}
			f.SetAppAt(c.at)
			f.SetFileDialog(c.how)
			err := f.FireUpload(context.Background(), uploadTicket("/tmp/x.txt"))
			if !errors.Is(err, ErrNoChooser) {
				t.Fatalf("got %v, want ErrNoChooser", err)
			}
			if keys := keysAfter(f.steps()); len(keys) != 0 {
				t.Errorf("keys were pressed: %q", keys)
			}
		})
	}
}

func TestAnUploadStoppedPartWayIsCancelledWhileTheDialogHasTheFocus(t *testing.T) {
	f := &Fake{}
	f.SetAppAt(App{Name: "Chromium", PID: 4321})
	f.SetFrontmost(App{Name: "Chromium", PID: 4321})
	f.SetFileDialog(FileDialog{Stays: true})
	err := f.FireUpload(context.Background(), uploadTicket("/tmp/x.txt"))
	if !errors.Is(err, ErrChooserStayed) || !strings.Contains(err.Error(), "Escape was pressed") {
		t.Fatalf("got %v", err)
	}
	if keys := keysAfter(f.steps()); keys[len(keys)-1] != "Escape" {
		t.Errorf("the last key was %q, want Escape", keys[len(keys)-1])
	}
	// Losing the focus: nothing more is typed, not even Escape.
	f.SetFileDialog(FileDialog{LoseAfter: 2})
	err = f.FireUpload(context.Background(), uploadTicket("/tmp/x.txt"))
	if !errors.Is(err, ErrChooserLost) {
		t.Fatalf("got %v", err)
	}
	if keys := keysAfter(f.steps()); !slices.Equal(keys, []string{"Control", "l", "/"}) {
		t.Errorf("keys %q, want the two before the focus went", keys)
	}
	// A deny-listed application coming to the front stops it too.
	f.SetFileDialog(FileDialog{})
	f.SetFrontmost(App{Name: "1Password", PID: 77})
	if err := f.FireUpload(context.Background(), uploadTicket("/tmp/x.txt")); !errors.Is(err, ErrDenyListed) {
		t.Fatalf("got %v", err)
	}
	if len(f.Chosen()) != 0 {
		t.Errorf("chose %q", f.Chosen())
	}
}

func TestOnlyAnUploadTicketFiresAnUpload(t *testing.T) {
	f := &Fake{}
	if err := f.FireUpload(context.Background(), audit.Ticket{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("invalid ticket: %v", err)
	}
	if err := f.FireUpload(context.Background(), audit.TestOnlyTicket(vocab.Act{Kind: vocab.Click}, audit.Landing{})); !errors.Is(err, ErrUnsupported) {
		t.Errorf("a click: %v", err)
	}
	if err := f.Fire(context.Background(), uploadTicket("/tmp/x.txt")); !errors.Is(err, ErrUnsupported) {
		t.Errorf("an upload through Fire: %v", err)
	}
	if err := Upload(context.Background(), NewNoDisplay(nil), uploadTicket("/tmp/x.txt")); !errors.Is(err, ErrUnsupported) {
		t.Errorf("an executor without dialogs: %v", err)
	}
}

// What Chromium 156 under Xvfb (GTK 3.24, no window manager) showed when a
// file input was clicked, and when a page's script opened a popup, read
// from the X server: the chooser is a dialog for the browser window
// clicked, of role GtkFileChooserDialog; the popup names no window it is
// for. Only the chooser is the dialog.
func TestOnlyAFileDialogForTheWindowClickedIsTheDialog(t *testing.T) {
	chromium := App{Name: "Chromium", PID: 20371}
	const browserWindow = 4194306 // role "browser"
	for _, c := range []struct {
		name string
		d    newDialog
		want dialogFit
	}{
		{"GTK's file chooser", newDialog{chooser: chooser{id: 6291462, app: chromium, forWindow: browserWindow}, role: "GtkFileChooserDialog"}, fitChooser},
		{"the page's popup window", newDialog{chooser: chooser{id: 6291500, app: chromium}, role: "pop-up"}, fitForNone},
		{"the popup claiming the chooser's role", newDialog{chooser: chooser{id: 6291500, app: chromium}, role: "GtkFileChooserDialog"}, fitForNone},
		{"a window inside the chooser", newDialog{chooser: chooser{id: 6291716, app: chromium, forWindow: 6291462}}, fitForOther},
		{"a chooser for another browser window", newDialog{chooser: chooser{id: 6291462, app: chromium, forWindow: 4194999}, role: "GtkFileChooserDialog"}, fitForOther},
		{"another dialog for the window clicked", newDialog{chooser: chooser{id: 6291470, app: chromium, forWindow: browserWindow}, role: "GtkMessageDialog"}, fitNotChooser},
		{"a dialog for it with no role", newDialog{chooser: chooser{id: 6291470, app: chromium, forWindow: browserWindow}}, fitNotChooser},
		{"a portal's chooser", newDialog{chooser: chooser{id: 8388610, app: App{Name: "xdg-desktop-portal-gtk", PID: 77}, forWindow: browserWindow}, role: "GtkFileChooserDialog"}, fitOtherApp},
	} {
		if got := fitOf(c.d, chromium, browserWindow, gtkRole); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
	// A window clicked that is not known matches no dialog, and a desktop
	// that names no role for its dialog takes none.
	chooserOf := newDialog{chooser: chooser{id: 6291462, app: chromium, forWindow: browserWindow}, role: "GtkFileChooserDialog"}
	if got := fitOf(chooserOf, chromium, 0, gtkRole); got == fitChooser {
		t.Error("a dialog was taken for the chooser of an unknown window")
	}
	if got := fitOf(newDialog{chooser: chooser{app: chromium, forWindow: browserWindow}}, chromium, browserWindow, ""); got == fitChooser {
		t.Error("a window with no role was taken for the chooser where the desktop names none")
	}
}

// gtkRole is GTK's file chooser's role, spelled out here as read from the
// X server.
const gtkRole = "GtkFileChooserDialog"

// A window of the browser's own process that is not a file dialog for the
// window clicked gets no key: a popup naming no window, a dialog for
// another window, a dialog of another role.
func TestAnUploadTypesNothingIntoAWindowThatIsNotTheFileDialog(t *testing.T) {
	for _, c := range []struct {
		name  string
		how   FileDialog
		words string
	}{
		{"a popup naming no window", FileDialog{ForNone: true, Role: "pop-up", Title: "Popup window"}, "not a dialog for the window clicked"},
		{"a popup with the chooser's role", FileDialog{ForNone: true}, "not a dialog for the window clicked"},
		{"a dialog for another window", FileDialog{ForOther: true}, "for another of its windows"},
		{"another kind of dialog", FileDialog{Role: "GtkMessageDialog"}, "not a file dialog"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := &Fake{}
			f.SetAppAt(App{Name: "Chromium", PID: 4321})
			f.SetFrontmost(App{Name: "Chromium", PID: 4321})
			f.SetFileDialog(c.how)
			err := f.FireUpload(context.Background(), uploadTicket("/tmp/x.txt"))
			if !errors.Is(err, ErrNoChooser) || !strings.Contains(err.Error(), c.words) {
				t.Fatalf("got %v, want ErrNoChooser saying %q", err, c.words)
			}
			if keys := keysAfter(f.steps()); len(keys) != 0 {
				t.Errorf("%d keys were pressed: %q", len(keys), keys)
			}
		})
	}
}
