package persondoor

import "github.com/reins-app/reins/audit"

// Where the audit log's copies outside its database go, and how each is
// doing: the system log, a syslog receiver, an OpenTelemetry collector.
type (
	AnchorState = audit.AnchorState
	CopyState   = audit.CopyState
)

// EventAuditAnchor says a copy of the audit log started or stopped taking
// rows; re-read [Anchorer.AuditAnchor].
const EventAuditAnchor EventKind = "audit_anchor"

// Anchorer is an optional capability of a [Door]: where the audit log's
// copies go. The tray's audit item and Preferences say so when none
// leaves this computer.
type Anchorer interface {
	AuditAnchor() AnchorState
}
