package e2e

import (
	"testing"

	"github.com/reins-app/reins/deskread"
	"github.com/reins-app/reins/executor"
)

// readerOf reads the desktop ex sends input to: pictures of display, the
// accessibility bus of the session bus session ("" for $DBUS_SESSION_BUS_ADDRESS),
// the windows as ex lists them.
func readerOf(t testing.TB, display, session string, ex executor.Executor, source deskread.AccessibleSource) deskread.Reader {
	t.Helper()
	rd, err := deskread.New(deskread.Options{Display: display, SessionBus: session, AccessibleSource: source, Windows: ex.Windows})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rd.Close() })
	return rd
}
