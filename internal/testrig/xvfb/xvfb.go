// Package xvfb runs a private virtual X server for tests that need a real
// display. Each server picks its own free display number (-displayfd), so
// parallel test runs never collide.
package xvfb

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reins-app/reins/internal/testrig/testenv"
)

// Options configures [Start].
type Options struct {
	Screen string // optional: screen 0 as WIDTHxHEIGHTxDEPTH; default "1280x800x24"
	Path   string // optional: the Xvfb program; default "Xvfb" on PATH
}

// Server is a running Xvfb.
type Server struct {
	Display string // ":N", for DISPLAY or an X client's options

	cmd    *exec.Cmd
	exited chan struct{} // closed once cmd.Wait has returned
	stderr *tailBuffer

	closeOnce sync.Once
	closeErr  error
}

// stopGrace is how long Close lets the server shut down after SIGTERM before
// it is killed.
const stopGrace = 3 * time.Second

// Start runs Xvfb and returns once it accepts connections. ctx bounds only
// the start: the server runs until [Server.Close]. The server runs in its
// own process group, so Close also stops the keymap compiler it spawns.
func Start(ctx context.Context, opts Options) (*Server, error) {
	if opts.Screen == "" {
		opts.Screen = "1280x800x24"
	}
	if opts.Path == "" {
		opts.Path = "Xvfb"
	}
	if !supported {
		return nil, errors.New("xvfb: Xvfb runs on Linux and other Unix systems only")
	}
	path, err := exec.LookPath(opts.Path)
	if err != nil {
		return nil, fmt.Errorf("xvfb: %w (install the xvfb package)", err)
	}

	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("xvfb: %w", err)
	}
	defer r.Close()

	stderr := &tailBuffer{max: 4096}
	// The pipe's write end is the child's fd 3: the first of ExtraFiles.
	cmd := exec.Command(path, "-displayfd", "3", "-screen", "0", opts.Screen, "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{w}
	cmd.Stderr = stderr
	cmd.SysProcAttr = ownGroup()
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, fmt.Errorf("xvfb: %w", err)
	}
	// Only the child holds the write end now, so the read below ends with
	// EOF if Xvfb dies before naming its display.
	w.Close()

	s := &Server{cmd: cmd, exited: make(chan struct{}), stderr: stderr}
	go func() {
		_ = cmd.Wait()
		close(s.exited)
	}()

	type result struct {
		line string
		err  error
	}
	got := make(chan result, 1)
	go func() {
		line, err := bufio.NewReader(r).ReadString('\n')
		got <- result{line, err}
	}()

	fail := func(err error) (*Server, error) {
		s.Close()
		if tail := strings.TrimSpace(stderr.String()); tail != "" {
			err = fmt.Errorf("%w; Xvfb said: %s", err, tail)
		}
		return nil, fmt.Errorf("xvfb: %w", err)
	}
	select {
	case <-ctx.Done():
		return fail(fmt.Errorf("not ready: %w", ctx.Err()))
	case res := <-got:
		if res.err != nil {
			return fail(errors.New("exited before naming its display"))
		}
		n, err := strconv.Atoi(strings.TrimSpace(res.line))
		if err != nil {
			return fail(fmt.Errorf("unexpected display number %q", res.line))
		}
		s.Display = ":" + strconv.Itoa(n)
		return s, nil
	}
}

// Close stops the server: SIGTERM to its process group, SIGKILL if it is
// still running after a grace period. It waits for the server to exit and is
// safe to call more than once.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		select {
		case <-s.exited:
			return // already reaped: its pid may belong to someone else by now
		default:
		}
		pgid := s.cmd.Process.Pid
		_ = signalGroup(pgid, false)
		select {
		case <-s.exited:
			return
		case <-time.After(stopGrace):
		}
		if err := signalGroup(pgid, true); err != nil {
			s.closeErr = fmt.Errorf("xvfb: kill %d: %w", pgid, err)
		}
		<-s.exited
	})
	return s.closeErr
}

// StartT starts a server with the given screen ("" for the default) for the
// duration of t. Without Xvfb the test is skipped, or fails when CI is set.
func StartT(t testing.TB, screen string) *Server {
	t.Helper()
	path := testenv.NeedCommand(t, "Xvfb")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := Start(ctx, Options{Screen: screen, Path: path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

// tailBuffer keeps the last max bytes written to it: enough of Xvfb's
// complaints to explain a failed start without holding a chatty server's
// whole log.
type tailBuffer struct {
	max int

	mu  sync.Mutex
	buf bytes.Buffer // guarded by mu
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
	if extra := b.buf.Len() - b.max; extra > 0 {
		b.buf.Next(extra)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
