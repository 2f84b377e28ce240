package core

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/bridge"
	"github.com/reins-app/reins/deskread"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/executor/hotkey"
	"github.com/reins-app/reins/extension"
	"github.com/reins-app/reins/internal/folderlock"
	"github.com/reins-app/reins/internal/paths"
	"github.com/reins-app/reins/internal/peercred"
	"github.com/reins-app/reins/keychord"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/policy"
	"github.com/reins-app/reins/settings"
)

// StartOptions configures [Start].
type StartOptions struct {
	DataDir  string            // optional: default paths.DataDir()
	Port     int               // optional: the bridge's port; 0 takes the saved setting, or picks a free one
	Executor executor.Executor // optional: default the platform's real one
	// Reader reads the desktop; default the platform's real one when
	// Executor is nil too, else none (every read refused).
	Reader          deskread.Reader // optional
	Display         string          // optional, X11: the display for the default executor; default $DISPLAY
	ApprovalTimeout time.Duration   // optional: default the saved setting, else 30 s
	Logf            func(format string, args ...any)
	// WithoutDisplay starts Reins even when the default executor finds no
	// display to send input to (`reins serve` on a machine without a
	// desktop): reads, shares, snapshots and approvals work, and every act
	// that is OS input is refused, audited, saying why
	// ([Runtime.InputUnavailable]). Otherwise Start fails then.
	WithoutDisplay bool // optional
	// PersonTerminal says the person answers in the terminal that started
	// Reins (reins serve): no desktop input may land on it, and none is
	// put on the desktop while Reins cannot tell which window shows it.
	PersonTerminal bool // optional
	// SystemLog is the system log's unix socket that gets each audit row's
	// seq and hash; "" the platform's (/dev/log, /var/run/syslog), "off"
	// none. Tests give their own.
	SystemLog string // optional
	// Program is the program "start at login" registers; default this one.
	// Tests give an installed one: a test binary's build folder goes away.
	Program string // optional
	// ReleaseGuard is the reins binary to run as `reins release-guard`,
	// the dead man's switch that lets go of every key and button Reins
	// holds when Reins dies ([ServeReleaseGuard]); the mains give their
	// own executable. Empty runs none, for tests that start the core in
	// their own process. Only with the executor Start makes itself.
	ReleaseGuard string // optional
	// WindowsHand, where set, tells the person's own clicks on Reins'
	// windows from a program's in place of the executor's listener: on
	// macOS, the presses AppKit hands Reins' own windows (app/macwin),
	// which need no permission.
	WindowsHand persondoor.Hand // optional
	// TestOnlyMisplace is Options.TestOnlyMisplace.
	TestOnlyMisplace func(x, y float64) (float64, float64)
	// Policy is where the organisation's policy is read, at start and as
	// it changes; default policy.System(), the one place this computer
	// keeps it.
	Policy policy.Source // optional
	// SelfTestProgram is the reins binary the self-test runs in its
	// helper modes: its window (SelfTestWindowMode) and the parent of a
	// release guard it kills (SelfTestGuardParentMode). Empty: the
	// self-test says it cannot show its window.
	SelfTestProgram string // optional
	// TestOnlyExecutor, in test builds only, replaces the executor Start
	// made (once its release guard is attached) with what it returns: one
	// broken on purpose, for the self-test to catch.
	TestOnlyExecutor func(executor.Executor) executor.Executor
}

// ReleaseGuardMode is the argument that runs the reins binary as the
// release guard.
const ReleaseGuardMode = "release-guard"

// Runtime is a started Reins: the engine and what it runs on.
type Runtime struct {
	*Engine
	DataDir string
	display string
	bridge  *bridge.Server
	log     *audit.Log
	exec    executor.Executor
	read    deskread.Reader // nil when the caller gave the executor and no reader
	cancel  context.CancelFunc
	done    chan struct{}
	lock    *folderlock.Lock // the data folder, held until Close has closed everything else

	keys pauseKeys
	hand *personsHand // the person's own clicks on Reins' controls; see personshand.go
	// windowsHand, if set, answers for hand (StartOptions.WindowsHand).
	windowsHand persondoor.Hand

	selfTestProgram string
	selfTesting     atomic.Bool // a self-test runs

	closeOnce sync.Once
	closeErr  error
}

