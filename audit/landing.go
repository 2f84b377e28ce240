package audit

import (
	"time"

	"github.com/reins-app/reins/approvals"
	"github.com/reins-app/reins/vocab"
)

// Landing is where an approved act lands on screen, worked out just before
// it fires: its own word, since a plan is a multi-step plan (approvals.Plan).
// Points are in DIP (screen points); Scale is device pixels per DIP.
type Landing struct {
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
	X2    float64 `json:"x2,omitempty"` // Drag: where it ends
	Y2    float64 `json:"y2,omitempty"`
	Scale float64 `json:"scale"`
	Frame string  `json:"frame,omitempty"` // the target frame's origin, for the record
	// QuietFrom is when the person was last seen to have left the mouse and
	// keyboard alone long enough: their input after it holds the act back.
	// Zero means the approval's own moment.
	QuietFrom time.Time `json:"quietFrom,omitzero"`
	// Window is, for an act on a tab, the window that shows the tab, as
	// the executor names it (X: the client window; macOS: the window
	// number): the act's keys and buttons land only in it. PID is the
	// process the display server says made it, the browser's. Zero: no
	// window is named, and the act has no such rule (a desktop act).
	Window uint64 `json:"window,omitempty"`
	PID    int    `json:"pid,omitempty"`
}

// Ticket is a committed "about to fire" row: the only thing the executor
// accepts as leave to fire. Its zero value is not valid.
type Ticket struct {
	seq      int64
	approved approvals.Approved
	landing  Landing
	ok       bool
}

// Valid reports whether t was issued by a committed write.
func (t Ticket) Valid() bool { return t.ok }

// Seq is the committed row's sequence number.
func (t Ticket) Seq() int64 { return t.seq }

// Approved is the approval the ticket carries.
func (t Ticket) Approved() approvals.Approved { return t.approved }

// Act is the approved act.
func (t Ticket) Act() vocab.Act { return t.approved.Request().Act }

// Landing is where it lands.
func (t Ticket) Landing() Landing { return t.landing }
