// Package mcp is the agents' front end: a Model Context Protocol server
// whose tools are thin calls through the agents' door (agentdoor), reached
// over a local socket that `reins mcp` pipes stdio into, or over streamable
// HTTP on 127.0.0.1 with a token.
//
// Every connection becomes one agent session, labelled with the client's
// self-declared name and version beside the process the OS says is behind
// it. No tool approves, shares, pauses or changes policy: those belong to
// the person's door, which this package cannot import (internal/deptest).
package mcp

import (
	"context"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/vocab"
)

// Version is the server version reported to clients.
const Version = "0.1.0"

// Process is the program behind a connection, as the OS reports it; the zero
// value means it could not be found.
type Process struct {
	PID int
	Exe string
}

// ServerOptions configures [NewServer].
type ServerOptions struct {
	Agents  agentdoor.Door // required
	Process Process        // optional: the process behind every session of this server
	Settle  time.Duration  // optional: how long a page gets to respond before an act's result is read when the extension cannot tell that it has settled (three times as long after a navigation); default 400 ms
	Logf    func(format string, args ...any)

	// processOf, when set, finds the process per session instead of Process.
	processOf func(*sdk.RequestExtra) Process
}

// handler holds what the tools share: the engine and one core session per
// MCP session.
type handler struct {
	opts     ServerOptions
	sessions sync.Map // *sdk.ServerSession → agentdoor.Session
	budgets  sync.Map // *sdk.ServerSession → int: the session's own max_chars (browser_set_max_chars)
}

// maxChars is the max_chars a call gives, or else the one its session set,
// or else 0 (agentdoor.DefaultBudget).
func (h *handler) maxChars(ss *sdk.ServerSession, given int) int {
	if given != 0 {
		return given
	}
	if v, ok := h.budgets.Load(ss); ok {
		return v.(int)
	}
	return 0
}

// schemas is shared by every server: a server is built per socket connection.
var schemas = sdk.NewSchemaCache()

// NewServer makes an MCP server with Reins' tools. Each MCP session it serves
// is admitted to core as its own agent session as it initializes; the session
// ends when the MCP session does.
func NewServer(opts ServerOptions) *sdk.Server {
	if opts.Settle <= 0 {
		opts.Settle = 400 * time.Millisecond
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	h := &handler{opts: opts}
	s := sdk.NewServer(&sdk.Implementation{Name: "reins", Title: "Reins", Version: Version}, &sdk.ServerOptions{
		Instructions: instructions,
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}},
		SchemaCache:  schemas,
		InitializedHandler: func(ctx context.Context, req *sdk.InitializedRequest) {
			// Clients of the protocol before 2026-07-28 announce themselves
			// so, and are put to the person as they arrive; later ones send
			// no such notification and are asked at their first call. The
			// notification carries no transport details, so a server that
			// finds the process per request waits for the first call too.
			if h.opts.processOf == nil {
				h.session(req.Session, nil)
			}
		},
	})
	h.addTools(s)
	return s
}

const instructions = `Reins lets you see and operate the person's own Chrome tabs and desktop.
The person decides which tabs you may read or operate, and approves every act as it happens; an act waits until they answer.
Start with browser_tabs, then browser_snapshot: it returns the page as lines with refs like [ref=e12] and a snapshot id.
Act on refs from your latest snapshot. Every act's result lists what changed on the page, so you can check the effect.
A refusal is a tool error that starts with a stable code (stale_ref, control_required, denied_by_user, …) and says what to do next.`

// session returns the core session of an MCP session, admitting it on first
// sight.
func (h *handler) session(ss *sdk.ServerSession, extra *sdk.RequestExtra) agentdoor.Session {
	if v, ok := h.sessions.Load(ss); ok {
		return v.(agentdoor.Session)
	}
	a := vocab.Agent{Name: "unnamed client"}
	if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil {
		if p.ClientInfo.Name != "" {
			a.Name = p.ClientInfo.Name
		}
		a.Version = p.ClientInfo.Version
	}
	proc := h.opts.Process
	if h.opts.processOf != nil {
		proc = h.opts.processOf(extra)
	}
	a.PID, a.Exe = proc.PID, proc.Exe
	s := h.opts.Agents.Admit(a)
	if v, loaded := h.sessions.LoadOrStore(ss, s); loaded {
		s.Close()
		return v.(agentdoor.Session)
	}
	go func() {
		ss.Wait()
		h.sessions.Delete(ss)
		h.budgets.Delete(ss)
		s.Close()
	}()
	return s
}
