// Package rig runs one Debian Chromium with the real Reins extension paired
// to an in-process bridge, for the snapshot golden tests and the corpus
// benchmark: the same pairing Reins does (a secret and an address file in a
// data folder, the reins binary as native messaging host), without the
// engine, shares or approvals, so that what is measured is the snapshot path
// alone.
package rig

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/reins-app/reins/bridge"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/extension"
	"github.com/reins-app/reins/grounding"
	"github.com/reins-app/reins/internal/testrig/chromium"
)

// Options configures [Start].
type Options struct {
	Display   string   // required: the X display
	Dir       string   // required: a scratch folder (profile, data, extension, log)
	Reins     string   // required: absolute path of a built reins binary (the native host)
	URL       string   // required: the first page, served from 127.0.0.1
	Args      []string // optional: more Chromium flags
	Width     int      // optional: window size; default 1280×800
	Height    int      //
	Logf      func(string, ...any)
	Chromium  string // optional: default chromium.Find()
	DebugPort bool   // optional: open a DevTools port on 127.0.0.1 (see CDPPort)
}

// Rig is a running Chromium paired with a bridge.
type Rig struct {
	Bridge  *bridge.Server
	readers sync.Map // tab → *grounding.Reader, as core keeps one per tab
	listed  sync.Map // tab → true: every tab a tab list named, shared at control
	browser *chromium.Process
	LogPath string
}

// Start launches Chromium and waits until the extension has paired.
func Start(ctx context.Context, opts Options) (*Rig, error) {
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	if opts.Width == 0 {
		opts.Width, opts.Height = 1280, 800
	}
	data := filepath.Join(opts.Dir, "data")
	if err := os.MkdirAll(data, 0o700); err != nil {
		return nil, err
	}
	secret, err := bridge.LoadOrCreateSecret(data)
	if err != nil {
		return nil, err
	}
	br, err := bridge.New(bridge.Options{Origin: extension.Origin, Secret: secret, Logf: opts.Logf, RequestTimeout: 60 * time.Second})
	if err != nil {
		return nil, err
	}
	r := &Rig{Bridge: br}
	// The extension reads and acts only on tabs its share table shares.
	// The rig stands in for the person: every tab it has listed is shared.
	br.ShareTable(func(string, string) protocol.Shares {
		t := protocol.Shares{Tabs: []protocol.TabShare{}}
		r.listed.Range(func(k, _ any) bool {
			t.Tabs = append(t.Tabs, protocol.TabShare{Tab: k.(int), Level: protocol.LevelControl})
			return true
		})
		slices.SortFunc(t.Tabs, func(a, b protocol.TabShare) int { return a.Tab - b.Tab })
		return t
	})
	if err := br.Start(); err != nil {
		return nil, err
	}
	if err := bridge.WriteAddress(data, bridge.Address{Port: br.Port(), PID: os.Getpid()}); err != nil {
		br.Close()
		return nil, err
	}
	args := append([]string(nil), opts.Args...)
	if opts.DebugPort {
		args = append(args, "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1")
	}
	p, err := chromium.Launch(chromium.Options{
		Display: opts.Display, Dir: opts.Dir, Reins: opts.Reins, DataDir: data, URL: opts.URL,
		Width: opts.Width, Height: opts.Height, Args: args, Path: opts.Chromium,
	})
	if err != nil {
		br.Close()
		return nil, err
	}
	r.browser, r.LogPath = p, p.LogPath
	deadline := time.Now().Add(60 * time.Second)
	for len(br.Peers()) == 0 {
		if time.Now().After(deadline) {
			r.Close()
			return nil, errors.New("the extension did not pair within 60 s")
		}
		select {
		case <-ctx.Done():
			r.Close()
			return nil, ctx.Err()
		case <-p.Exited():
			r.Close()
			return nil, errors.New("chromium exited before the extension paired; see " + r.LogPath)
		case <-time.After(50 * time.Millisecond):
		}
	}
	return r, nil
}

// CDPPort is the DevTools port Chromium chose (DebugPort must be set).
func (r *Rig) CDPPort() (int, error) {
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, err := os.ReadFile(filepath.Join(r.browser.Profile, "DevToolsActivePort"))
		if err == nil {
			line, _, _ := strings.Cut(string(b), "\n")
			if p, err := strconv.Atoi(strings.TrimSpace(line)); err == nil {
				return p, nil
			}
		}
		if time.Now().After(deadline) {
			return 0, errors.New("chromium wrote no DevToolsActivePort")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Close stops Chromium's process group and the bridge.
func (r *Rig) Close() {
	r.browser.Stop()
	r.Bridge.Close()
}

// Tab waits for a tab whose address is url, loaded, and returns its id.
func (r *Rig) Tab(ctx context.Context, url string) (int, error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		var res protocol.TabsResult
		if err := r.Bridge.Call(ctx, "", protocol.MethodTabs, struct{}{}, &res); err != nil {
			return 0, err
		}
		for _, t := range res.Tabs {
			r.listed.Store(t.ID, true)
		}
		for _, t := range res.Tabs {
			if t.URL == url && t.Status == "complete" {
				return t.ID, nil
			}
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("no loaded tab at %s (tabs: %+v)", url, res.Tabs)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// Open navigates tab to url and waits until it has loaded and every frame
// answers a snapshot.
func (r *Rig) Open(ctx context.Context, tab int, url string) error {
	if err := r.Bridge.Call(ctx, "", protocol.MethodNavigate, protocol.NavigateParams{Tab: tab, URL: url}, nil); err != nil {
		return err
	}
	return r.WaitReady(ctx, tab, url)
}

// WaitReady waits until tab shows url, loaded, and every frame answers a
// snapshot.
func (r *Rig) WaitReady(ctx context.Context, tab int, url string) error {
	if _, err := r.Tab(ctx, url); err != nil {
		return err
	}
	// The top frame must answer; child frames get a grace period, since a
	// frame on an unreachable host shows an error page no script runs in.
	start := time.Now()
	for {
		res, err := r.Snapshot(ctx, tab)
		if err == nil && len(res.Frames) > 0 {
			top, all := false, true
			for _, f := range res.Frames {
				if f.Root == nil && f.Tree == "" {
					all = false
				} else if f.Frame == 0 && f.URL == url {
					top = true
				}
			}
			if top && (all || time.Since(start) > 3*time.Second) {
				return nil
			}
		}
		if time.Since(start) > 30*time.Second {
			return fmt.Errorf("the page at %s never answered a snapshot: %v", url, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Snapshot asks every frame of tab for its tree.
func (r *Rig) Snapshot(ctx context.Context, tab int) (*protocol.SnapshotResult, error) {
	var res protocol.SnapshotResult
	if err := r.Bridge.Call(ctx, "", protocol.MethodSnapshot, protocol.SnapshotParams{Tab: tab}, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Read takes a snapshot and builds it with refs, the way core does: frames
// whose tree is held answer "same".
func (r *Rig) Read(ctx context.Context, tab int, refs *grounding.Refs, id string) (*grounding.Snapshot, error) {
	v, _ := r.readers.LoadOrStore(tab, grounding.NewReader())
	reader := v.(*grounding.Reader)
	var res protocol.SnapshotResult
	if err := r.Bridge.Call(ctx, "", protocol.MethodSnapshot, protocol.SnapshotParams{Tab: tab, Known: reader.Known()}, &res); err != nil {
		return nil, err
	}
	return reader.Build(&res, refs, grounding.BuildOptions{ID: id, Tab: strconv.Itoa(tab)})
}

// Pretty is a report as indented JSON, for failure messages.
func Pretty(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}
