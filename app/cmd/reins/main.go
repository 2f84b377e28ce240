// Command reins is the Reins app. With no arguments it starts Reins for the
// person: the tray menu, approval popups and the windows behind them;
// `reins serve` runs the same core with approvals answered on the terminal;
// `reins audit` reads and verifies the log; `reins doctor` says what is
// missing; `reins extension` writes out the Chrome extension to load.
// Chrome itself starts `reins chrome-extension://…/` as the pairing helper,
// and Reins starts `reins release-guard` beside itself as its dead man's
// switch.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	// Before fyne's init reads the locale: see the package's doc.
	_ "github.com/reins-app/reins/app/cmd/reins/internal/clocale"
	"github.com/reins-app/reins/app/macwin"
	"github.com/reins-app/reins/app/serve"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/persondoor"
)

const usage = `Usage:
  reins                 start Reins in the menu bar (the tray)
  reins serve           start Reins, answering approvals on this terminal
  reins mcp             the agents' door over stdio (agents start it; see README)
  reins audit [-n N] [-json] [-verify [-anchor FILE] [-anchor-id ID]]
                        print the last N audit rows, or verify the log's hash chain
                        (only reading), against the rows' copies a syslog receiver
                        kept in FILE (- for stdin, e.g. journalctl -t reins -o cat),
                        and say how far the log is anchored and where
  reins audit -verify -stream FILE
                        check a receiver's file of forwarded rows (syslog or OTLP JSON
                        lines) for gaps, reordering and hash breaks, without this log
  reins audit -export [-since DATE] [-format jsonl|csv]
                        write every row (of every part still kept) written since DATE
                        (2026-01-31, an RFC 3339 time, or a span back such as 720h)
  reins extension [-user-data-dir PROFILE]... DIR
                        write the Chrome extension into DIR and install the pairing helper
                        (also into PROFILE/NativeMessagingHosts for a Chrome started with
                        --user-data-dir=PROFILE)
  reins doctor          say what is missing
  reins selftest [-hand] [-json]
                        ask the running Reins to test, after your approval, what it needs
                        on this computer, in a window of its own, and print what it saw
`

func main() {
	if len(os.Args) > 1 && strings.HasPrefix(os.Args[1], "chrome-extension://") {
		// Chrome starts us as the native messaging host, with the caller's origin.
		if err := core.ServeNativeHost(os.Stdin, os.Stdout, os.Args[1]); err != nil {
			fmt.Fprintln(os.Stderr, "reins pairing:", err)
			os.Exit(1)
		}
		return
	}
	cmd := "tray"
	args := os.Args[1:]
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	var err error
	switch cmd {
	case "tray":
		err = runTray(args)
	case "serve":
		err = runServe(args)
	case "mcp":
		err = runMCP(args)
	case "audit":
		err = runAudit(args, os.Stdout)
	case "extension":
		err = runExtension(args, os.Stdout)
	case "doctor":
		err = runDoctor(os.Stdout)
	case core.ReleaseGuardMode:
		err = runReleaseGuard(args)
	case "selftest":
		err = runSelfTest(args, os.Stdout)
	case core.SelfTestWindowMode:
		err = runSelfTestWindow(args)
	case core.SelfTestGuardParentMode:
		err = runSelfTestGuardParent(args)
	case "help", "-h", "--help":
		fmt.Print(usage)
	default:
		if extra, ok := extraCommands[cmd]; ok {
			err = extra(args)
			break
		}
		fmt.Fprintf(os.Stderr, "reins: unknown command %q\n\n%s", cmd, usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "reins:", err)
		os.Exit(1)
	}
}

// extraCommands holds commands that exist only in some builds (the demo).
var extraCommands = map[string]func(args []string) error{}

