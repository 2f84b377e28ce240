// Package persondoor is the person's door into Reins: what only the person
// at Reins' own controls may do — answer an approval, share a tab, pause
// every agent, allow an agent, change a setting — and the events and the
// audit rows their windows show. The tray, the popup, the activity strip,
// the preferences and `reins serve`'s terminal hold a [Door], and nothing
// of core.
//
// No agents' front end may import this package (internal/deptest checks
// it): that is what makes "no tool approves" a fact the compiler keeps.
package persondoor

import (
	"context"
	"errors"
	"time"

	"github.com/reins-app/reins/settings"
	"github.com/reins-app/reins/vocab"
)

// Door is what the person's windows and terminal may do and see.
type Door interface {
	// Subscribe delivers every change as an Event until cancel is called;
	// a subscriber that falls buf events behind loses the newest rather than stall Reins; re-read state on each event.
	Subscribe(buf int) (events <-chan Event, cancel func())
	// Tabs lists every open tab with its share level.
	Tabs() []vocab.TabInfo
	// SetShare shares a tab (or vocab.DesktopKey) at level, bound to the
	// origin it shows now.
	SetShare(tab string, level vocab.Level) error
	// ShareWith shares a tab at level with one agent alone, by its
	// AgentInfo.Key ("" for every allowed agent, as SetShare). To other
	// agents the tab is not shared, and they cannot learn its title.
	ShareWith(tab string, level vocab.Level, agent string) error
	// Share is a tab's share level now.
	Share(tab string) vocab.Level
	// Pending lists the requests waiting for the person, oldest first.
	Pending() []vocab.Request
	// Answer answers a pending request; ErrNoSuchApproval when it is no
	// longer pending.
	Answer(id string, d vocab.Decision) error
	// AnswerPlan answers a pending plan (a request whose Act.Kind is
	// vocab.Plan): its steps 1 to upTo are allowed, 0 denies it. Answer
	// with AllowOnce allows a plan whole, with Deny denies it.
	AnswerPlan(id string, upTo int) error
	// Pause stops every agent's act (on) or lets them go on (off).
	Pause(on bool)
	Paused() bool
	// Connected reports whether the Chrome extension is connected.
	Connected() bool
	// Agents lists the agents seen since Reins started.
	Agents() []AgentInfo
	// AllowAgent allows an agent by its AgentInfo.Key until Reins quits;
	// ForgetAgent withdraws it, so the agent is asked about again.
	AllowAgent(key string) error
	ForgetAgent(key string) error
	// AuditRows reads the audit log.
	AuditRows(ctx context.Context, f AuditFilter) ([]AuditRow, error)

	// Settings are the person's settings now. Each setter checks its value
	// (an error wrapping settings.ErrInvalid says what it accepts), writes
	// an audit row, applies and saves the change, and publishes
	// EventSettings.
	Settings() settings.Settings
	SetApprovalTimeout(d time.Duration) error
	SetRememberFor(d time.Duration) error
	SetBridgePort(port int) error
	SetStartAtLogin(on bool) error
	// SetPauseChord may wait for the desktop to hand the chord over; call
	// it off a UI's own goroutine.
	SetPauseChord(chord string) error
	AddDenied(name string) error
	RemoveDenied(name string) error
	// OpenApps names the applications with a window open now that the deny
	// list does not cover yet, for the person to pick from.
	OpenApps(ctx context.Context) ([]string, error)

	// Handoffs lists the tabs agents handed to the person, oldest first.
	Handoffs() []Handoff
	// FinishHandoff ends a hand-off: done is the person's Done, else Stop.
	// Done on another site than the tab was shared on returns an error
	// wrapping ErrConfirmOrigin (a *ConfirmOriginError naming that site)
	// until confirm names the site on screen; the share is then bound to
	// it. ErrNoSuchHandoff when id is not in progress.
	FinishHandoff(id string, done bool, confirm string) error
}

// ChordHolder is an optional capability of a [Door]: telling whether the
// pause chord is really held for Reins, so Preferences never claim a chord
// that another program took.
type ChordHolder interface {
	PauseChordTaken() bool
}

// Verifier is an optional capability of a [Door]: checking the audit log's
// hash chain. The audit viewer offers "Verify" only when it is there.
type Verifier interface {
	VerifyAudit(ctx context.Context) (rows int, err error)
}

// ErrNoSuchApproval is returned by Answer for an id that is not pending.
var ErrNoSuchApproval = errors.New("that approval is no longer pending")
