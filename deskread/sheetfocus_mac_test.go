package deskread

import (
	"github.com/reins-app/reins/executor"
	"testing"
)

// The keyboard focus is in the open panel only inside the sheet on the
// browser window: in the panel's file list, or in "Go to the folder" over
// it (the outermost sheet is still the panel); not in a popup window, nor
// in the page under the sheet. The elements are written from Apple's
// documented roles, not recorded on a Mac.
func TestTheFocusIsInTheOpenPanelOnlyInsideTheSheetOnTheWindow(t *testing.T) {
	panel := executor.Bounds{X: 250, Y: 53, W: 700, H: 450}
	browser := executor.Bounds{X: 0, Y: 25, W: 1200, H: 780}
	for _, c := range []struct {
		focus string
		in    bool
	}{
		{"#files", true},
		{"#path", true},
		{"#popfield", false},
		{"#input", false},
	} {
		src := loadRecorded(t, "openpanel.json")
		src.rec.App[axAttrFocusedElement] = c.focus
		sheet, window, ok, err := axFocusSheet(src)
		if err != nil {
			t.Fatalf("%s: %v", c.focus, err)
		}
		if ok != c.in {
			t.Errorf("focus on %s: in a sheet %v, want %v", c.focus, ok, c.in)
			continue
		}
		if ok && (!sameBounds(sheet, panel) || !sameBounds(window, browser)) {
			t.Errorf("focus on %s: sheet %+v on window %+v, want the panel %+v on the browser's %+v", c.focus, sheet, window, panel, browser)
		}
	}
	// No focused element, or an application that does not answer: not in
	// the panel.
	src := loadRecorded(t, "openpanel.json")
	delete(src.rec.App, axAttrFocusedElement)
	if _, _, ok, _ := axFocusSheet(src); ok {
		t.Error("in a sheet with no focused element")
	}
	src = loadRecorded(t, "openpanel.json")
	src.hang = true
	if _, _, ok, err := axFocusSheet(src); ok || err == nil {
		t.Errorf("a hung application: in a sheet %v, error %v", ok, err)
	}
}

// sameBounds reports whether two frames are one, to within a point, as
// the executor matches them to windows.
func sameBounds(a, b executor.Bounds) bool {
	near := func(x, y float64) bool { return x-y <= 1 && y-x <= 1 }
	return near(a.X, b.X) && near(a.Y, b.Y) && near(a.W, b.W) && near(a.H, b.H)
}
