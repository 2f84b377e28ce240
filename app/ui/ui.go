// Package ui is the person's door with windows: the tray menu, the approval
// popup, the activity strip, the audit viewer, preferences and first run. It
// holds a persondoor.Door and nothing of core: it renders the door's event
// stream and sends the person's decisions back through it.
//
// Nothing here imports fyne.io/fyne/v2/app, so every window is built and
// tested with fyne's test driver, headless; the thin main in app/cmd/reins
// makes the real app and hands it to [Start].
package ui

import (
	"github.com/reins-app/reins/vocab"
)

// Settings are the facts about this Reins the windows show beside the
// engine's settings ([settings.Settings]), which the preferences window edits.
type Settings struct {
	BridgePort   int  // the extension's port on 127.0.0.1 in use now
	GlobalKeys   bool // a pause chord can be taken across this desktop (X11, macOS)
	DataDir      string
	ExtensionDir string // where the Chrome extension is written for loading
	Executable   string // this reins binary, for agents' MCP config
}

// newOf points *p at a new zero value, for core types (such as a request's
// box) that front ends may fill but cannot name without importing a stage.
func newOf[T any](p **T) { *p = new(T) }

// SetBox gives r a target box, in its picture's pixels.
func SetBox(r *vocab.Request, x, y, w, h float64) {
	newOf(&r.Box)
	r.Box.X, r.Box.Y, r.Box.W, r.Box.H = x, y, w, h
}
