package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/internal/testrig/browsertest"
	"github.com/reins-app/reins/internal/testrig/chromium"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/internal/testrig/xvfb"
)

// A tab shared on one site that moves to another: the extension itself
// refuses to read it, from the moment the tab shows the other site, with
// nothing of that site in any answer, though the app asking skips every
// check of its own (a bare bridge) and the worker held a quiet read of the
// shared page to answer a repeat snapshot from.

const movedSharedPage = `<!doctype html><html><head><title>Alpha basket</title></head>
<body><h1>Alpha basket</h1><button>Checkout</button></body></html>`

const movedOtherPage = `<!doctype html><html><head><title>Bravo account</title></head>
<body><h1>Bravo balance 9,311.07</h1><p>Bravo statement</p></body></html>`

func TestMovedTabRefusedByExtension(t *testing.T) {
	_, ok := browsertest.Chromium()
	testenv.Need(t, ok, "Debian chromium")
	testenv.NeedCommand(t, "Xvfb")
	reinsBinaryFor(t)
	x := xvfb.StartT(t, "1280x800x24")
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	os.MkdirAll(data, 0o700)
	// Two sites: the same host on two ports.
	shared := browsertest.Serve(t, browsertest.NewWitness(), map[string]string{"/a.html": movedSharedPage})
	other := browsertest.Serve(t, browsertest.NewWitness(), map[string]string{"/b.html": movedOtherPage})

	app, tab, _ := bareBridgeSharingOne(t, data, protocol.LevelControl, shared)
	launchChromium(t, chromium.Options{Display: x.Display, Dir: dir, Reins: reinsBinary.path, DataDir: data, URL: shared + "/a.html"})
	app.waitConnected(t, 60*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// shows is the tab showing url, loaded when loaded is set; 0 for none.
	shows := func(url string, loaded bool) int {
		var res protocol.TabsResult
		if err := app.Call(ctx, "", protocol.MethodTabs, struct{}{}, &res); err != nil {
			t.Fatal(err)
		}
		for _, tb := range res.Tabs {
			if tb.URL == url && (tb.Status == "complete" || !loaded) {
				return tb.ID
			}
		}
		return 0
	}
	testenv.WaitWithin(t, 30*time.Second, "the shared page to load", func() bool {
		tab.Store(int64(shows(shared+"/a.html", true)))
		return tab.Load() != 0
	})
	id := int(tab.Load())

	// read is one snapshot, raw as the extension sent it, and its refusal.
	leaks := []string{"Bravo", "9,311.07", "/b.html"}
	read := func(known map[string]string) (protocol.SnapshotResult, error) {
		var raw json.RawMessage
		err := app.Call(ctx, "", protocol.MethodSnapshot, protocol.SnapshotParams{Tab: id, Known: known}, &raw)
		text := string(raw)
		if err != nil {
			text += err.Error()
		}
		for _, s := range leaks {
			if strings.Contains(text, s) {
				t.Fatalf("the other site's %q was sent: %s", s, tailOf(text, 400))
			}
		}
		var res protocol.SnapshotResult
		if err == nil {
			if err := json.Unmarshal(raw, &res); err != nil {
				t.Fatal(err)
			}
		}
		return res, err
	}
	refused := func(err error) bool {
		var perr *protocol.Error
		return errors.As(err, &perr) && perr.Code == protocol.CodeNotShared
	}

	first, err := read(nil)
	if err != nil || len(first.Frames) == 0 || !strings.Contains(first.Frames[0].Tree, "Alpha basket") {
		t.Fatalf("the shared tab's snapshot: %v %+v", err, first)
	}
	known := map[string]string{"0": first.Frames[0].Doc + ":" + strconv.Itoa(first.Frames[0].Version)}
	if again, err := read(known); err != nil || len(again.Frames) == 0 || again.Frames[0].Origin != shared {
		t.Fatalf("the shared tab's repeat snapshot: %v %+v", err, again)
	}

	if err := app.Call(ctx, "", protocol.MethodNavigate, protocol.NavigateParams{Tab: id, URL: other + "/b.html"}, nil); err != nil {
		t.Fatal(err)
	}
	// Read again and again while the tab moves: each answer is the shared
	// site's or refused, never the other's; once the browser's tab shows the
	// other site's address, loaded or not, every read is refused.
	moved, reads := false, 0
	for !moved {
		moved = shows(other+"/b.html", false) != 0 // asked before the read
		res, err := read(known)
		reads++
		switch {
		case err == nil && !moved:
			if len(res.Frames) > 0 && res.Frames[0].Origin != "" && res.Frames[0].Origin != shared {
				t.Fatalf("read %d answered from %s", reads, res.Frames[0].Origin)
			}
		case err == nil:
			t.Fatalf("read %d, with the tab on %s: answered %+v", reads, other, res)
		case !refused(err) && moved:
			t.Fatalf("read %d, with the tab on %s: %v, want %s", reads, other, err, protocol.CodeNotShared)
		}
		if ctx.Err() != nil {
			t.Fatalf("the tab never showed %s/b.html", other)
		}
	}
	for _, k := range []map[string]string{known, nil} {
		if _, err := read(k); !refused(err) {
			t.Fatalf("a read of the moved tab (known %v): %v, want %s", k, err, protocol.CodeNotShared)
		}
	}
	t.Logf("%d reads while the tab moved; every one after it showed the other site refused", reads)
}
