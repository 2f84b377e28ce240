package deskread

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// recordedDialogSource names a recorded element by its name in the file.
type recordedDialogSource struct{ *recordedSource }

func (s recordedDialogSource) id(el axRef) string { return s.handles[el] }

func readRecordedDialog(t *testing.T, s *recordedSource) (JSDialog, error) {
	t.Helper()
	return axJSDialog(context.Background(), recordedDialogSource{s}, axTarget{Name: "Google Chrome", PID: s.rec.PID}, axReadOptions{})
}

// The trees under testdata/axrecorded/chrome-*.json are written from
// Chrome's documented accessibility mapping, not recorded on a Mac.

func TestMacDialogReadsChromesConfirmWindow(t *testing.T) {
	s := loadRecorded(t, "chrome-confirm.json")
	d, err := readRecordedDialog(t, s)
	if err != nil {
		t.Fatal(err)
	}
	want := JSDialog{
		ID:      "dlg",
		Title:   "bank.example says",
		Message: "Send 4,900 EUR to DE89 3704 0044 0532 0130 00?",
		Buttons: []string{"OK", "Cancel"},
		Focused: true,
	}
	if !reflect.DeepEqual(d, want) {
		t.Errorf("read %+v\nwant %+v", d, want)
	}
	for _, a := range s.asked {
		if strings.HasPrefix(a, "browser.") || strings.HasPrefix(a, "web.") || strings.HasPrefix(a, "fake") {
			t.Errorf("asked %s: only the focused window is read", a)
		}
	}
}

func TestMacDialogReadsAPromptBesideThePageNeverItsAnswer(t *testing.T) {
	s := loadRecorded(t, "chrome-prompt.json")
	d, err := readRecordedDialog(t, s)
	if err != nil {
		t.Fatal(err)
	}
	want := JSDialog{
		ID:           "dlg",
		Title:        "shop.example says",
		Message:      "Your name?",
		Buttons:      []string{"OK", "Cancel"},
		Field:        true,
		Focused:      true,
		FieldFocused: true,
	}
	if !reflect.DeepEqual(d, want) {
		t.Errorf("read %+v\nwant %+v", d, want)
	}
	for _, a := range s.asked {
		if strings.HasPrefix(a, "field.AXValue") || strings.HasPrefix(a, "fieldtext.") {
			t.Errorf("asked %s: a field's text is the person's or the page's answer, never read", a)
		}
		if strings.HasPrefix(a, "fake") {
			t.Errorf("asked %s: nothing inside the page's web area is read", a)
		}
	}
}

// TestMacDialogNeverTakesThePagesLookAlike: with no dialog of Chrome's up,
// a <dialog> the page draws, titled like the browser's, is no JavaScript
// dialog.
func TestMacDialogNeverTakesThePagesLookAlike(t *testing.T) {
	s := loadRecorded(t, "chrome-prompt.json")
	s.rec.Elements["content"]["AXChildren"] = []any{"#web"}
	if d, err := readRecordedDialog(t, s); !errors.Is(err, ErrNoDialog) {
		t.Errorf("read %+v, %v; want ErrNoDialog", d, err)
	}
	if slices.ContainsFunc(s.asked, func(a string) bool { return strings.HasPrefix(a, "fake") }) {
		t.Errorf("the page's elements were read: %q", s.asked)
	}
}

func TestMacDialogOnlyInTheFocusedWindow(t *testing.T) {
	s := loadRecorded(t, "chrome-confirm.json")
	delete(s.rec.App, "AXFocusedWindow")
	if d, err := readRecordedDialog(t, s); !errors.Is(err, ErrNoDialog) {
		t.Errorf("with no focused window: %+v, %v; want ErrNoDialog", d, err)
	}
	s = loadRecorded(t, "chrome-confirm.json")
	s.rec.App["AXFocusedWindow"] = "#browser"
	if d, err := readRecordedDialog(t, s); !errors.Is(err, ErrNoDialog) {
		t.Errorf("with the browser window focused, the dialog window not: %+v, %v; want ErrNoDialog", d, err)
	}
}

func TestMacDialogMarksASignInDialogSecret(t *testing.T) {
	s := loadRecorded(t, "chrome-prompt.json")
	s.rec.Elements["field"]["AXSubrole"] = axSecureField
	d, err := readRecordedDialog(t, s)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Secret || !d.Field {
		t.Errorf("read %+v; want a secret field", d)
	}
	if slices.Contains(s.asked, "field.AXValue") {
		t.Error("a password field's value was asked for")
	}
}

func TestMacDialogWhoseInsidesCannotBeReadIsTitleOnly(t *testing.T) {
	s := loadRecorded(t, "chrome-confirm.json")
	s.rec.Elements["dlg"]["AXChildren"] = []any{}
	d, err := readRecordedDialog(t, s)
	if err != nil || !d.TitleOnly || d.Title != "bank.example says" || d.Focused {
		t.Errorf("read %+v, %v; want the title only", d, err)
	}
}

func TestMacDialogTitleFromItsWindowOrItsText(t *testing.T) {
	s := loadRecorded(t, "chrome-confirm.json")
	delete(s.rec.Elements["dlg"], "AXDescription")
	d, err := readRecordedDialog(t, s)
	if err != nil || d.Title != "bank.example says" || d.Message != "Send 4,900 EUR to DE89 3704 0044 0532 0130 00?" {
		t.Errorf("titled by its window: %+v, %v", d, err)
	}
	s = loadRecorded(t, "chrome-prompt.json")
	delete(s.rec.Elements["dlg"], "AXDescription")
	d, err = readRecordedDialog(t, s)
	if err != nil || d.Title != "shop.example says" || d.Message != "Your name?" {
		t.Errorf("titled by its text: %+v, %v", d, err)
	}
}

func TestMacDialogSaysWhenTheBrowserDoesNotAnswer(t *testing.T) {
	s := loadRecorded(t, "chrome-confirm.json")
	s.hang = true
	_, err := readRecordedDialog(t, s)
	if err == nil || errors.Is(err, ErrNoDialog) || !strings.Contains(err.Error(), "did not answer") {
		t.Errorf("a hung browser: %v; want an error that says it did not answer", err)
	}
}