func runServe(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	port := fs.Int("port", 0, "the bridge's port on 127.0.0.1 (0 picks a free one)")
	mcpPort := fs.Int("mcp-port", 0, "the agents' HTTP door on 127.0.0.1 (0 picks a free one, -1 keeps it closed)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// A machine without a desktop is what serve is for: it starts there,
	// and only input acts are refused, each saying why.
	logf := func(f string, args ...any) { fmt.Fprintf(os.Stderr, "reins: "+f+"\n", args...) }
	rt, stopReins, err := startCore(ctx, core.StartOptions{Port: *port, WithoutDisplay: true, PersonTerminal: true}, *mcpPort, logf, &selfTestFront{})
	if err != nil {
		return err
	}
	defer stopReins()
	if err := rt.InputUnavailable(); err != nil {
		fmt.Fprintf(os.Stderr, "reins: %v. Agents' input acts (clicks, typing, keys, scrolling, desktop acts) are refused, saying why.\n", err)
	}
	term := &serve.Terminal{Engine: rt.PersonDoor(), In: os.Stdin, Out: os.Stdout, Port: rt.Port(), DataDir: rt.DataDir}
	return term.Run(ctx)
}

// startReins starts the core for the tray, which needs a display, and
// opens the agents' listeners; stop closes both, the listeners first. edit, when
// not nil, changes the options first.
func startReins(ctx context.Context, port, mcpPort int, logf func(string, ...any), front *selfTestFront, edit func(*core.StartOptions)) (rt *core.Runtime, stop func() error, err error) {
	opts := core.StartOptions{Port: port}
	if edit != nil {
		edit(&opts)
	}
	return startCore(ctx, opts, mcpPort, logf, front)
}

// startCore starts the core with opts and opens the agents' listeners, which
// also takes `reins selftest` for front; stop closes both, the door first.
func startCore(ctx context.Context, opts core.StartOptions, mcpPort int, logf func(string, ...any), front *selfTestFront) (rt *core.Runtime, stop func() error, err error) {
	if opts.Logf == nil {
		opts.Logf = logf
	}
	opts.ReleaseGuard = releaseGuardProgram()
	opts.WindowsHand = macwin.Hand() // nil but on macOS
	opts.SelfTestProgram = opts.ReleaseGuard
	rt, err = core.Start(ctx, opts)
	if err != nil {
		return nil, nil, err
	}
	front.door = rt.PersonDoor()
	closeListener, err := startListener(ctx, rt, mcpPort, logf, front.serve)
	if err != nil {
		rt.Close()
		return nil, nil, err
	}
	installPairing(logf)
	// Without a display there is no keyboard to take the chord from.
	if rt.InputUnavailable() == nil {
		go func() {
			if err := rt.WatchPauseHotkey(ctx); err != nil {
				fmt.Fprintf(os.Stderr, "reins: the pause chord (%s) is not available: %v; choose another in Preferences\n", rt.Settings().PauseChord, err)
			}
		}()
	}
	return rt, sync.OnceValue(func() error {
		closeListener()
		return rt.Close()
	}), nil
}

func runAudit(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("audit", flag.ContinueOnError)
	n := fs.Int("n", 20, "how many rows, newest last")
	asJSON := fs.Bool("json", false, "print rows as JSON lines")
	verify := fs.Bool("verify", false, "check the hash chain instead of printing rows; only reads")
	anchorFile := fs.String("anchor", "", "with -verify: a `FILE` of the rows' anchor lines a syslog receiver kept (- reads stdin)")
	anchorID := fs.String("anchor-id", "", "with -verify: the log's name in the anchor lines (db=…), if not its path")
	stream := fs.String("stream", "", "with -verify: check a receiver's `FILE` of forwarded rows (- reads stdin) instead of this computer's log")
	export := fs.Bool("export", false, "write every row, oldest first, to stdout")
	sinceArg := fs.String("since", "", "with -export: rows written since `WHEN` (2026-01-31, an RFC 3339 time, or a span back such as 720h)")
	format := fs.String("format", "jsonl", "with -export: jsonl or csv")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx := context.Background()
	if *export {
		if *verify {
			return errors.New("-export and -verify are separate: run one, then the other")
		}
		since, err := parseSince(*sinceArg, time.Now())
		if err != nil {
			return err
		}
		_, err = core.ExportAudit(ctx, "", since, *format, out)
		return err
	}
	if *sinceArg != "" || *format != "jsonl" {
		return errors.New("-since and -format go with -export")
	}
	if *verify && *stream != "" {
		if *anchorFile != "" || *anchorID != "" {
			return errors.New("-stream checks a receiver's file on its own; -anchor and -anchor-id check this computer's log")
		}
		return verifyStream(out, *stream)
	}
	if *verify {
		return verifyAudit(ctx, out, *anchorFile, *anchorID)
	}
	if *anchorFile != "" || *anchorID != "" || *stream != "" {
		return errors.New("-anchor, -anchor-id and -stream go with -verify")
	}
	log, err := core.OpenAudit(ctx, "")
	if err != nil {
		return err
	}
	defer log.Close()
	rows, err := core.ReadAudit(ctx, log, persondoor.AuditFilter{Limit: *n})
	if err != nil {
		return err
	}
	for i := len(rows) - 1; i >= 0; i-- {
		if !*asJSON {
			fmt.Fprintln(out, persondoor.FormatAuditRow(rows[i]))
			continue
		}
		// Escaped so that a terminal shows page text as text.
		b, err := persondoor.AuditJSON(rows[i])
		if err != nil {
			return err
		}
		if _, err := out.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// verifyAudit checks the log without writing to it, against the anchor
// in anchorFile when one is given, and says what it found.
func verifyAudit(ctx context.Context, out io.Writer, anchorFile, anchorID string) error {
	var anchor io.Reader
	switch anchorFile {
	case "":
	case "-":
		anchor = os.Stdin
	default:
		f, err := os.Open(anchorFile)
		if err != nil {
			return fmt.Errorf("the anchor file cannot be read: %w", err)
		}
		defer f.Close()
		anchor = f
	}
	rep, err := core.VerifyAuditFile(ctx, "", anchor, anchorID)
	if len(rep.Triggers) > 0 {
		fmt.Fprintf(out, "The append-only triggers %s are missing or changed: someone dropped them with a database tool. Reins puts them back at its next start; keep a copy of the file first.\n", strings.Join(rep.Triggers, ", "))
	}
	if err != nil {
		return err
	}
	switch {
	case anchor == nil:
		fmt.Fprintf(out, "The audit log's hash chain is intact: %d rows. Without an anchor (-anchor FILE), rows deleted from its end or a chain rewritten whole cannot be seen.\n", rep.Rows)
	case rep.AnchorLines == 0 && rep.Rows > 0:
		// Not a pass: nothing was checked against the anchor asked for.
		return fmt.Errorf("the audit log's hash chain is intact (%d rows), but the anchor holds no line for this log (%d for other logs), so nothing was checked against it; check -anchor-id, or that Reins could reach the system log", rep.Rows, rep.AnchorOthers)
	case rep.AnchorLines == 0:
		fmt.Fprintf(out, "The audit log is empty, and so is the anchor for it.\n")
	default:
		fmt.Fprintf(out, "The audit log is intact: %d rows, hash chain verified; %d of them match the anchor, which holds rows up to %d.\n", rep.Rows, rep.Anchored, rep.AnchorHead)
		if int64(rep.Rows) > rep.AnchorHead {
			fmt.Fprintf(out, "Rows %d to %d are not in the anchor: written while it could not be reached, or after the anchor file was taken.\n", rep.AnchorHead+1, rep.Rows)
		}
	}
	if rep.Parts > 1 {
		fmt.Fprintf(out, "The log is kept in %d parts: %d sealed beside it, read-only, and the live one; the chain was followed through all of them.\n", rep.Parts, rep.Parts-1)
	}
	if rep.RemovedBefore > 0 {
		fmt.Fprintf(out, "Rows before %d were removed by retention, as a row in the log records; the chain resumes where it says.\n", rep.RemovedBefore)
	}
	anchoredWhere(out, rep)
	if len(rep.Triggers) > 0 {
		return errors.New("the audit log's triggers were changed outside Reins")
	}
	return nil
}

// anchoredWhere says how far each copy outside the database took the log,
// as the log records it, and which rows no copy holds.
func anchoredWhere(out io.Writer, rep core.AuditReport) {
	var best int64
	for _, d := range rep.Delivered {
		best = max(best, d.Seq)
		how := "handed to it over the network (syslog acknowledges nothing)"
		switch {
		case d.Acknowledged:
			how = "acknowledged by it"
		case d.Destination == "system log":
			how = "written to it on this computer (fetch them with journalctl -t reins -o cat, or from /var/log)"
		}
		when := ""
		if !d.Time.IsZero() {
			when = ", last on " + d.Time.Local().Format("2006-01-02 15:04:05")
		}
		fmt.Fprintf(out, "Anchored: rows up to %d at %s, %s%s.\n", d.Seq, d.Destination, how, when)
	}
	switch {
	case rep.Head == 0:
	case best == 0:
		fmt.Fprintf(out, "Not anchored: no row of this log has left this computer (no system log, no receiver took one), so rows cut from its end or a chain rewritten whole could not be seen. Name a receiver (auditAnchor in settings.json) or start the system's log service.\n")
	case best < rep.Head:
		fmt.Fprintf(out, "Rows %d to %d have not left this computer yet: a cut there could not be seen.\n", best+1, rep.Head)
	}
}

// parseSince reads -since: a date (local midnight), an RFC 3339 time, or a
// span back from now; "" for everything.
func parseSince(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.ParseInLocation("2006-01-02", s, time.Local); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("-since %q is neither a date (2026-01-31), an RFC 3339 time (2026-01-31T09:00:00Z) nor a span back (720h)", s)
}

// verifyStream checks a receiver's file of forwarded rows and says what
// it found for each log in it.
func verifyStream(out io.Writer, file string) error {
	in := io.Reader(os.Stdin)
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return fmt.Errorf("the stream file cannot be read: %w", err)
		}
		defer f.Close()
		in = f
	}
	res, err := core.VerifyAuditStream(in)
	if err != nil {
		return err
	}
	bad := res.Unreadable > 0
	if res.Unreadable > 0 {
		fmt.Fprintf(out, "%d lines look like forwarded rows but cannot be read, the first at line %d: %s.\n", res.Unreadable, res.FirstUnreadable, res.Why)
	}
	if len(res.Logs) == 0 {
		return fmt.Errorf("%d lines read, and none holds a forwarded audit row: is this the receiver's file, and does it keep the structured data (rsyslog: RSYSLOG_SyslogProtocol23Format)?", res.Lines)
	}
	for _, l := range res.Logs {
		fmt.Fprintf(out, "Log %s on %s: rows %d to %d, %d rows", l.ID, l.Host, l.First, l.Last, l.Rows)
		if l.Duplicates > 0 {
			fmt.Fprintf(out, " (%d more received twice with equal hashes, as a sender resends after reconnecting)", l.Duplicates)
		}
		if l.OK() {
			fmt.Fprintf(out, ": complete, in order, every hash verified.\n")
			if l.First > 1 {
				fmt.Fprintf(out, "  Rows before %d are not in this file: they were sent before it was started, or removed by the log's retention.\n", l.First)
			}
			continue
		}
		bad = true
		fmt.Fprintln(out, ":")
		if len(l.Gaps) > 0 {
			var gs []string
			for _, g := range l.Gaps {
				gs = append(gs, g.String())
			}
			fmt.Fprintf(out, "  MISSING rows %s.\n", strings.Join(gs, ", "))
		}
		if l.Reordered > 0 {
			fmt.Fprintf(out, "  OUT OF ORDER: %d rows arrived after a newer one, the first row %d.\n", l.Reordered, l.FirstReordered)
		}
		if l.Broken != nil {
			fmt.Fprintf(out, "  HASH BREAK at row %d: %s.\n", l.Broken.Seq, l.Broken.Why)
		}
	}
	if bad {
		return errors.New("the stream is not complete and intact")
	}
	return nil
}

func runExtension(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("extension", flag.ContinueOnError)
	fs.SetOutput(out)
	var profiles []string
	fs.Func("user-data-dir", "also install the pairing helper for a Chrome or Chromium started with --user-data-dir=`DIR`, which looks only in DIR/NativeMessagingHosts (may be given more than once)", func(dir string) error {
		if dir == "" {
			return errors.New("-user-data-dir needs the folder Chrome was given")
		}
		profiles = append(profiles, dir)
		return nil
	})
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("usage: reins extension [-user-data-dir DIR]... EXTENSION-DIR")
	}
	dir, err := core.WriteExtension(fs.Arg(0))
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	exe, _ = filepath.EvalSymlinks(exe)
	hosts, err := core.NativeHostDirs()
	if err != nil {
		return err
	}
	for _, p := range profiles {
		abs, err := filepath.Abs(p)
		if err != nil {
			return err
		}
		hosts = append(hosts, filepath.Join(abs, "NativeMessagingHosts"))
	}
	for _, h := range hosts {
		p, err := core.InstallNativeHost(h, exe)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "Pairing helper installed: %s\n", p)
	}
	fmt.Fprintf(out, "Extension written to %s.\nIn Chrome, open chrome://extensions, turn on Developer mode, choose \"Load unpacked\" and pick that folder.\n", dir)
	if d := os.Getenv("REINS_DATA_DIR"); d != "" {
		fmt.Fprintf(out, "REINS_DATA_DIR is %s: start Chrome, Reins and your agents with it set, or they will not find one another.\n", d)
	}
	return nil
}

func runDoctor(out io.Writer) error {
	for _, c := range core.Doctor() {
		mark := "ok  "
		switch {
		case !c.OK && c.Optional:
			mark = "absent"
		case !c.OK:
			mark = "MISSING"
		}
		fmt.Fprintf(out, "%-7s %s", mark, c.What)
		if c.Fix != "" && !c.OK {
			fmt.Fprintf(out, " — %s", c.Fix)
		}
		fmt.Fprintln(out)
	}
	for _, l := range core.PolicyReport() {
		fmt.Fprintln(out, l)
	}
	return nil
}

// installPairing installs the pairing helper, this program, for every
// Chrome-family browser this user has where none works yet; the person
// need not run `reins extension` for it.
func installPairing(logf func(string, ...any)) {
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		logf("the pairing helper was not installed: %v", err)
		return
	}
	wrote, err := core.InstallNativeHosts(exe)
	for _, p := range wrote {
		logf("installed the pairing helper for Chrome: %s", p)
	}
	if err != nil {
		logf("the pairing helper could not be installed everywhere: %v", err)
	}
}
