package persondoor

import "strings"

// AnchorState is where the audit log's copies outside its database go (the
// system log, a syslog receiver, an OpenTelemetry collector), and how far
// each got.
type AnchorState struct {
	Copies   []CopyState // the system log first, then each receiver
	Anchored bool        // some copy takes rows now
	Required bool        // acts are refused while Anchored is false
	Head     int64       // the newest row
}

// CopyState is one copy of the audit log outside its database.
type CopyState struct {
	Where    string // "system log", "syslog+tls://host:port", the collector's URL
	Whole    bool   // it gets whole rows; otherwise seq and hash only
	Required bool   // acts are refused while it does not take rows
	Err      error  // why it does not take rows now; nil when it does
	Why      string // Err's own cause, in a sentence for the person
	Seq      int64  // the newest row it has
	Behind   int64  // rows written that it has not taken
}

// Words says in a sentence for the person where the log's copies go, or
// that none leaves this computer and what that means.
func (s AnchorState) Words() string {
	var ok, bad []string
	for _, c := range s.Copies {
		if c.Err == nil {
			ok = append(ok, c.Where)
		} else {
			bad = append(bad, c.Where)
		}
	}
	if len(ok) == 0 {
		why := "no receiver is set and the system log is off"
		if len(bad) > 0 {
			why = strings.Join(bad, " and ") + " cannot be reached"
		}
		w := "Not anchored: no copy of the audit log leaves this computer (" + why + "), so rows cut from its end while Reins is stopped could not be found. Name a receiver (auditAnchor in settings.json) or start the system's log service."
		if s.Required {
			w += " Acts are refused until a copy can be made."
		}
		return w
	}
	verb := " take each row."
	if len(ok) == 1 {
		verb = " takes each row."
	}
	w := "Anchored: " + strings.Join(ok, " and ") + verb
	if len(bad) > 0 {
		w += " Not reached now: " + strings.Join(bad, ", ") + "; its rows wait in the log."
	}
	return w
}

// EventAuditAnchor says a copy of the audit log started or stopped taking
// rows; re-read [Anchorer.AuditAnchor].
const EventAuditAnchor EventKind = "audit_anchor"

// Anchorer is an optional capability of a [Door]: where the audit log's
// copies go. The tray's audit item and Preferences say so when none
// leaves this computer.
type Anchorer interface {
	AuditAnchor() AnchorState
}
