package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/mcp"
	"github.com/reins-app/reins/persondoor"
)

// selfTestLine is one line the running Reins sends `reins selftest`: a
// check that ended, a line for the person, the report at the end, or why
// the test could not run.
type selfTestLine struct {
	Check  *persondoor.SelfTestCheck  `json:"check,omitempty"`
	Say    string                     `json:"say,omitempty"`
	Report *persondoor.SelfTestReport `json:"report,omitempty"`
	Error  string                     `json:"error,omitempty"`
}

// runSelfTest is `reins selftest`: it asks the running Reins for its
// self-test, shows each check as it ends and prints the report. It fails
// when a check failed.
func runSelfTest(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("selftest", flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	hand := fs.Bool("hand", false, "ask you, once, to move the mouse, so that the watch on your hand shows it sees your own mouse")
	asJSON := fs.Bool("json", false, "print the report as JSON instead of a table")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return errors.New("usage: reins selftest [-hand] [-json]")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	lines, err := mcp.AskSelfTest(ctx, "", *hand)
	if errors.Is(err, mcp.ErrNotRunning) {
		return fmt.Errorf("Reins is not running, and the self-test runs inside it: open Reins (or start `reins serve`), then run reins selftest again, or choose Run self-test… in Reins' menu (%w)", err)
	}
	if err != nil {
		return err
	}
	defer lines.Close()
	fmt.Fprintln(os.Stderr, "Reins asks for your approval first: allow the self-test in its popup.")
	report, err := readSelfTest(lines, os.Stderr)
	if err != nil {
		return err
	}
	if *asJSON {
		b, err := json.MarshalIndent(report, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "%s\n", b)
	} else {
		fmt.Fprint(out, persondoor.FormatSelfTest(report))
	}
	if failed := report.Failed(); len(failed) > 0 {
		return fmt.Errorf("the self-test failed: %s", strings.Join(failed, ", "))
	}
	return nil
}

// readSelfTest follows the test's lines, saying each check and each line
// for the person on progress, until the report.
func readSelfTest(r io.Reader, progress io.Writer) (persondoor.SelfTestReport, error) {
	dec := json.NewDecoder(r)
	for {
		var l selfTestLine
		if err := dec.Decode(&l); err != nil {
			if errors.Is(err, io.EOF) {
				err = errors.New("Reins ended the self-test without a report (did it quit?)")
			}
			return persondoor.SelfTestReport{}, err
		}
		switch {
		case l.Error != "":
			return persondoor.SelfTestReport{}, errors.New(l.Error)
		case l.Report != nil:
			return *l.Report, nil
		case l.Say != "":
			fmt.Fprintf(progress, ">> %s\n", l.Say)
		case l.Check != nil:
			fmt.Fprintf(progress, "   %-6s %s\n", l.Check.Result, l.Check.Name)
		}
	}
}

// selfTestFront is what the running Reins needs to serve `reins selftest`:
// its person's door, and the tray's own account of its item once the tray
// is up.
type selfTestFront struct {
	door persondoor.Door

	mu   sync.Mutex
	tray func() persondoor.SelfTestCheck // guarded by mu; nil without a tray
}

func (f *selfTestFront) setTray(tray func() persondoor.SelfTestCheck) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tray = tray
}

// serve runs a self-test `reins selftest` asked for, sending its lines.
func (f *selfTestFront) serve(ctx context.Context, r mcp.SelfTestRequest) error {
	tester, ok := f.door.(persondoor.SelfTester)
	if !ok {
		return errors.New("this Reins has no self-test")
	}
	f.mu.Lock()
	tray := f.tray
	f.mu.Unlock()
	var mu sync.Mutex
	enc := json.NewEncoder(r.Out)
	send := func(l selfTestLine) {
		mu.Lock()
		defer mu.Unlock()
		enc.Encode(l)
	}
	report, err := tester.SelfTest(ctx, persondoor.SelfTestOptions{
		Asker: persondoor.SelfTestAsker{PID: r.Asker.PID, Exe: r.Asker.Exe},
		Hand:  r.Hand,
		Tray:  tray,
		Progress: func(ev persondoor.SelfTestEvent) {
			send(selfTestLine{Check: ev.Check, Say: ev.Say})
		},
	})
	if err != nil {
		return err
	}
	send(selfTestLine{Report: &report})
	return nil
}

// runSelfTestGuardParent is the parent of a release guard that the
// self-test kills: it starts `reins release-guard` with args and passes it
// what Reins writes, so that when this process dies the guard's input
// ends, as it does when Reins dies.
func runSelfTestGuardParent(args []string) error {
	exe := releaseGuardProgram()
	if exe == "" {
		return errors.New("cannot find this program to start the release guard")
	}
	cmd := exec.Command(exe, append([]string{core.ReleaseGuardMode}, args...)...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	// Ignored as the guard ignores them: only the end of its input, or a
	// kill, ends it.
	signal.Ignore(syscall.SIGINT, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGPIPE)
	io.Copy(in, os.Stdin)
	in.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		return errors.New("the release guard did not exit when its input ended")
	}
}
