package executor

// The macOS file dialog as Accessibility shows it, apart from the OS, so
// that it is built and tested on every system. Chrome shows its open panel
// as a sheet on the browser window the page is in (NSSavePanel's
// beginSheetModalForWindow:completionHandler:), and Accessibility gives a
// sheet the role AXSheet (NSAccessibilitySheetRole) and makes it a child
// of the window it is attached to. A window the page opens (window.open)
// is a window of its own, of role AXWindow, with no sheet between the
// keyboard focus and it. So the keyboard focus is in the file dialog the
// click opened only when, followed up from the application's focused
// element (AXFocusedUIElement), it passes through a sheet before it
// reaches a window, and that window is the one clicked. "Go to the
// folder", opened over the panel, is inside the panel's sheet too: the
// outermost sheet on the way is the panel. The reader of the desktop
// follows the focus ([SheetFocus]); the executor matches the frames.
//
// Written from Apple's documented attribute and role names; not yet run
// on a Mac.

// macSheetRole is the role of a sheet (NSAccessibilitySheetRole), as
// the chooser is told apart.
const macSheetRole = "AXSheet"

// sameBounds reports whether two frames are one, to within a point of
// rounding between the window server's and Accessibility's numbers.
func sameBounds(a, b macBounds) bool {
	near := func(x, y float64) bool { return x-y <= 1 && y-x <= 1 }
	return near(a.X, b.X) && near(a.Y, b.Y) && near(a.Width, b.Width) && near(a.Height, b.Height)
}
