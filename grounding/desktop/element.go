// Package desktop holds the types of desktop grounding: the accessibility
// elements of a native application's window, as the desktop reader
// (package deskread) reads them from the operating system. It is pure: no
// OS calls.
package desktop

// Rect is a box on screen. The AT-SPI reader gives device pixels, the unit
// of XTEST and of the X server's root window; deskread's Reader.Accessible
// turns them into DIP, the executor's coordinates.
type Rect struct {
	X, Y, W, H int
}

// Empty reports whether r has no area.
func (r Rect) Empty() bool { return r.W <= 0 || r.H <= 0 }

// Contains reports whether s lies wholly inside r.
func (r Rect) Contains(s Rect) bool {
	return s.X >= r.X && s.Y >= r.Y && s.X+s.W <= r.X+r.W && s.Y+s.H <= r.Y+r.H
}

// States are the element states an agent needs to choose an act.
type States struct {
	Enabled    bool // reacts to input (AT-SPI "enabled" and "sensitive")
	Focusable  bool
	Focused    bool
	Checkable  bool
	Checked    bool
	Expandable bool
	Expanded   bool
	Selected   bool
	Editable   bool
	Showing    bool // it and every ancestor are shown
	Visible    bool // marked visible; on screen only when Showing too
	Active     bool // the active window, or the active item in a container
}

// Element is one accessibility element. Values, not pointers, all the way
// down, so that printing a tree prints all of it.
type Element struct {
	// ID names the element within its application for as long as the
	// element lives (on Linux, its AT-SPI object path).
	ID    string
	Role  string // the platform's role name, e.g. "push button", "check box"
	Name  string
	State States
	// Value is the element's text or current value where it may be read;
	// empty for a Secret element.
	Value string
	// Secret marks a password field: its value is never read.
	Secret bool
	// Box is where the element shows on screen; zero when it has none.
	Box      Rect
	Children []Element
}

// Tree is the elements of one application window.
type Tree struct {
	App    string // the application's accessible name
	PID    int
	Source string // how it was read: "cache" or "walk"
	// Truncated reports whether the read stopped at a bound (element count
	// or depth) before the whole window was read.
	Truncated bool
	Count     int // elements in Root, Root included
	Root      Element
}

// Walk calls fn for every element of the tree, parents before children,
// with its depth (0 for the root), until fn returns false.
func (t *Tree) Walk(fn func(e *Element, depth int) bool) {
	var walk func(e *Element, depth int) bool
	walk = func(e *Element, depth int) bool {
		if !fn(e, depth) {
			return false
		}
		for i := range e.Children {
			if !walk(&e.Children[i], depth+1) {
				return false
			}
		}
		return true
	}
	walk(&t.Root, 0)
}

// Find returns the first element with the given role and name, or nil.
func (t *Tree) Find(role, name string) *Element {
	var found *Element
	t.Walk(func(e *Element, _ int) bool {
		if e.Role == role && e.Name == name {
			found = e
			return false
		}
		return true
	})
	return found
}
