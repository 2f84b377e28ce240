// Package browsertest runs the real parts end-to-end tests need: an Xvfb
// display, Debian Chromium with the Reins extension loaded from the files
// that ship, the reins binary installed as the native messaging host in a
// fresh profile, and small HTTP servers on 127.0.0.1 whose pages report what
// they saw.
package browsertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/reins-app/reins/extension"
	"github.com/reins-app/reins/internal/testenv"
	"github.com/reins-app/reins/internal/xvfb"
)

// Chromium finds Debian's Chromium binary.
func Chromium() (string, bool) {
	for _, p := range []string{os.Getenv("REINS_CHROMIUM"), "/usr/lib/chromium/chromium", "/usr/bin/chromium"} {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err == nil {
			return p, true
		}
	}
	return "", false
}

// BuildReins compiles the reins binary into dir and returns its path. The
// native host must be a real executable, since Chrome starts it.
func BuildReins(t testing.TB, dir string) string {
	t.Helper()
	out := filepath.Join(dir, "reins")
	cmd := exec.Command("go", "build", "-o", out, "./app/cmd/reins")
	cmd.Dir = moduleRoot(t)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building reins: %v\n%s", err, b)
	}
	return out
}

func moduleRoot(t testing.TB) string {
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Dir(file)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found")
		}
		dir = parent
	}
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
}

// Browser is a running Chromium on its own display.
type Browser struct {
	Display string
	cmd     *exec.Cmd
	exited  chan struct{}
	logPath string
}

// Start runs Xvfb and Chromium for the test, stopping both at cleanup. It
// skips without Chromium or Xvfb, and fails when CI is set.
func Start(t testing.TB, opts Options) *Browser {
	t.Helper()
	chromium, ok := Chromium()
	testenv.Need(t, ok, "Debian chromium")
	x := opts.X
	tmp := t.TempDir()
	extDir, err := extension.WriteTo(filepath.Join(tmp, "extension"))
	if err != nil {
		t.Fatal(err)
	}
	profile := filepath.Join(tmp, "profile")
	// With --user-data-dir, Chromium looks for host manifests inside it.
	if _, err := extensionHost(profile, opts.Reins); err != nil {
		t.Fatal(err)
	}
	if opts.Width == 0 {
		opts.Width, opts.Height = 1000, 700
	}
	args := []string{
		"--no-sandbox", "--test-type", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic",
		"--password-store=basic", "--disable-features=Translate,MediaRouter,OptimizationHints",
		"--user-data-dir=" + profile, "--load-extension=" + extDir, "--disable-extensions-except=" + extDir,
		fmt.Sprintf("--window-size=%d,%d", opts.Width, opts.Height), "--window-position=0,0",
	}
	if opts.DeviceScale > 0 {
		args = append(args, fmt.Sprintf("--force-device-scale-factor=%g", opts.DeviceScale))
	}
	if opts.URL != "" {
		args = append(args, opts.URL)
	}
	logPath := filepath.Join(tmp, "chromium.log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(chromium, args...)
	cmd.Env = append(os.Environ(), "DISPLAY="+x.Display, "REINS_DATA_DIR="+opts.DataDir)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	b := &Browser{Display: x.Display, cmd: cmd, exited: make(chan struct{}), logPath: logPath}
	go func() {
		cmd.Wait()
		logf.Close()
		close(b.exited)
	}()
	t.Cleanup(func() {
		b.Stop()
		if t.Failed() {
			if log, err := os.ReadFile(logPath); err == nil {
				t.Logf("chromium log (tail):\n%s", tail(string(log), 4000))
			}
		}
	})
	return b
}

func extensionHost(profile, reins string) (string, error) {
	dir := filepath.Join(profile, "NativeMessagingHosts")
	b, _ := json.MarshalIndent(map[string]any{
		"name": extension.NativeHost, "description": "Reins pairing (test)", "path": reins, "type": "stdio",
		"allowed_origins": []string{extension.Origin + "/"},
	}, "", "  ")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	p := filepath.Join(dir, extension.NativeHost+".json")
	return p, os.WriteFile(p, b, 0o644)
}

// PID is Chromium's process id; its process group has the same id.
func (b *Browser) PID() int { return b.cmd.Process.Pid }

// Stop ends Chromium's whole process group, by its id, and waits.
func (b *Browser) Stop() {
	pgid := b.cmd.Process.Pid
	select {
	case <-b.exited:
	default:
		syscall.Kill(-pgid, syscall.SIGTERM)
		select {
		case <-b.exited:
		case <-time.After(5 * time.Second):
			syscall.Kill(-pgid, syscall.SIGKILL)
			<-b.exited
		}
	}
	// Helpers (renderers, the crash handler) share the group; make sure none is left.
	deadline := time.Now().Add(5 * time.Second)
	for GroupAlive(pgid) && time.Now().Before(deadline) {
		syscall.Kill(-pgid, syscall.SIGKILL)
		time.Sleep(50 * time.Millisecond)
	}
}

// GroupAlive reports whether any process of the group is still running.
func GroupAlive(pgid int) bool {
	return syscall.Kill(-pgid, 0) == nil
}

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
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

// ErrGone is returned when the browser has exited.
var ErrGone = errors.New("chromium exited")
