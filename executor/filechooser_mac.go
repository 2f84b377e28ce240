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
// outermost sheet on the way is the panel.
//
// Written from Apple's documented attribute and role names; not yet run
// on a Mac.

// axAttrFocusedElement is the attribute naming an application's focused
// element (axRoleSheet, the sheet's role, is the dialog reader's).
const axAttrFocusedElement = "AXFocusedUIElement"

// axFocusMaxDepth bounds the walk from the focused element up to its
// window.
const axFocusMaxDepth = 64

// axFocusSheet follows the keyboard focus of src's application up through
// its parents to its window, and returns the outermost sheet on the way
// and that window, each by its frame in global points. ok is false when
// the focus is not inside a sheet of a window, or a frame is not known.
func axFocusSheet(src axSource) (sheet, window macBounds, ok bool, err error) {
	v, err := src.attr(src.app(), axAttrFocusedElement)
	if axCodeOf(err) == axCodeNoValue {
		return macBounds{}, macBounds{}, false, nil // nothing has the focus
	}
	if err != nil {
		return macBounds{}, macBounds{}, false, err
	}
	el := firstElement(src, v)
	inSheet := false
	for range axFocusMaxDepth {
		if el == 0 {
			return macBounds{}, macBounds{}, false, nil
		}
		vals, err := src.attrs(el, []string{axAttrRole, axAttrPosition, axAttrSize, axAttrParent})
		src.release(el)
		if err != nil {
			return macBounds{}, macBounds{}, false, err
		}
		parent := firstElement(src, vals[3])
		frame, framed := boundsOf(vals[1], vals[2])
		switch vals[0].str() {
		case axRoleSheet:
			// Each sheet further up holds the ones before.
			sheet, inSheet = frame, framed
		case axRoleWindow:
			if parent != 0 {
				src.release(parent)
			}
			if inSheet && framed {
				return sheet, frame, true, nil
			}
			return macBounds{}, macBounds{}, false, nil
		}
		el = parent
	}
	if el != 0 {
		src.release(el)
	}
	return macBounds{}, macBounds{}, false, nil
}

// firstElement keeps the first element v holds and releases the rest; 0
// when it holds none.
func firstElement(src axSource, v axVal) axRef {
	var first axRef
	for i, e := range v.Elems {
		if i == 0 {
			first = e
			continue
		}
		src.release(e)
	}
	return first
}

// boundsOf is the frame an element's AXPosition and AXSize give.
func boundsOf(pos, size axVal) (macBounds, bool) {
	if pos.Kind != axkPoint || size.Kind != axkSize || size.X <= 0 || size.Y <= 0 {
		return macBounds{}, false
	}
	return macBounds{X: pos.X, Y: pos.Y, Width: size.X, Height: size.Y}, true
}

// sameBounds reports whether two frames are one, to within a point of
// rounding between the window server's and Accessibility's numbers.
func sameBounds(a, b macBounds) bool {
	near := func(x, y float64) bool { return x-y <= 1 && y-x <= 1 }
	return near(a.X, b.X) && near(a.Y, b.Y) && near(a.Width, b.Width) && near(a.Height, b.Height)
}
