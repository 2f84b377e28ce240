// Package ui is the person's door with windows: the tray menu, the approval
// popup, the activity strip, the audit viewer, preferences and first run. It
// renders the core's event stream and sends the person's decisions back; it
// holds no pipeline logic.
//
// Nothing here imports fyne.io/fyne/v2/app, so every window is built and
// tested with fyne's test driver, headless; the thin main in app/cmd/reins
// makes the real app and hands it to [Start].
package ui

import (
	"context"
	"time"

	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/settings"
	"github.com/reins-app/reins/vocab"
)

// Engine is what the windows need of the core; *core.Runtime is one.
type Engine interface {
	Subscribe(buf int) (<-chan core.Event, func())
	Tabs() []core.TabInfo
	SetShare(tab string, level vocab.Level) error
	Share(tab string) vocab.Level
	Pending() []vocab.Request
	Answer(id string, d vocab.Decision) error
	Pause(on bool)
	Paused() bool
	Connected() bool
	Agents() []core.AgentInfo
	AllowAgent(key string) error
	ForgetAgent(key string) error
	AuditRows(ctx context.Context, f core.AuditFilter) ([]core.AuditRow, error)

	// The person's settings; each setter validates, writes an audit row and
	// publishes core.EventSettings.
	Settings() settings.Settings
	SetApprovalTimeout(d time.Duration) error
	SetRememberFor(d time.Duration) error
	SetBridgePort(port int) error
	SetStartAtLogin(on bool) error
	// SetPauseChord may wait for the desktop to hand the chord over; call it
	// off fyne's goroutine.
	SetPauseChord(chord string) error
	AddDenied(name string) error
	RemoveDenied(name string) error
	// OpenApps names the applications with a window open now that the deny
	// list does not cover yet, for the person to pick from.
	OpenApps(ctx context.Context) ([]string, error)
}

var _ Engine = (*core.Runtime)(nil)

// Verifier is an optional capability of an [Engine]: checking the audit
// log's hash chain. The audit viewer offers "Verify" only when it is there.
type Verifier interface {
	VerifyAudit(ctx context.Context) (rows int, err error)
}

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
