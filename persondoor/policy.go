package persondoor

import "github.com/reins-app/reins/policy"

// EventPolicy says the organisation's policy in force changed (or could
// no longer be honoured); re-read [Managed.Policy] and everything it
// narrows: shares, agents, settings.
const EventPolicy EventKind = "policy"

// Managed is an optional capability of a [Door]: the organisation's
// policy in force, which the person's windows and terminal show as set by
// the organisation, offering nothing that would loosen it.
type Managed interface {
	Policy() policy.State
}

// PolicyOf is the policy state of d, or none when d cannot say.
func PolicyOf(d Door) policy.State {
	if m, ok := d.(Managed); ok {
		return m.Policy()
	}
	return policy.State{}
}

// RowFields is what each forwarded audit row carries, as the person reads
// it: every column of the row as the log on this computer holds it.
const RowFields = "each row whole, as this computer's log holds it: its time; the agent's name, version, program and process; the tab, its title and its address (and a frame's); the act, with the text typed into ordinary fields in full and, for password and payment fields, only its length; the target's role and name; how you decided; the outcome and its reason; and the row's hashes"

// HashFields is what a syslog receiver over plain TCP gets of each row.
const HashFields = "each row's number and hash, and the hash before it: nothing of what was done"

// OrganisationReceives says, for each audit destination the policy names,
// where it is and which fields of each row it receives; nothing when the
// policy names none.
func OrganisationReceives(p *policy.Policy) []string {
	a := p.Audit()
	if a == nil {
		return nil
	}
	var out []string
	if s := a.Syslog; s != nil {
		if s.TLS != nil {
			out = append(out, "The syslog receiver "+s.Address+" (over TLS) receives "+RowFields+".")
		} else {
			out = append(out, "The syslog receiver "+s.Address+" (plain TCP) receives "+HashFields+".")
		}
	}
	if o := a.OTLP; o != nil {
		out = append(out, "The OpenTelemetry collector "+o.URL+" receives "+RowFields+".")
	}
	return out
}
