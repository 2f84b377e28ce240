// Package agentdoor is the agents' door into Reins: what an agent's
// connection may ask for, and nothing else. An agents' front end (the MCP
// server) holds a [Door]; through it, it admits a connection and gets that
// connection's [Session], whose calls read tabs and the desktop and ask for
// acts, each put to the person and written to the audit log.
//
// Nothing here answers an approval, shares a tab, pauses or changes a
// setting: those are the person's door's (package persondoor), which an
// agents' front end may not import. internal/deptest checks it.
package agentdoor

import (
	"context"
	"time"

	"github.com/reins-app/reins/vocab"
)

// Door admits agents' connections.
type Door interface {
	// Admit opens a session for an agent arriving on a connection. Its every
	// call is refused with agent_not_allowed until the person has allowed
	// the agent; the person is asked as it arrives. Close the session when
	// the connection ends.
	Admit(a vocab.Agent) Session
	// RefuseConnection records a connection turned away before any session
	// began (another user's process, a malformed greeting), so the person
	// sees it in the activity and the log.
	RefuseConnection(a vocab.Agent, why string)
}

// Session is one agent's connection. Everything it does is labelled with the
// agent's declared name and its real process, and audited.
type Session interface {
	// Agent is who the session speaks for.
	Agent() vocab.Agent
	// Close ends the session; a second Close does nothing.
	Close()

	// ListTabs lists open tabs, with titles and addresses only for tabs the
	// person shared.
	ListTabs(ctx context.Context) ([]vocab.TabInfo, error)
	// CurrentTab picks the tab an agent means when it names none.
	CurrentTab(ctx context.Context) (string, error)
	// Snapshot reads a shared tab's accessibility tree whole.
	Snapshot(ctx context.Context, tab string) (*SnapshotResult, error)
	// Read reads a shared tab as o asks.
	Read(ctx context.Context, o ReadOptions) (*ReadResult, error)
	// Find lists the lines of a fresh snapshot that match query or role.
	Find(ctx context.Context, tab, query, role string) (*FindResult, error)
	// Changes reads what changed on the tab since the session's last
	// snapshot, once the page has settled (settle is the fixed wait when
	// the extension cannot tell).
	Changes(ctx context.Context, tab string, settle time.Duration) (*ReadResult, error)
	// ChangesAfter reads what changed on the tab after act, as soon as the
	// page has settled (a navigation's once the new document has), and says
	// in note when it did not within the cap; fallback is the fixed wait
	// used when the extension cannot tell.
	ChangesAfter(ctx context.Context, tab string, act vocab.Act, fallback time.Duration) (res *ReadResult, note string, err error)
	// Screenshot is a PNG of the tab's visible area.
	Screenshot(ctx context.Context, tab string) ([]byte, error)
	// ScreenshotOf is a PNG of one element, by its ref in snapshot ("" for
	// the session's latest).
	ScreenshotOf(ctx context.Context, tab, ref, snapshot string) ([]byte, error)
	// WaitFor waits for what o says, at most MaxWait.
	WaitFor(ctx context.Context, o WaitOptions) (*WaitResult, error)
	// Act asks for an act on a tab; it returns once the act fired or was
	// refused.
	Act(ctx context.Context, r ActRequest) (*ActResult, error)
	// RunPlan puts a plan for one tab to the person in one popup and runs
	// the steps they allow, each only while it matches the plan; it returns
	// once the plan ended. A plan approves nothing by itself.
	RunPlan(ctx context.Context, p PlanRequest) (*PlanResult, error)

	// Handoff hands a shared tab to the person for a step of their own (log
	// in, solve a captcha), with the agent's reason. It returns at once with
	// the hand-off's id; wait on it with WaitHandoff. Only the person ends a
	// hand-off (Done or Stop, in Reins' own windows or terminal); until
	// then every agent's act on the tab is refused handed_off.
	Handoff(ctx context.Context, r HandoffRequest) (*HandoffResult, error)
	// WaitHandoff waits, at most o.Timeout and MaxWait, for the person to
	// end the hand-off o.Handoff names, and says how it stands.
	WaitHandoff(ctx context.Context, o WaitOptions) (*WaitResult, error)

	// Desktop reads the desktop: the application in front and the windows.
	Desktop(ctx context.Context) (*DesktopView, error)
	// DesktopWith is Desktop, the elements shown as o says.
	DesktopWith(ctx context.Context, o DesktopOptions) (*DesktopView, error)
	// OpenTab opens url in a new tab beside tab, which the agent controls,
	// once the person allows it; on tab's site the new tab is shared at
	// Control like tab, elsewhere not at all.
	OpenTab(ctx context.Context, tab, url string) (*OpenTabResult, error)
	// Upload gives a page a file from the computer: once the person allows
	// it, a real click on r.Ref opens the browser's file dialog and the
	// file's path is typed into it; then the page's next snapshot says what
	// it shows of the file. Paths in stores of keys, credentials, passwords
	// or browser profiles, or in Reins' data, are refused before asking.
	Upload(ctx context.Context, r UploadRequest) (*UploadResult, error)
	// DesktopScreenshot is a PNG of the screen, or of the window in front,
	// with the windows an agent may not see blacked out; needs the desktop
	// at Read.
	DesktopScreenshot(ctx context.Context, window bool) ([]byte, error)
	// DesktopAct asks for an act on the desktop at a point.
	DesktopAct(ctx context.Context, r DesktopActRequest) (*ActResult, error)
}
