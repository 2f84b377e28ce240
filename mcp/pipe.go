package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"

	"github.com/reins-app/reins/internal/paths"
	"github.com/reins-app/reins/internal/peercred"
)

// ErrNotRunning says no Reins answers on the agents' socket.
var ErrNotRunning = errors.New("Reins is not running, so there is nothing for the agent to connect to; start it with `reins serve` (or open Reins.app) and connect the agent again")

// PipeOptions configures [Pipe].
type PipeOptions struct {
	DataDir string    // optional: default Reins' data folder (REINS_DATA_DIR or the user's)
	Stdin   io.Reader // required: the agent's requests
	Stdout  io.Writer // required: the answers
}

// Pipe is `reins mcp`: it connects the agent on stdin and stdout to the
// running Reins through the agents' socket, saying which process started it
// (Reins checks that with the OS), and copies bytes both ways until the agent
// closes stdin or Reins closes the connection. It returns nil when the agent
// ended (Reins then answers what it has and closes), an error saying so when
// Reins closed the connection first, and ErrNotRunning (wrapped) when no
// Reins listens.
func Pipe(ctx context.Context, opts PipeOptions) error {
	dir := opts.DataDir
	if dir == "" {
		var err error
		if dir, err = paths.DataDir(); err != nil {
			return err
		}
	}
	path := filepath.Join(dir, SocketFile)
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return fmt.Errorf("%w (no answer on %s: %v)", ErrNotRunning, path, err)
	}
	c := conn.(*net.UnixConn)
	defer c.Close()
	ppid := os.Getppid()
	exe, _ := peercred.Exe(ppid)
	helloErr := writeLine(c, hello{Reins: helloVersion, PPID: ppid, Exe: exe})
	// A refusal may come before the greeting is read (another user's
	// process is turned away as it connects): read it even when the
	// greeting could not be written.
	br := bufio.NewReader(c)
	line, err := br.ReadSlice('\n')
	switch {
	case err != nil && helloErr != nil:
		return fmt.Errorf("Reins closed the agents' socket at once: %w", helloErr)
	case err != nil:
		return fmt.Errorf("Reins closed the agents' socket without answering: %w", err)
	}
	var w welcome
	if json.Unmarshal(line, &w) != nil || !w.OK {
		if w.Error == "" {
			w.Error = "it did not understand this reins mcp; use the reins binary that is running"
		}
		return fmt.Errorf("Reins refused the connection: %s", w.Error)
	}

	fromReins := make(chan error, 1)
	go func() {
		_, err := io.Copy(opts.Stdout, br)
		fromReins <- err
	}()
	// agentEnd says how the agent's side ended: nil when its stdin closed.
	// It is sent before CloseWrite, so by the time Reins has seen the end
	// and closed its side, it is here to tell that apart from Reins going
	// away on its own.
	agentEnd := make(chan error, 1)
	go func() {
		in := &readFailure{r: opts.Stdin}
		_, err := io.Copy(c, in)
		if err != nil && in.err == nil {
			return // writing to Reins failed: its side says why
		}
		if in.err != nil {
			err = fmt.Errorf("reading the agent's requests: %w", in.err)
		}
		agentEnd <- err
		c.CloseWrite() // let Reins answer what it has and close
	}()
	select {
	case err := <-agentEnd:
		select { // Reins answers what it was asked, then closes
		case <-fromReins:
		case <-ctx.Done():
			return ctx.Err()
		}
		return err
	case err := <-fromReins:
		select {
		case err := <-agentEnd:
			return err // Reins closed because the agent had ended
		default:
		}
		// Reins ended the connection first: it quit, or the agent was cut off.
		if err != nil {
			return fmt.Errorf("the connection to Reins broke: %w", err)
		}
		return errors.New("Reins closed the connection (did it quit?); start it again and reconnect the agent")
	case <-ctx.Done():
		return ctx.Err()
	}
}

// readFailure keeps the error of a failed read, to tell it from a failed
// write in what io.Copy returns.
type readFailure struct {
	r   io.Reader
	err error // set by Read before it returns the error
}

func (f *readFailure) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err != nil && err != io.EOF {
		f.err = err
	}
	return n, err
}
