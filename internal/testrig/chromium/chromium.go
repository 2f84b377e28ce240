// Package chromium starts Debian's Chromium with the Reins extension loaded
// and the reins binary installed as its native messaging host, in a fresh
// profile, for end-to-end tests and the demo.
package chromium

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"github.com/reins-app/reins/bridge"
	"github.com/reins-app/reins/extension"
)

// Find returns Debian's Chromium binary ($REINS_CHROMIUM first).
func Find() (string, bool) {
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

// Options configures [Launch].
type Options struct {
	Display     string   // required: the X display
	Dir         string   // required: a scratch folder for the profile, extension and log
	Reins       string   // required: absolute path of the reins binary, the native host
	DataDir     string   // required: REINS_DATA_DIR, where the host finds the port and secret
	URL         string   // optional: the first page
	Width       int      // optional: window size in DIP; default 1000×700
	Height      int      //
	DeviceScale float64  // optional: --force-device-scale-factor
	Args        []string // optional: more flags, before the URL
	Env         []string // optional: more of its environment, "KEY=value", after the test's own
	Path        string   // optional: the Chromium binary; default Find()
	// DevTools opens Chromium's DevTools port on 127.0.0.1, on a free port
	// that Chromium writes into DevToolsActivePort in the profile.
	DevTools bool // optional
}

// DevToolsFile is the file in the profile where Chromium started with
// Options.DevTools writes its DevTools port and the browser target's path.
const DevToolsFile = "DevToolsActivePort"

// Process is a running Chromium in its own process group.
type Process struct {
	cmd     *exec.Cmd
	exited  chan struct{}
	opts    Options // as Launch was given them, for Restart
	LogPath string
	Profile string // the --user-data-dir
}

// Launch starts Chromium.
func Launch(opts Options) (*Process, error) {
	bin, ok := opts.Path, opts.Path != ""
	if !ok {
		bin, ok = Find()
	}
	if !ok {
		return nil, errors.New("Chromium is not installed (apt-get install chromium)")
	}
	extDir, err := extension.WriteTo(filepath.Join(opts.Dir, "extension"))
	if err != nil {
		return nil, err
	}
	profile := filepath.Join(opts.Dir, "profile")
	// With --user-data-dir, Chromium looks for host manifests inside it.
	if _, err := bridge.InstallHostManifest(filepath.Join(profile, "NativeMessagingHosts"), extension.NativeHost, opts.Reins, extension.Origin); err != nil {
		return nil, err
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
	if opts.DevTools {
		args = append(args, "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1")
	}
	args = append(args, opts.Args...)
	if opts.URL != "" {
		args = append(args, opts.URL)
	}
	logPath := filepath.Join(opts.Dir, "chromium.log")
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(append(os.Environ(), opts.Env...), "DISPLAY="+opts.Display, "REINS_DATA_DIR="+opts.DataDir)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	p := &Process{cmd: cmd, exited: make(chan struct{}), opts: opts, LogPath: logPath, Profile: profile}
	go func() {
		cmd.Wait()
		logf.Close()
		close(p.exited)
	}()
	return p, nil
}

// Restart stops Chromium and launches it again with the same options, on
// the same profile folder: as a person who quits the browser and opens it
// again, it keeps the profile's storage and loses the browser's session.
// The log of the run that ended is kept beside the new one, with ".1"
// added to its name.
func (p *Process) Restart() (*Process, error) {
	p.Stop()
	// It names the port of the Chromium that stopped until the next one
	// writes its own.
	if err := os.Remove(filepath.Join(p.Profile, DevToolsFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if err := os.Rename(p.LogPath, p.LogPath+".1"); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	return Launch(p.opts)
}

// Exited is closed once Chromium's main process has ended.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// BuildReins compiles the reins binary into dir and returns its path: Chrome
// starts it as the native messaging host, so it must be a real executable.
func BuildReins(dir string) (string, error) {
	out := filepath.Join(dir, "reins")
	cmd := exec.Command("go", "build", "-o", out, "./app/cmd/reins")
	cmd.Dir = ModuleRoot()
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building reins: %v\n%s", err, b)
	}
	return out, nil
}

// ModuleRoot is the folder of go.mod.
func ModuleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// PID is Chromium's process id; its process group has the same id.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Stop ends Chromium's whole process group, by its id, and waits until no
// process of the group is left.
func (p *Process) Stop() {
	pgid := p.cmd.Process.Pid
	select {
	case <-p.exited:
	default:
		syscall.Kill(-pgid, syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(5 * time.Second):
			syscall.Kill(-pgid, syscall.SIGKILL)
			<-p.exited
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for GroupAlive(pgid) && time.Now().Before(deadline) {
		syscall.Kill(-pgid, syscall.SIGKILL)
		time.Sleep(50 * time.Millisecond)
	}
}

// GroupAlive reports whether any process of the group is still running.
func GroupAlive(pgid int) bool { return syscall.Kill(-pgid, 0) == nil }
