package approvals

import (
	"testing"
	"time"

	"github.com/reins-app/reins/vocab"
)

// TestOnlyApproved returns a valid AllowOnce approval of req that no person
// gave. It exists for other packages' unit tests, which need an [Approved]
// to hand to the stage under test without running a broker; the product
// never calls it, and nothing may call it outside tests and test-helper
// packages. Outside a test binary it panics, so leave no person gave can
// never reach a release; internal/deptest checks that the release binary
// does not even contain it.
func TestOnlyApproved(req vocab.Request) Approved {
	if !testing.Testing() {
		panic("approvals.TestOnlyApproved called outside a test")
	}
	return Approved{req: req, how: vocab.AllowOnce, at: time.Now(), ok: true}
}
