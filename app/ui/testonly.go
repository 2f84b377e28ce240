package ui

import "fyne.io/fyne/v2"

// PopupButtonSpot is where one of the popup's buttons sits, for end-to-end
// tests that click it with real input: its centre as fractions of the popup
// window's canvas, so a test can map it onto the window's size on screen
// whatever the display's scale.
type PopupButtonSpot struct {
	Name    string  // "deny", "once" or "tab"
	Label   string  // the button's text
	FX, FY  float32 // the centre, as fractions of the canvas' width and height
	Enabled bool    // Allow buttons are disabled until the popup arms
	Visible bool
}

// TestOnlyPopupSpots reports the request on screen (nil when none) and where
// its buttons are. It answers nothing and changes nothing; it exists for the
// reinstest build's hook, never a release build's code path. Call it on
// fyne's goroutine.
func (u *UI) TestOnlyPopupSpots() (*PopupSpotRequest, []PopupButtonSpot) {
	r := u.popup.Current()
	if r == nil || u.popupWin == nil {
		return nil, nil
	}
	size := u.popupWin.Canvas().Size()
	if size.Width <= 0 || size.Height <= 0 {
		return nil, nil
	}
	d := fyne.CurrentApp().Driver()
	var out []PopupButtonSpot
	for _, name := range []string{"deny", "once", "tab"} {
		b := u.popup.button(name)
		pos := d.AbsolutePositionForObject(b)
		bs := b.Size()
		out = append(out, PopupButtonSpot{
			Name: name, Label: b.Text, Enabled: !b.Disabled(), Visible: b.Visible(),
			FX: (pos.X + bs.Width/2) / size.Width, FY: (pos.Y + bs.Height/2) / size.Height,
		})
	}
	return &PopupSpotRequest{ID: r.ID, Sentence: r.Sentence(), Armed: u.popup.Armed()}, out
}

// PopupSpotRequest names the request on screen.
type PopupSpotRequest struct {
	ID       string
	Sentence string
	Armed    bool
}
