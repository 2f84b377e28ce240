package hand

import (
	"testing"

	"github.com/jezek/xgb"

	"github.com/reins-app/reins/internal/testrig/xvfb"
)

// display is an Xvfb of the test's own.
type display struct{ srv *xvfb.Server }

// startDisplay starts an Xvfb for the test, with a connection held open
// for its life: when its last client leaves, an X server resets.
func startDisplay(t *testing.T) *display {
	t.Helper()
	srv := xvfb.StartT(t, "1280x800x24")
	keeper, err := xgb.NewConnDisplay(srv.Display)
	if err != nil {
		t.Fatalf("connect to %s: %v", srv.Display, err)
	}
	t.Cleanup(keeper.Close)
	return &display{srv: srv}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
