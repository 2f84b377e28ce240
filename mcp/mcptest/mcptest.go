// Package mcptest calls Reins' MCP tools from tests as an agent does, and
// reads what comes back. The mcp package's tests (an in-memory session)
// and the end-to-end tests (the real `reins mcp`) share it.
package mcptest

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// CallTimeout bounds one tool call. It is long, since in an end-to-end
// test a call may wait on a person's answer to a popup.
const CallTimeout = 90 * time.Second

// Result is what one tool call came back with.
type Result struct {
	Text  string // the result's text parts, joined
	IsErr bool   // a tool error: a refusal the agent reads
	Err   error  // the call itself failed: the session broke or CallTimeout passed
}

// Reply is the result's text, or the call's error as "error: …": what a
// test that must not fail on a goroutine can report afterwards.
func (r Result) Reply() string {
	if r.Err != nil {
		return "error: " + r.Err.Error()
	}
	return r.Text
}

// Text joins the text parts of res.
func Text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// Try calls tool with args, within ctx and CallTimeout, and returns what
// came back without failing the test: it may run on any goroutine.
func Try(ctx context.Context, cs *sdk.ClientSession, tool string, args map[string]any) Result {
	ctx, cancel := context.WithTimeout(ctx, CallTimeout)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return Result{Err: err}
	}
	return Result{Text: Text(res), IsErr: res.IsError}
}

// Go is Try on a goroutine of its own, for a call that waits on what the
// test does next (a popup to answer); the channel receives its one Result.
func Go(ctx context.Context, cs *sdk.ClientSession, tool string, args map[string]any) <-chan Result {
	ch := make(chan Result, 1)
	go func() { ch <- Try(ctx, cs, tool, args) }()
	return ch
}

// Await receives the Result of a call made with Go. A call that failed
// outright, or no result within CallTimeout and a little, fails the test,
// naming what was awaited; log, if not nil, adds what helps to read the
// failure (the agent's stderr).
func Await(t testing.TB, what string, ch <-chan Result, log fmt.Stringer) Result {
	t.Helper()
	more := ""
	select {
	case r := <-ch:
		if r.Err == nil {
			return r
		}
		if log != nil {
			more = "\n" + log.String()
		}
		t.Fatalf("%s: %v%s", what, r.Err, more)
	case <-time.After(CallTimeout + 10*time.Second):
		t.Fatalf("%s: no answer", what)
	}
	return Result{}
}

// Call calls tool with args and returns its text and whether it is a tool
// error. A call that fails outright fails the test.
func Call(t testing.TB, cs *sdk.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	r := Try(context.Background(), cs, tool, args)
	if r.Err != nil {
		t.Fatalf("%s: %v", tool, r.Err)
	}
	return r.Text, r.IsErr
}

// MustCall calls a tool that must succeed, and returns its text.
func MustCall(t testing.TB, cs *sdk.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	text, isErr := Call(t, cs, tool, args)
	if isErr {
		t.Fatalf("%s failed: %s", tool, text)
	}
	return text
}

// Refused calls a tool that must be refused with code, and returns the
// refusal's text.
func Refused(t testing.TB, cs *sdk.ClientSession, tool string, args map[string]any, code string) string {
	t.Helper()
	text, isErr := Call(t, cs, tool, args)
	if !isErr || !strings.HasPrefix(text, code+": ") {
		t.Fatalf("%s: want a %s tool error, got (error %v) %q", tool, code, isErr, text)
	}
	return text
}

// Ref returns the ref of the element with role and name in a snapshot's
// text, failing the test if there is none.
func Ref(t testing.TB, snapshot, role, name string) string {
	t.Helper()
	m := regexp.MustCompile(`- ` + regexp.QuoteMeta(role) + ` "` + regexp.QuoteMeta(name) + `"[^\n]*\[ref=(f?\d*e\d+)\]`).FindStringSubmatch(snapshot)
	if m == nil {
		t.Fatalf("no %s %q in:\n%s", role, name, snapshot)
	}
	return m[1]
}
