//go:build cgo && reinstest

// The reinstest build carries hooks for the tray's end-to-end test, which
// has no other door into the tray: sharing the first tab and the desktop as
// the person would from the menu, and reporting where the approval popup's
// buttons are so the test can click them with real input; and, for the
// self-test's own test, an executor broken on purpose. None answers an
// approval: the test still clicks Allow on the popup itself. Release builds
// have none of them (testonly_off.go).

package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"fyne.io/fyne/v2"

	"github.com/reins-app/reins/app/ui"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/vocab"
)

type testOnlyHooks struct {
	share   *string
	desktop *bool
	report  *bool
	offset  *float64
}

func testOnlyFlags(fs *flag.FlagSet) testOnlyHooks {
	return testOnlyHooks{
		share:   fs.String("testonly-share", "", "reinstest build: share the first tab whose address starts with this, at Control"),
		desktop: fs.Bool("testonly-share-desktop", false, "reinstest build: share the desktop at Control"),
		report:  fs.Bool("testonly-report-popup", false, "reinstest build: print the approval popup's button positions to stderr"),
		offset:  fs.Float64("testonly-click-offset", 0, "reinstest build: break the executor: every click lands this many points right of its aim"),
	}
}

// coreOptions breaks the executor when -testonly-click-offset asks.
func (h testOnlyHooks) coreOptions(o *core.StartOptions) {
	if *h.offset != 0 {
		o.TestOnlyExecutor = core.TestOnlyOffsetClicks(*h.offset)
	}
}

func (h testOnlyHooks) start(ctx context.Context, rt *core.Runtime, u *ui.UI) {
	if *h.desktop {
		if err := rt.SetShare(vocab.DesktopKey, vocab.Control); err != nil {
			fmt.Fprintf(os.Stderr, "reinstest: share the desktop: %v\n", err)
		}
	}
	if *h.share != "" {
		go h.shareFirst(ctx, rt, *h.share)
	}
	if *h.report {
		go h.reportPopup(ctx, u)
	}
}

func (h testOnlyHooks) shareFirst(ctx context.Context, rt *core.Runtime, prefix string) {
	for ctx.Err() == nil {
		for _, t := range rt.Tabs() {
			if t.Connected && strings.HasPrefix(t.URL, prefix) {
				if err := rt.SetShare(t.ID, vocab.Control); err != nil {
					fmt.Fprintf(os.Stderr, "reinstest: share %s: %v\n", t.ID, err)
					continue
				}
				fmt.Fprintf(os.Stderr, "reinstest: shared tab %s at control\n", t.ID)
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// reportPopup prints a line each time what the popup shows changes:
//
//	reinstest: popup id=a1 armed=true sentence="Click “Main button”" deny=0.120,0.860,on once=...,on tab=...,off
func (h testOnlyHooks) reportPopup(ctx context.Context, u *ui.UI) {
	last := ""
	for ctx.Err() == nil {
		var line string
		fyne.DoAndWait(func() {
			req, spots := u.TestOnlyPopupSpots()
			if req == nil {
				line = "reinstest: popup none"
				return
			}
			var b strings.Builder
			fmt.Fprintf(&b, "reinstest: popup id=%s armed=%t sentence=%q", req.ID, req.Armed, req.Sentence)
			for _, s := range spots {
				state := "off"
				if s.Enabled && s.Visible {
					state = "on"
				}
				fmt.Fprintf(&b, " %s=%.4f,%.4f,%s", s.Name, s.FX, s.FY, state)
			}
			line = b.String()
		})
		if line != last {
			fmt.Fprintln(os.Stderr, line)
			last = line
		}
		time.Sleep(100 * time.Millisecond)
	}
}
