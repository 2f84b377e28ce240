package deskread

import (
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/internal/macos/ax"
)

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
// outermost sheet on the way is the panel. The executor asks it of the
// reader ([executor.SheetFocus]) and matches the frames to the windows on
// screen.
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
func axFocusSheet(src axSource) (sheet, window executor.Bounds, ok bool, err error) {
	v, err := src.attr(src.app(), axAttrFocusedElement)
	if axCodeOf(err) == ax.NoValue {
		return executor.Bounds{}, executor.Bounds{}, false, nil // nothing has the focus
	}
	if err != nil {
		return executor.Bounds{}, executor.Bounds{}, false, err
	}
	el := firstElement(src, v)
	inSheet := false
	for range axFocusMaxDepth {
		if el == 0 {
			return executor.Bounds{}, executor.Bounds{}, false, nil
		}
		vals, err := src.attrs(el, []string{axAttrRole, axAttrPosition, axAttrSize, axAttrParent})
		src.release(el)
		if err != nil {
			return executor.Bounds{}, executor.Bounds{}, false, err
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
			return executor.Bounds{}, executor.Bounds{}, false, nil
		}
		el = parent
	}
	if el != 0 {
		src.release(el)
	}
	return executor.Bounds{}, executor.Bounds{}, false, nil
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
func boundsOf(pos, size axVal) (executor.Bounds, bool) {
	if pos.Kind != axkPoint || size.Kind != axkSize || size.X <= 0 || size.Y <= 0 {
		return executor.Bounds{}, false
	}
	return executor.Bounds{X: pos.X, Y: pos.Y, W: size.X, H: size.Y}, true
}
