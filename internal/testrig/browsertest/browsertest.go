// Package browsertest runs the real parts end-to-end tests need: an Xvfb
// display, Debian Chromium with the Reins extension loaded from the files
// that ship, the reins binary installed as the native messaging host in a
// fresh profile, and small HTTP servers on 127.0.0.1 whose pages report what
// they saw.
package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reins-app/reins/internal/testrig/chromium"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/internal/testrig/xvfb"
)

// Chromium finds Debian's Chromium binary.
func Chromium() (string, bool) { return chromium.Find() }

// BuildReins compiles the reins binary into dir and returns its path.
func BuildReins(t testing.TB, dir string) string {
	t.Helper()
	out, err := chromium.BuildReins(dir)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Options configures [Start].
type Options struct {
	X           *xvfb.Server // required: the display (xvfb.StartT)
	DeviceScale float64
	DataDir     string // REINS_DATA_DIR for the native host; required
	Reins       string // the reins binary (BuildReins); required
	URL         string // the first page
	Width       int    // window size in DIP, default 1000×700
	Height      int
	// DevTools opens Chromium's DevTools port on 127.0.0.1 (see
	// chromium.Options.DevTools); the test finds it in the profile.
	DevTools bool
	Args     []string // more of Chromium's flags
	Env      []string // more of Chromium's environment, "KEY=value"
}

// Browser is a running Chromium. Restart replaces its Process.
type Browser struct {
	*chromium.Process
}

// Start runs Chromium for the test on opts.X, stopping it at cleanup. It
// skips without Chromium, and fails when CI is set.
func Start(t testing.TB, opts Options) *Browser {
	t.Helper()
	_, ok := chromium.Find()
	testenv.Need(t, ok, "Debian chromium")
	if opts.X == nil {
		t.Fatal("browsertest: no display")
	}
	p, err := chromium.Launch(chromium.Options{
		Display: opts.X.Display, Dir: t.TempDir(), Reins: opts.Reins, DataDir: opts.DataDir, URL: opts.URL,
		Width: opts.Width, Height: opts.Height, DeviceScale: opts.DeviceScale, DevTools: opts.DevTools,
		Args: opts.Args, Env: opts.Env,
	})
	if err != nil {
		t.Fatal(err)
	}
	b := &Browser{p}
	t.Cleanup(func() {
		b.Stop()
		if t.Failed() {
			if log, err := os.ReadFile(b.LogPath); err == nil {
				t.Logf("chromium log (tail):\n%s", tail(string(log), 4000))
			}
		}
	})
	return b
}

// Restart quits Chromium and starts it again on the same profile, with the
// same options: the extension keeps what it stored in chrome.storage.local
// and loses chrome.storage.session, as when a person restarts the browser.
func (b *Browser) Restart(t testing.TB) {
	t.Helper()
	p, err := b.Process.Restart()
	if err != nil {
		t.Fatal(err)
	}
	b.Process = p
}

// GroupAlive reports whether any process of the group is still running.
func GroupAlive(pgid int) bool { return chromium.GroupAlive(pgid) }

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// Witness collects what test pages report through POST /witness.
type Witness struct {
	mu     sync.Mutex
	events []map[string]any
	signal chan struct{}
}

// NewWitness makes an empty witness.
func NewWitness() *Witness { return &Witness{signal: make(chan struct{}, 1)} }

// ServeHTTP records a page's report.
func (w *Witness) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	rw.Header().Set("Access-Control-Allow-Origin", "*")
	if r.Method != http.MethodPost {
		return
	}
	b, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		http.Error(rw, "bad json", 400)
		return
	}
	w.mu.Lock()
	w.events = append(w.events, m)
	w.mu.Unlock()
	select {
	case w.signal <- struct{}{}:
	default:
	}
}

// Events returns every report so far with the given type.
func (w *Witness) Events(typ string) []map[string]any {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []map[string]any
	for _, e := range w.events {
		if e["type"] == typ {
			out = append(out, e)
		}
	}
	return out
}

// Reset forgets every report of type typ.
func (w *Witness) Reset(typ string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	kept := w.events[:0]
	for _, e := range w.events {
		if e["type"] != typ {
			kept = append(kept, e)
		}
	}
	w.events = kept
}

// Wait waits until match accepts some report of type typ, and returns it.
func (w *Witness) Wait(ctx context.Context, typ string, match func(map[string]any) bool) (map[string]any, error) {
	for {
		for _, e := range w.Events(typ) {
			if match == nil || match(e) {
				return e, nil
			}
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("no %q report arrived: %w", typ, ctx.Err())
		case <-w.signal:
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Serve starts an HTTP server on 127.0.0.1 with the witness at /witness and
// files from the map at the rest; it stops at cleanup.
func Serve(t testing.TB, w *Witness, files map[string]string) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/witness", w)
	mux.HandleFunc("/", func(rw http.ResponseWriter, r *http.Request) {
		body, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(rw, r)
			return
		}
		ct := "text/html; charset=utf-8"
		if strings.HasSuffix(r.URL.Path, ".js") {
			ct = "text/javascript"
		}
		rw.Header().Set("Content-Type", ct)
		rw.Header().Set("Cache-Control", "no-store")
		io.WriteString(rw, body)
	})
	return Listen(t, mux)
}

// Listen serves h over HTTP on a free port of 127.0.0.1 until cleanup and
// returns the server's address, as http://127.0.0.1:PORT.
func Listen(t testing.TB, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}
