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
	return audit.TestOnlyTicket(vocab.Act{Kind: vocab.Upload, File: vocab.File{Path: path, Size: 5}}, audit.Plan{X: 40, Y: 60, Scale: 1})
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
	if err := f.FireUpload(context.Background(), audit.TestOnlyTicket(vocab.Act{Kind: vocab.Click}, audit.Plan{})); !errors.Is(err, ErrUnsupported) {
		t.Errorf("a click: %v", err)
	}
	if err := f.Fire(context.Background(), uploadTicket("/tmp/x.txt")); !errors.Is(err, ErrUnsupported) {
		t.Errorf("an upload through Fire: %v", err)
	}
	if err := Upload(context.Background(), NewNoDisplay(nil), uploadTicket("/tmp/x.txt")); !errors.Is(err, ErrUnsupported) {
		t.Errorf("an executor without dialogs: %v", err)
	}
}
