package approvals

import (
	"time"

	"github.com/reins-app/reins/vocab"
)

// TestOnlyApproved returns a valid AllowOnce approval of req that no person
// gave. It exists for other packages' unit tests, which need an [Approved]
// to hand to the stage under test without running a broker; the product
// never calls it, and nothing may call it outside tests and test-helper
// packages.
func TestOnlyApproved(req vocab.Request) Approved {
	return Approved{req: req, how: vocab.AllowOnce, at: time.Now(), ok: true}
}
