package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/mcp"
)

// runMCP is the agents' stdio door: MCP on stdin and stdout, piped to the
// running Reins. Agents start it themselves (see the README's configs);
// nothing but MCP may ever be written to stdout.
func runMCP(args []string) error {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return errors.New("usage: reins mcp (it takes no arguments; an agent starts it and speaks MCP on its stdin and stdout)")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return mcp.Pipe(ctx, mcp.PipeOptions{Stdin: os.Stdin, Stdout: os.Stdout})
}

// startListener opens the agents' listeners of a started Reins: the socket that
// `reins mcp` pipes into (and `reins selftest` asks selfTest on) and the
// HTTP listener on 127.0.0.1, whose address and token it prints to out. The
// returned function closes it.
func startListener(ctx context.Context, rt *core.Runtime, httpPort int, logf func(string, ...any), selfTest mcp.SelfTestFunc) (func(), error) {
	l, err := mcp.Start(ctx, mcp.Options{Agents: rt.AgentDoor(), DataDir: rt.DataDir, HTTPPort: httpPort, Logf: logf, SelfTest: selfTest})
	if err != nil {
		return nil, err
	}
	if l.Port() != 0 {
		fmt.Fprintf(os.Stderr, "Agents connect with `reins mcp`, or over HTTP at http://127.0.0.1:%d/mcp with the token in %s.\n", l.Port(), mcp.TokenFile)
	}
	return func() { l.Close() }, nil
}