// Start takes the data folder for this process, opens the audit log, starts
// the bridge on 127.0.0.1, publishes its port for the extension's pairing,
// and runs the engine. When another Reins holds the folder it returns an
// error wrapping [ErrAlreadyRunning] that says who, having touched nothing
// in the folder; the folder is held until Close.
func Start(ctx context.Context, opts StartOptions) (*Runtime, error) {
	dir := opts.DataDir
	var err error
	if dir == "" {
		if dir, err = paths.EnsureDataDir(); err != nil {
			return nil, err
		}
	} else if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	// Before anything in the folder is read or written: a second Reins
	// would take over the first one's sockets and address files.
	lock, err := folderlock.Take(dir)
	if err != nil {
		return nil, err
	}
	r, err := start(ctx, opts, dir)
	if err != nil {
		lock.Release()
		return nil, err
	}
	r.lock = lock
	return r, nil
}

// start is Start once the data folder is Reins' own.
func start(ctx context.Context, opts StartOptions, dir string) (*Runtime, error) {
	secret, err := bridge.LoadOrCreateSecret(dir)
	if err != nil {
		return nil, err
	}
	store := settings.File{Path: filepath.Join(dir, settings.FileName)}
	saved, problems := store.Load()
	for _, p := range problems {
		logf(opts.Logf, "settings: %s", p)
	}
	// The organisation's policy before the log opens: it says where the
	// log's copies go, over the person's settings.
	src := opts.Policy
	if src == nil {
		src = policy.System()
	}
	pol := src.Read()
	anchor := ManagedAnchor(AnchorOptions(saved, opts.SystemLog), pol.Effective())
	anchor.Logf = func(format string, args ...any) { logf(opts.Logf, format, args...) }
	var engine atomic.Pointer[Engine] // the engine is made once the log is open
	anchor.OnChange = func() {
		if e := engine.Load(); e != nil {
			e.publish(persondoor.Event{Kind: persondoor.EventAuditAnchor})
		}
	}
	retention := ManagedRetention(RetentionOptions(saved), pol.Effective())
	log, err := audit.Open(ctx, audit.Options{Path: filepath.Join(dir, "audit.db"), Anchor: &anchor, Retention: &retention})
	if err != nil {
		return nil, fmt.Errorf("opening the audit log: %w", err)
	}
	// This Reins holds the folder and has fired nothing yet: a fire row
	// without an outcome is an act a Reins that stopped without a word
	// was firing.
	if ended, err := log.FinishStopped(ctx); err != nil {
		log.Close()
		return nil, fmt.Errorf("marking the acts Reins stopped during: %w", err)
	} else if len(ended) > 0 {
		logf(opts.Logf, "Reins stopped while %d act(s) were firing (audit rows %v); their outcome is recorded as unknown", len(ended), ended)
	}
	ex := opts.Executor
	if ex == nil {
		if ex, err = executor.New(executor.Options{Display: opts.Display, SheetFocus: deskread.SheetFocus}); err != nil {
			if !opts.WithoutDisplay || !errors.Is(err, executor.ErrNoDisplay) {
				log.Close()
				return nil, err
			}
			ex = executor.NewNoDisplay(err)
		}
		guardInput(ex, opts)
		if opts.TestOnlyExecutor != nil {
			ex = opts.TestOnlyExecutor(ex)
		}
	}
	rd := opts.Reader
	if rd == nil && opts.Executor == nil {
		if why := executor.InputUnavailable(ex); why != nil {
			rd = deskread.NewUnavailable(why)
		} else if rd, err = deskread.New(deskread.Options{Display: opts.Display, Windows: ex.Windows}); err != nil {
			log.Close()
			ex.Close()
			return nil, err
		}
	}
	closeAll := func() {
		ex.Close()
		if rd != nil {
			rd.Close()
		}
	}
	port := opts.Port
	if port == 0 {
		port = saved.BridgePort
	}
	timeout := opts.ApprovalTimeout
	if timeout == 0 {
		timeout = saved.ApprovalTimeout
	}
	br, err := startBridge(port, secret, opts.Logf)
	if err != nil && port != opts.Port {
		// The saved port is taken; the extension learns any port through pairing.
		logf(opts.Logf, "settings: the saved bridge port %d cannot be used (%v); picking a free one", port, err)
		br, err = startBridge(0, secret, opts.Logf)
	}
	if err != nil {
		log.Close()
		closeAll()
		return nil, err
	}
	if err := bridge.WriteAddress(dir, bridge.Address{Port: br.Port(), PID: os.Getpid()}); err != nil {
		br.Close()
		log.Close()
		closeAll()
		return nil, err
	}
	e := New(Options{
		Browser: br, Audit: log, Executor: ex, Reader: rd, ApprovalTimeout: timeout, RememberFor: saved.RememberFor, Logf: opts.Logf,
		Settings: store, Login: settings.Desktop{Executable: opts.Program}, PersonTerminal: opts.PersonTerminal, saved: saved,
		TestOnlyMisplace: opts.TestOnlyMisplace, Policy: pol, Binary: BinaryHash(),
	})
	if opts.Executor == nil {
		// On a real desktop other Reins may run too: their windows are
		// every Reins' own.
		e.own.scan = peercred.ReinsProcesses
	}
	engine.Store(e)
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	r := &Runtime{Engine: e, DataDir: dir, display: opts.Display, bridge: br, log: log, exec: ex, read: rd, cancel: cancel, done: make(chan struct{}),
		hand: newPersonsHand(opts.Display, ex), windowsHand: opts.WindowsHand,
		selfTestProgram: opts.SelfTestProgram}
	e.ServeStrip(rctx, br) // the badge and side panel in Chrome
	if pol.Managed() {
		// Without a policy no organisation reads the log; a change to or
		// from one is written whenever it comes.
		e.recordPolicy("Reins started")
	}
	watching := make(chan struct{})
	go func() {
		defer close(watching)
		r.watchPolicy(rctx, src)
	}()
	go func() {
		defer close(r.done)
		e.Run(rctx)
		<-watching
	}()
	return r, nil
}

