package audit

import (
	"testing"

	"github.com/reins-app/reins/approvals"
	"github.com/reins-app/reins/vocab"
)

// TestOnlyTicket returns a valid ticket for act at p that no audit row stands
// behind (its seq is -1, and [Log.Finish] refuses it). It exists for other
// packages' unit tests of the executor; the product never calls it, and
// nothing may call it outside tests and test-helper packages. Outside a
// test binary it panics, so a ticket with no row behind it can never fire
// real input in a release; internal/deptest checks that the release binary
// does not even contain it.
func TestOnlyTicket(act vocab.Act, p Landing) Ticket {
	if !testing.Testing() {
		panic("audit.TestOnlyTicket called outside a test")
	}
	return Ticket{
		seq:      -1,
		approved: approvals.TestOnlyApproved(vocab.Request{Act: act}),
		landing:  p,
		ok:       true,
	}
}

// TestOnlyDesktopTicket is [TestOnlyTicket] for a desktop act: one whose
// target is the desktop, not a tab. The same rules bind it.
func TestOnlyDesktopTicket(act vocab.Act, p Landing) Ticket {
	t := TestOnlyTicket(act, p)
	t.approved = approvals.TestOnlyApproved(vocab.Request{Act: act, Target: vocab.Target{Desktop: true}})
	return t
}
