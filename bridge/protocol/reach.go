package protocol

// Scroll is where a box that scrolls stands: how far its content is
// scrolled (X, Y: scrollLeft, scrollTop) and how far it can be (MaxX, MaxY;
// 0 on an axis the wheel does not scroll it), in CSS pixels.
type Scroll struct {
	X    float64 `json:"x"`
	Y    float64 `json:"y"`
	MaxX float64 `json:"maxX"`
	MaxY float64 `json:"maxY"`
}

// Reach is, for an element a resolve found scrolled out of view, how to
// bring it in: turn the wheel over Point (in the frame's viewport, CSS
// pixels), which scrolls the box that hides it (the page itself when Page),
// by DX, DY CSS pixels (right and down positive) from where it stands now
// (Scroll). Viewport and Window are the frame's, to place Point on screen.
// Framed says the element is in a child frame and the worker has mapped
// Point up to the top frame's viewport, whose Viewport and Window these are
// then; DX, DY and Scroll stay the box's own. Reins fires the wheel; the
// extension only reads.
type Reach struct {
	Point    Point    `json:"point"`
	DX       float64  `json:"dx"`
	DY       float64  `json:"dy"`
	Scroll   Scroll   `json:"scroll"`
	Page     bool     `json:"page,omitempty"`
	Framed   bool     `json:"framed,omitempty"`
	Viewport Viewport `json:"viewport"`
	Window   Window   `json:"window"`
}