// guardInput lets go of whatever a Reins that died with its release guard
// left held on this desktop, then starts this Reins' release guard.
func guardInput(ex executor.Executor, opts StartOptions) {
	if left, err := executor.LetGoOfLeftovers(ex); err != nil {
		logf(opts.Logf, "letting go of input left held: %v", err)
	} else if len(left) > 0 {
		logf(opts.Logf, "let go of input left held down as Reins started: %s", strings.Join(left, ", "))
	}
	if opts.ReleaseGuard == "" || executor.InputUnavailable(ex) != nil {
		return
	}
	args := []string{ReleaseGuardMode}
	if opts.Display != "" {
		args = append(args, "-display", opts.Display)
	}
	g := executor.StartGuard(executor.GuardOptions{
		Program: opts.ReleaseGuard, Args: args,
		Logf: func(format string, args ...any) { logf(opts.Logf, format, args...) },
	})
	if !executor.AttachGuard(ex, g) {
		g.Close()
	}
}

// ServeReleaseGuard is the release guard's mode: told by the Reins that
// started it, over stdin, of every key and button it holds, it lets go of
// them when stdin ends (Reins has died or closed) and exits. display is
// the X display, "" for $DISPLAY.
func ServeReleaseGuard(stdin io.Reader, stdout io.Writer, display string) ([]string, error) {
	return executor.ServeGuard(stdin, stdout, display)
}

// ErrAlreadyRunning is wrapped by Start's error when another Reins holds
// the data folder.
var ErrAlreadyRunning = folderlock.ErrHeld

