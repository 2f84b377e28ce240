package protocol

// An act's pointer and keys are watched where they should arrive: before
// the app presses anything, the target's own frame says what the pointer,
// moved to the act's point, is over; after the act, where its events
// arrived. The frame's content script only listens, passively, to trusted
// events (isTrusted), from the moment it is asked to watch: it dispatches
// nothing and changes nothing, and it never computes where the point is, so
// that a wrong mapping from the frame to the screen cannot hide from it.
const (
	// MethodWatch: WatchParams → WatchResult. The element's frame starts
	// noting the trusted pointer and key events it sees; a frame holds one
	// watch at a time, a new one replacing the last, and drops one that is
	// not ended within WatchLife.
	MethodWatch = "watch"
	// MethodWitness: WitnessParams → WitnessResult. What the pointer is
	// over, once it has arrived at a screen point.
	MethodWitness = "witness"
	// MethodEffects: EffectsParams → EffectsResult. Where the act's events
	// arrived; it ends the watch.
	MethodEffects = "effects"
)

// WatchLife is how many milliseconds a watch lasts unless it is ended.
const WatchLife = 30000

// WatchParams names the element an act is about to aim at, as a resolve
// does.
type WatchParams struct {
	Tab   int    `json:"tab"`
	Frame int    `json:"frame"`
	Doc   string `json:"doc"`
	Epoch int    `json:"epoch"`
	ID    int    `json:"id"`
}

// WatchResult names the watch for the calls that follow.
type WatchResult struct {
	Watch string `json:"watch"`
}

// WitnessParams asks what the pointer is over once a trusted pointermove or
// pointerover has arrived within Slack of (X, Y): the event's screenX and
// screenY, in DIP, against the point the app sent the pointer to. The
// answer comes as soon as such an event has arrived since the watch began
// (or had arrived already), else after Within milliseconds.
type WitnessParams struct {
	Tab    int     `json:"tab"`
	Frame  int     `json:"frame"`
	Watch  string  `json:"watch"`
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Slack  float64 `json:"slack"`
	Within int     `json:"within"`
	// Focus asks instead whether the keyboard focus is in the watched
	// element: the answer comes once it is (Focused), else after Within
	// milliseconds. X, Y and Slack play no part.
	Focus bool `json:"focus,omitempty"`
}

// WitnessResult is what the frame saw. Near says an event arrived at the
// point, and At is what it was over; without Near, At is the last pointer
// event's, if any arrived at all (then Seen).
type WitnessResult struct {
	Seen bool    `json:"seen"`
	Near bool    `json:"near"`
	At   *Landed `json:"at,omitempty"`
	// X, Y: where the event At comes from arrived, screenX and screenY.
	X float64 `json:"x,omitempty"`
	Y float64 `json:"y,omitempty"`
	// Focused answers Focus: the keyboard focus is in the watched element.
	Focused bool `json:"focused,omitempty"`
}

// Landed is an element an event arrived at. On says it is the watched
// element or inside it (shadow roots, open or closed, included). Role and
// Name are page text, capped; Tag is the tag name with the element's id,
// "div#overlay".
type Landed struct {
	On   bool   `json:"on"`
	Role string `json:"role,omitempty"`
	Name string `json:"name,omitempty"`
	Tag  string `json:"tag"`
}

// EffectsParams asks where an act's events arrived. Kind is the act's kind
// (vocab.ActKind's words): the answer waits, at most Within milliseconds,
// for the event that ends it (click for a click, dblclick, contextmenu, a
// wheel event for a scroll, pointerup for a drag; for typing, until no key
// has arrived for a short quiet time), and comes at once for a hover.
type EffectsParams struct {
	Tab    int    `json:"tab"`
	Frame  int    `json:"frame"`
	Watch  string `json:"watch"`
	Kind   string `json:"kind"`
	Within int    `json:"within"`
}

// EffectsResult is where the act's trusted events arrived in the watched
// frame; a field is nil when no such event arrived there.
type EffectsResult struct {
	Down  *Landed `json:"down,omitempty"`  // the first pointerdown's target
	Up    *Landed `json:"up,omitempty"`    // the element under the last pointerup, or where a drag and drop was dropped
	Click *Landed `json:"click,omitempty"` // the last click, dblclick or contextmenu, as Kind asks
	Wheel *Landed `json:"wheel,omitempty"` // the last wheel event
	// Keys is how many trusted keydowns arrived, and KeysOn how many of
	// them while the watched element (or something inside it) had focus.
	Keys   int `json:"keys"`
	KeysOn int `json:"keysOn"`
	// Input is where the last input event arrived, and Inputs how many
	// arrived at the watched element or inside it.
	Input  *Landed `json:"input,omitempty"`
	Inputs int     `json:"inputs"`
	// Left says the frame's document began navigating away while the act's
	// events arrived (a link was followed), so what it saw may be cut short.
	Left bool `json:"left,omitempty"`
}
