package audit

import (
	"github.com/reins-app/reins/approvals"
	"github.com/reins-app/reins/vocab"
)

// TestOnlyTicket returns a valid ticket for act at p that no audit row stands
// behind (its seq is -1, and [Log.Finish] refuses it). It exists for other
// packages' unit tests of the executor; the product never calls it, and
// nothing may call it outside tests and test-helper packages.
func TestOnlyTicket(act vocab.Act, p Plan) Ticket {
	return Ticket{
		seq:      -1,
		approved: approvals.TestOnlyApproved(vocab.Request{Act: act}),
		plan:     p,
		ok:       true,
	}
}