// InputUnavailable returns why this Reins can send no input at all (it
// started WithoutDisplay and found none), or nil when it can. The error
// wraps the executor's account of the missing display.
func (r *Runtime) InputUnavailable() error { return executor.InputUnavailable(r.exec) }

// WatchPauseHotkey pauses every agent when the person presses the pause
// chord anywhere on the desktop: the chord in the settings, and from then on
// the one the person chooses in Preferences, until ctx ends. Resuming is
// left to the menu, so a second press can never let agents loose again by
// accident. It returns once the chord is taken, or with why it cannot be
// (another program holds it); the person can still choose another.
//
// On macOS the chord is taken on the main thread's run loop, so neither
// this nor SetPauseChord may be called from the main thread.
func (r *Runtime) WatchPauseHotkey(ctx context.Context) error {
	take := func(chord string) error { return r.takePauseChord(ctx, chord) }
	r.prefs.hotkeyMu.Lock()
	r.prefs.takeHotkey = take
	r.prefs.hotkeyMu.Unlock()
	context.AfterFunc(ctx, func() {
		r.prefs.hotkeyMu.Lock()
		r.prefs.takeHotkey = nil
		r.prefs.hotkeyMu.Unlock()
	})
	return take("")
}

// PauseChordTaken reports whether the pause chord in the settings is held
// for Reins now.
func (r *Runtime) PauseChordTaken() bool {
	chord := r.Settings().PauseChord
	r.keys.mu.Lock()
	defer r.keys.mu.Unlock()
	return r.keys.cancel != nil && r.keys.chord == chord
}

// DefaultPauseChord is the pause chord until the person chooses another.
const DefaultPauseChord = keychord.PauseChord

// hotkeyWait is how long taking a chord may take before it counts as
// failed; longer than the macOS executor's own wait for the main thread, so
// that its explanation is the one the person reads.
const hotkeyWait = 35 * time.Second

// pauseKeys is the pause chord Reins holds across the desktop.
type pauseKeys struct {
	mu     sync.Mutex
	chord  string             // guarded by mu: the chord held, or ""
	cancel context.CancelFunc // guarded by mu: lets it go
}

// takePauseChord takes chord for Reins until ctx ends, and only then lets
// the chord held before go, so that there is always a chord while the
// person changes it.
//
// An empty chord is the one in the settings, taken only when no chord is
// held yet: a change the person made meanwhile has taken its own.
func (r *Runtime) takePauseChord(ctx context.Context, chord string) error {
	r.keys.mu.Lock()
	defer r.keys.mu.Unlock()
	if chord == "" {
		if r.keys.cancel != nil {
			return nil
		}
		chord = r.Settings().PauseChord
	}
	if chord == r.keys.chord && r.keys.cancel != nil {
		return nil
	}
	wctx, stopWatch := context.WithCancel(ctx)
	ready := make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		errc <- hotkey.Watch(wctx, hotkey.Options{
			Chord: chord, Display: r.display, Pressed: func() { r.Pause(true) }, Ready: func() { close(ready) },
		})
	}()
	// cancel lets the chord go and returns once it is gone.
	cancel := sync.OnceFunc(func() {
		stopWatch()
		<-errc
	})
	timer := time.NewTimer(hotkeyWait)
	defer timer.Stop()
	select {
	case <-ready:
	case err := <-errc:
		stopWatch()
		if err == nil {
			err = errors.New("Reins is stopping")
		}
		return err
	case <-timer.C:
		stopWatch()
		return fmt.Errorf("the desktop did not hand it over within %s", hotkeyWait)
	}
	if r.keys.cancel != nil {
		r.keys.cancel()
	}
	r.keys.chord, r.keys.cancel = chord, cancel
	return nil
}

// Port is the bridge's port.
func (r *Runtime) Port() int { return r.bridge.Port() }

// VerifyAudit checks the audit log's hash chain and returns how many rows,
// from the first, are intact.
func (r *Runtime) VerifyAudit(ctx context.Context) (int, error) { return r.log.Verify(ctx) }

