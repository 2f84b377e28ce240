package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"

	"github.com/reins-app/reins/internal/paths"
	"github.com/reins-app/reins/internal/peercred"
)

// `reins selftest` asks the running Reins for its self-test over the same
// local socket `reins mcp` pipes into: launched from a terminal, macOS
// would check the terminal's permissions, not Reins', were the test run in
// the command's own process. The socket serves only the user who runs
// Reins; the test still waits for the person's approval, and acts only in
// a window of its own.

// selfTestHello is the greeting of `reins selftest`.
const selfTestHello = "selftest/1"

// SelfTestRequest is a self-test asked for on the socket.
type SelfTestRequest struct {
	Asker Process // the program that ran `reins selftest`, as the OS tells
	Hand  bool    // the person will move the mouse when asked
	// Out takes the test's lines for the asker: one JSON object a line.
	Out io.Writer
}

// SelfTestFunc runs a self-test for a request on the socket; Options.SelfTest.
type SelfTestFunc func(ctx context.Context, r SelfTestRequest) error

// serveSelfTest answers a `reins selftest` connection.
func (d *Listener) serveSelfTest(c *net.UnixConn, proc Process, h hello) {
	if d.opts.SelfTest == nil {
		writeLine(c, welcome{Error: "this Reins runs no self-test; start Reins from its menu-bar app or `reins serve`"})
		return
	}
	if err := writeLine(c, welcome{OK: true}); err != nil {
		return
	}
	// The test stops when the asker goes away: it waits on the person.
	ctx, cancel := context.WithCancel(d.ctx)
	defer cancel()
	go func() {
		io.Copy(io.Discard, c)
		cancel()
	}()
	if err := d.opts.SelfTest(ctx, SelfTestRequest{Asker: proc, Hand: h.Hand, Out: c}); err != nil {
		writeLine(c, struct {
			Error string `json:"error"`
		}{err.Error()})
	}
}

// AskSelfTest asks the Reins that serves dataDir ("" for the default data
// folder) for its self-test, and returns its lines: JSON objects, one a
// line, until the test ends. hand asks the test to have the person move
// the mouse once. An error wraps ErrNotRunning when no Reins answers.
func AskSelfTest(ctx context.Context, dataDir string, hand bool) (io.ReadCloser, error) {
	if dataDir == "" {
		var err error
		if dataDir, err = paths.DataDir(); err != nil {
			return nil, err
		}
	}
	path := filepath.Join(dataDir, SocketFile)
	var dl net.Dialer
	conn, err := dl.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, fmt.Errorf("%w (no answer on %s: %v)", ErrNotRunning, path, err)
	}
	ppid := os.Getppid()
	exe, _ := peercred.Exe(ppid)
	if err := writeLine(conn, hello{Reins: selfTestHello, PPID: ppid, Exe: exe, Hand: hand}); err != nil {
		conn.Close()
		return nil, fmt.Errorf("Reins closed its socket at once: %w", err)
	}
	br := bufio.NewReader(conn)
	line, err := br.ReadSlice('\n')
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("Reins closed its socket without answering: %w", err)
	}
	var w welcome
	if json.Unmarshal(line, &w) != nil || !w.OK {
		conn.Close()
		if w.Error == "" {
			w.Error = "it did not understand this reins selftest; use the reins binary that is running"
		}
		return nil, fmt.Errorf("Reins refused the self-test: %s", w.Error)
	}
	context.AfterFunc(ctx, func() { conn.Close() })
	return readCloser{br, conn}, nil
}