func startBridge(port int, secret []byte, logf func(string, ...any)) (*bridge.Server, error) {
	br, err := bridge.New(bridge.Options{
		Addr: "127.0.0.1:" + strconv.Itoa(port), Origin: extension.Origin, Secret: secret, Logf: logf,
	})
	if err == nil {
		err = br.Start()
	}
	return br, err
}

func logf(f func(string, ...any), format string, args ...any) {
	if f == nil {
		f = log.Printf
	}
	f(format, args...)
}

// Close stops everything: pending approvals are denied, the extension is
// told, the log is closed.
func (r *Runtime) Close() error {
	r.closeOnce.Do(func() {
		r.Engine.Close()
		r.hand.close()
		bridge.RemoveAddress(r.DataDir)
		err := r.bridge.Close()
		r.cancel()
		<-r.done
		r.closeErr = errors.Join(err, r.log.Close(), r.exec.Close(), r.closeReader(), r.lock.Release())
	})
	return r.closeErr
}

// ServeNativeHost is the helper mode Chrome starts for pairing: it answers
// one request on stdin/stdout and exits. caller is Chrome's first argument.
func ServeNativeHost(stdin io.Reader, stdout io.Writer, caller string) error {
	dir, err := paths.DataDir()
	if err != nil {
		return err
	}
	return bridge.ServeNativeHost(stdin, stdout, dir, caller, extension.Origin)
}

// InstallNativeHost writes the host manifest that lets Chrome start exe for
// the Reins extension, into dir (a NativeMessagingHosts folder). An exe on
// the disk image or in the copy macOS runs a downloaded app from is refused:
// the manifest would name a program gone once the image is ejected or
// Reins is moved.
func InstallNativeHost(dir, exe string) (string, error) {
	if strings.HasPrefix(exe, "/Volumes/") || strings.Contains(exe, "/AppTranslocation/") {
		return "", fmt.Errorf("Reins is running from %s, which will not be there for Chrome later; drag Reins to Applications, open it from there, and try again", exe)
	}
	return bridge.InstallHostManifest(dir, extension.NativeHost, exe, extension.Origin)
}

// AuditReport is what VerifyAuditFile found.
type AuditReport = audit.Report

// AuditPath is the audit log's file in dataDir ("" for the default data
// folder), the name its anchor lines carry (db=…).
func AuditPath(dataDir string) (string, error) {
	if dataDir == "" {
		var err error
		if dataDir, err = paths.DataDir(); err != nil {
			return "", err
		}
	}
	return filepath.Abs(filepath.Join(dataDir, "audit.db"))
}

// VerifyAuditFile checks the audit log in dataDir ("" for the default)
// without writing to it, against the anchor lines in anchor when it is not
// nil (a file a syslog receiver wrote, or journalctl's output); id names
// the log in those lines, "" for its path. A changed, cut or rewritten
// chain is an error wrapping audit.ErrTampered naming the first bad row.
func VerifyAuditFile(ctx context.Context, dataDir string, anchor io.Reader, id string) (AuditReport, error) {
	path, err := AuditPath(dataDir)
	if err != nil {
		return AuditReport{}, err
	}
	var a *audit.Anchor
	if anchor != nil {
		if id == "" {
			id = path
		}
		if a, err = audit.ReadAnchor(anchor, id); err != nil {
			return AuditReport{}, err
		}
	}
	return audit.VerifyFile(ctx, path, a)
}

// OpenAudit opens the log read-write for the audit subcommand.
func OpenAudit(ctx context.Context, dataDir string) (*audit.Log, error) {
	if dataDir == "" {
		var err error
		if dataDir, err = paths.DataDir(); err != nil {
			return nil, err
		}
	}
	return audit.Open(ctx, audit.Options{Path: filepath.Join(dataDir, "audit.db")})
}

// closeReader closes the desktop reader Start made.
func (r *Runtime) closeReader() error {
	if r.read == nil {
		return nil
	}
	return r.read.Close()
}
