package mcp

import (
	"context"
	"fmt"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/vocab"
)

// Inputs of the tools. A field without omitempty is required.

type tabsIn struct {
	Action string `json:"action,omitempty" jsonschema:"list (default), new (open url in a new tab beside tab), select (bring tab to the front of its window) or close (close tab)"`
	Tab    string `json:"tab,omitempty" jsonschema:"with new, select and close: the tab's id from the list (new: by default the tab in front among yours)"`
	URL    string `json:"url,omitempty" jsonschema:"with new: the http or https address to open"`
}

type observeIn struct {
	Boxes bool   `json:"boxes,omitempty" jsonschema:"show each element's box on screen, [box=x,y,wxh] in points"`
	Find  string `json:"find,omitempty" jsonschema:"only the elements of the window in front whose role or name holds these words"`
	// MaxChars is as browser_snapshot's.
	MaxChars int `json:"max_chars,omitempty" jsonschema:"the most characters the result may have, 40000 by default; the elements are cut to fit, and a cut result says what was left out. Give more to read more, -1 for no limit"`
}

type tabIn struct {
	Tab string `json:"tab,omitempty" jsonschema:"the tab's id from browser_tabs; by default the tab in front among those you can read"`
}

type dragIn struct {
	targetIn
	To string `json:"to,omitempty" jsonschema:"the ref of the element to drop on, from the same snapshot; or give dx and dy instead"`
	DX int    `json:"dx,omitempty" jsonschema:"instead of to: how far to drag, in screen points (as [box=] shows), right is positive"`
	DY int    `json:"dy,omitempty" jsonschema:"instead of to: how far to drag, in screen points, down is positive"`
}

type dialogIn struct {
	tabIn
	Accept bool   `json:"accept" jsonschema:"true to accept (OK; Leave for a leave question), false to dismiss (Cancel)"`
	Text   string `json:"text,omitempty" jsonschema:"for a prompt that is accepted: the reply to type in place of the field's text"`
}

type uploadIn struct {
	targetIn
	Paths []string `json:"paths" jsonschema:"the absolute path of the file to give the page (one file a call)"`
}

type maxCharsIn struct {
	MaxChars int `json:"max_chars" jsonschema:"the most characters a snapshot or find returns; -1 for no limit, 0 for the default"`
}

// minSessionChars is the smallest budget a session may set: room for the
// lines around the page's text and a few of its lines.
const minSessionChars = 2 * agentdoor.AnswerRoom

type snapshotIn struct {
	tabIn
	Mode     string `json:"mode,omitempty" jsonschema:"auto (default: the full tree while it is small, else only what can be acted on), full, interactive or viewport"`
	MaxChars int    `json:"max_chars,omitempty" jsonschema:"the most characters the result may have, 40000 by default; the page's lines are cut to fit, and a cut result says what was left out and how to read it. Give more to read more, -1 for no limit"`
	Ref      string `json:"ref,omitempty" jsonschema:"only the subtree of this ref"`
	Diff     bool   `json:"diff,omitempty" jsonschema:"only the lines that changed since your previous snapshot of this tab"`
}

type findIn struct {
	tabIn
	Text     string `json:"text" jsonschema:"text to look for in names, values and text, any case"`
	Role     string `json:"role,omitempty" jsonschema:"only elements with this role, e.g. button, link, textbox"`
	MaxChars int    `json:"max_chars,omitempty" jsonschema:"the most characters the result may have, 40000 by default; the best matches come first and the rest are counted. Give more to list more, -1 for no limit"`
}

type targetIn struct {
	tabIn
	Ref      string `json:"ref" jsonschema:"the element's ref from a snapshot, e.g. e12 or f1e3"`
	Snapshot string `json:"snapshot,omitempty" jsonschema:"the snapshot id the ref comes from; by default your latest snapshot of the tab"`
	Element  string `json:"element,omitempty" jsonschema:"the element in a few words of your own, kept in the log beside the act"`
}

type clickIn struct {
	targetIn
	Button string `json:"button,omitempty" jsonschema:"left (default) or right"`
	Double bool   `json:"double,omitempty" jsonschema:"double-click"`
}

type typeIn struct {
	targetIn
	Text   string `json:"text" jsonschema:"the text to type, as keystrokes; each line break (\\n) presses Enter and is shown to the person as one; a tab or other control character is refused: press Tab with browser_press_key"`
	Submit bool   `json:"submit,omitempty" jsonschema:"press Enter after typing"`
	Clear  bool   `json:"clear,omitempty" jsonschema:"select everything in the field and delete it first"`
}

type keyIn struct {
	tabIn
	Key string `json:"key" jsonschema:"a key or chord: Enter, Tab, ArrowDown, Control+Shift+K, Meta+A, ControlOrMeta+L"`
}

type selectIn struct {
	targetIn
	Option string `json:"option" jsonschema:"the visible text of the option to pick"`
}

type scrollIn struct {
	targetIn
	DX int `json:"dx,omitempty" jsonschema:"wheel notches to the right (negative: left)"`
	DY int `json:"dy,omitempty" jsonschema:"wheel notches down (negative: up)"`
}

type waitIn struct {
	tabIn
	Text     string  `json:"text,omitempty" jsonschema:"wait until this text is on the page"`
	TextGone string  `json:"text_gone,omitempty" jsonschema:"wait until this text is no longer on the page"`
	Ref      string  `json:"ref,omitempty" jsonschema:"wait until this element (a ref from your latest snapshot of the tab) is in state"`
	State    string  `json:"state,omitempty" jsonschema:"with ref: visible, hidden, enabled, disabled, checked, unchecked, expanded or collapsed"`
	Role     string  `json:"role,omitempty" jsonschema:"wait until an element of this role (as snapshots show it: button, link, textbox…) is on the page, with a ref"`
	Name     string  `json:"name,omitempty" jsonschema:"with role: the element's name holds these words (any case)"`
	Loaded   bool    `json:"loaded,omitempty" jsonschema:"wait until the tab has finished loading its page"`
	Time     float64 `json:"time,omitempty" jsonschema:"seconds to wait (at most 30); with text, how long to keep looking"`
	Handoff  string  `json:"handoff,omitempty" jsonschema:"a hand-off id from browser_handoff: wait until the person presses Done or Stop (at most 30 s a call)"`
}

type navigateIn struct {
	tabIn
	URL       string `json:"url,omitempty" jsonschema:"an http or https address to open in the tab"`
	Direction string `json:"direction,omitempty" jsonschema:"back or forward in the tab's history, instead of url"`
}

type screenshotIn struct {
	tabIn
	Ref      string `json:"ref,omitempty" jsonschema:"crop the picture to this element"`
	Snapshot string `json:"snapshot,omitempty" jsonschema:"the snapshot id the ref comes from"`
}

type desktopClickIn struct {
	Ref     string  `json:"ref,omitempty" jsonschema:"a desktop ref from desktop_observe (d7): the element to click; instead of x and y"`
	X       float64 `json:"x,omitempty" jsonschema:"screen x in points, as desktop_observe reports windows, when no ref is given"`
	Y       float64 `json:"y,omitempty" jsonschema:"screen y in points"`
	Button  string  `json:"button,omitempty" jsonschema:"left (default) or right"`
	Double  bool    `json:"double,omitempty" jsonschema:"double-click"`
	Element string  `json:"element,omitempty" jsonschema:"what is at that point, in a few words, shown to the person"`
}

type desktopPictureIn struct {
	Window bool `json:"window,omitempty" jsonschema:"only the window in front"`
}

type desktopTypeIn struct {
	Ref    string `json:"ref,omitempty" jsonschema:"a desktop ref from desktop_observe: the field to click into first; without it the text goes wherever the keyboard focus is"`
	Text   string `json:"text" jsonschema:"the text to type; each line break (\\n) presses Enter and is shown to the person as one; a tab or other control character is refused: press Tab with desktop_press_key"`
	Submit bool   `json:"submit,omitempty" jsonschema:"press Enter after typing"`
}

type desktopKeyIn struct {
	Key string `json:"key" jsonschema:"a key or chord, e.g. Enter or Control+Shift+K"`
}

// toolEntry is one tool as the agent sees it, and the method that serves
// it. The method's input type is the tool's input schema: its fields'
// json names and jsonschema tags are what tools/list shows.
type toolEntry struct {
	name, title, desc string
	readOnly          bool // it changes nothing, on a page or on the desktop
	add               func(s *sdk.Server, t *sdk.Tool, h *handler)
}

// toolMethod is a tool's handler: a thin call through the agents' door,
// whose refusals are results, never protocol errors.
type toolMethod[In any] func(h *handler, ctx context.Context, req *sdk.CallToolRequest, in In) *sdk.CallToolResult

// reads is a tool that only reads.
func reads[In any](name, title string, m toolMethod[In], desc string) toolEntry {
	e := acts(name, title, m, desc)
	e.readOnly = true
	return e
}

// acts is a tool that acts, or may.
func acts[In any](name, title string, m toolMethod[In], desc string) toolEntry {
	return toolEntry{name: name, title: title, desc: desc, add: func(s *sdk.Server, t *sdk.Tool, h *handler) {
		sdk.AddTool(s, t, func(ctx context.Context, req *sdk.CallToolRequest, in In) (*sdk.CallToolResult, any, error) {
			return m(h, ctx, req, in), nil, nil
		})
	}}
}

// toolTable is every tool Reins offers; tools/list lists exactly these.
var toolTable = []toolEntry{
	acts[tabsIn]("browser_tabs", "Tabs", (*handler).browserTabs,
		fmt.Sprintf("List the browser's tabs with the access the person gave you to each (none, read, control); titles and addresses are shown only for tabs you can read. With action new, open an address in a new tab beside a tab you control (at most %d of the tabs you opened open at once): on that tab's site the person is asked to give you the new tab at control too, on another site it is not yours. With action select, bring a tab to the front of its window; with action close, close it: both need control of that tab. The person is asked first every time.", agentdoor.MaxOpenedTabs)),
	reads[snapshotIn]("browser_snapshot", "Read a tab", (*handler).browserSnapshot,
		"Read a tab as an accessibility snapshot: one line per element, with refs like [ref=e12] to act on, and a snapshot id. Needs read access to the tab. A result is at most max_chars characters (40000 by default); a longer page is cut at a line, and the result says what was left out and how to read it: the subtree of a ref it names (ref), browser_find, mode viewport, or a larger max_chars."),
	reads[findIn]("browser_find", "Find on a tab", (*handler).browserFind,
		"Take a fresh snapshot of a tab and return only the lines whose text contains the given words (and role, if given), with their refs: first those named exactly so, then those where the words stand whole, then the rest, controls before text. A result is at most max_chars characters (40000 by default); it says how many lines matched in all and how to narrow the search."),
	reads[maxCharsIn]("browser_set_max_chars", "Set this session's result size", (*handler).browserSetMaxChars,
		fmt.Sprintf("Set the most characters browser_snapshot, browser_find and desktop_observe return in this session when a call gives no max_chars of its own (%d by default; -1 for no limit, 0 for the default again). What an act changed is always cut at %d.", agentdoor.DefaultBudget, agentdoor.ChangesBudget)),
	acts[clickIn]("browser_click", "Click", (*handler).browserClick,
		"Click an element by its ref, with real mouse input. The person is asked first; the result lists what changed on the page."),
	acts[typeIn]("browser_type", "Type", (*handler).browserType,
		fmt.Sprintf("Click a field by its ref and type text into it with real keystrokes; optionally clear it first and press Enter after. At most %d characters per call (longer text is refused with text_too_long: split it). The person is asked first.", agentdoor.MaxTypedText)),
	acts[keyIn]("browser_press_key", "Press a key", (*handler).browserPressKey,
		"Press a key or chord in the tab in front, e.g. Enter, Escape, Control+Shift+K, Meta+A. The person is asked first."),
	acts[targetIn]("browser_hover", "Hover", (*handler).browserHover,
		"Move the mouse over an element by its ref. The person is asked first."),
	acts[selectIn]("browser_select_option", "Pick an option", (*handler).browserSelectOption,
		"Pick an option of a drop-down (a select element) by its visible text: Reins clicks the drop-down, types the option's text and presses Enter, as a person would with the keyboard. It relies on the browser's type-to-find, so the text should be the start of the option's label."),
	acts[scrollIn]("browser_scroll", "Scroll", (*handler).browserScroll,
		"Scroll with the mouse wheel over an element by its ref (a list, a panel, the page's main region; a box that scrolls shows as [scroll=240/1160]: 240 of the 1160 pixels it can go down). The person is asked first. The result says where the box and the page stand afterwards. To act on an element out of view there is no need to scroll first: the act scrolls to it."),
	acts[dragIn]("browser_drag", "Drag an element onto another", (*handler).browserDrag,
		"Drag an element with the real mouse: press on ref, move in steps, let go over to (both refs from the same snapshot, both in view), or dx, dy screen points away (a slider, a splitter; the end must be on the page as it shows). Works for pointer-event drags and HTML drag and drop. Needs control of the tab; the person is asked first."),
	acts[dialogIn]("browser_handle_dialog", "Reply to a page's dialog", (*handler).browserHandleDialog,
		"Reply to the JavaScript dialog (alert, confirm, prompt, or the browser's \"Leave site?\" question) that stops a tab's page: a read or act of such a tab is refused with dialog_open, which names the dialog and, where Reins can read it, the page's message. accept true presses OK (Leave), false Cancel; text is typed as a prompt's reply. The keys go to the dialog with the real keyboard once the person says yes; accepting is asked every time. Needs control of the tab, the tab in front, and the dialog holding the keyboard focus."),
	acts[uploadIn]("browser_file_upload", "Upload a file", (*handler).browserFileUpload,
		"Give a page a file from the computer: ref is the file input (or the button that opens its file chooser), paths the file's absolute path (one file a call). The person is asked every time, with the file's name, size and folder; then Reins clicks with the real mouse and types the path into the browser's own file dialog with real keys (on Linux the GTK dialog; a desktop portal's is refused with no_file_dialog). Files that are missing, folders, over 100 MB, or in stores of keys, credentials, passwords or browser profiles (~/.ssh, ~/.gnupg, ~/.aws, keychains, browser profiles…) or in Reins' own data are refused with path_refused before anyone is asked. The result says whether the page's next snapshot names the file. Needs control of the tab."),
	reads[waitIn]("browser_wait_for", "Wait", (*handler).browserWaitFor,
		"Wait until text appears on a tab or disappears from it, until an element (by ref) is visible, hidden, enabled, disabled, checked, unchecked, expanded or collapsed, until an element of a role and name appears, or until the tab has finished loading — reading the tab a few times a second, for up to 30 s — or just wait a number of seconds."),
	acts[navigateIn]("browser_navigate", "Open an address", (*handler).browserNavigate,
		"Open an http(s) address in a tab, or go back or forward in its history. The person is asked first; your access to the tab lasts only while it stays on the site it was given on."),
	reads[screenshotIn]("browser_screenshot", "Picture of a tab", (*handler).browserScreenshot,
		"A PNG picture of the visible part of a tab (which must be the tab in front of its window), or of one element by ref. Needs read access to the tab."),
	acts[handoffIn]("browser_handoff", "Hand a step to the person", (*handler).browserHandoff,
		fmt.Sprintf("Hand a tab to the person for a step only they should take: logging in, a captcha, a second factor. "+
			"Give the reason in a sentence; the person reads it as your words. "+
			"It returns at once with a hand-off id; then call browser_wait_for with handoff set to that id, as often as needed (each call waits at most %d s). "+
			"Only the person can finish a hand-off, with Done or Stop in Reins; no tool can. "+
			"Until they do, every act on the tab is refused with handed_off; reading the tab goes on while it shows the site you were given, and nothing is read on any other site it visits meanwhile. "+
			"Needs control of the tab.", int(agentdoor.MaxWait/time.Second))),
	acts[planIn]("browser_run_plan", "Run a plan", (*handler).browserRunPlan,
		fmt.Sprintf("Propose several steps on one tab (at most %d, all refs from one snapshot, no navigation), e.g. the fields of a form and its button, "+
			"and run them. The person reads the whole plan in one popup and says yes to all of it, yes up to one of its steps, or no; nothing here says yes for them. "+
			"Each step the person took fires only if it still matches the plan at its turn (same action, element, role, name, site and text); anything else, "+
			"and every step that types into a password or payment field, presses a key (it goes wherever the focus is) or presses a button that buys, pays, sends or deletes, is put to the person on its own. "+
			"The plan ends at the first step not done, when the tab navigates, when the person stops all agents, or when its time runs out. "+
			"The result lists each step's outcome and what changed on the page.", agentdoor.MaxPlanSteps)),
	reads[desktopPictureIn]("desktop_screenshot", "Picture of the desktop", (*handler).desktopScreenshot,
		"A PNG picture of the whole screen, or of the window in front (window: true). Windows of web browsers (picture their tabs with browser_screenshot), of applications on the deny list and of Reins itself are blacked out. Needs read access to the desktop."),
	reads[observeIn]("desktop_observe", "Look at the desktop", (*handler).desktopObserve,
		"The application in front, the top-level windows (title, application, position in points), and the elements of the window in front with desktop refs like [ref=d7] to click or type into with desktop_click and desktop_type (for a web browser, the tab it shows when that tab is open to you, with its tab refs; nothing of applications on the deny list), then the tabs open to you that browser windows behind it show on screen, from their pages. A part read more than 2 s before the rest came back (behind a slow application) is marked as maybe out of date. Needs read access to the desktop, which is off unless the person turns it on."),
	acts[desktopClickIn]("desktop_click", "Click on the desktop", (*handler).desktopClick,
		"Click an element of the desktop by its ref from desktop_observe, or a point on screen, with real mouse input. A ref is found again right before the click (gone: stale_ref; renamed: changed; covered: obscured). Needs control of the desktop; the person is asked about each click, and some applications (password managers, system settings) are never clicked. Nor is a web browser's window (browser_window): act on a tab open to you with the browser tools instead. A point on no screen is refused with off_screen before anyone is asked."),
	acts[desktopTypeIn]("desktop_type", "Type on the desktop", (*handler).desktopType,
		fmt.Sprintf("Type text with real keystrokes into a field of the desktop, by its ref from desktop_observe (clicked first), or into whatever has keyboard focus; at most %d characters per call (longer text is refused with text_too_long: split it). Needs control of the desktop; the person is asked first. Never into a web browser (browser_window): use browser_type on a tab open to you.", agentdoor.MaxTypedText)),
	acts[desktopKeyIn]("desktop_press_key", "Press a key on the desktop", (*handler).desktopPressKey,
		"Press a key or chord in whatever has keyboard focus. Needs control of the desktop; the person is asked first. Not while a web browser is in front (browser_window): use browser_press_key, or browser_handle_dialog for a page's dialog, on a tab open to you."),
}

// addTools registers every tool of toolTable, and nothing else: a tool is
// added by its row there and its method.
func (h *handler) addTools(s *sdk.Server) {
	for _, e := range toolTable {
		e.add(s, &sdk.Tool{Name: e.name, Description: e.desc,
			Annotations: &sdk.ToolAnnotations{Title: e.title, ReadOnlyHint: e.readOnly}}, h)
	}
}

func (h *handler) browserTabs(ctx context.Context, req *sdk.CallToolRequest, in tabsIn) *sdk.CallToolResult {
	s := h.session(req.Session, req.Extra)
	var kind vocab.ActKind
	switch in.Action {
	case "", "list":
		tabs, err := s.ListTabs(ctx)
		if err != nil {
			return refusal(err)
		}
		return textResult(formatTabs(tabs))
	case "select":
		kind = vocab.Activate
	case "close":
		kind = vocab.CloseTab
	case "new":
		return h.openTab(ctx, s, in)
	default:
		return refusal(badRequest("action %q is not one of list, select or close", in.Action))
	}
	if in.Tab == "" {
		return refusal(badRequest("%s needs the tab's id from the list", in.Action))
	}
	r, err := s.Act(ctx, agentdoor.ActRequest{Tab: in.Tab, Act: vocab.Act{Kind: kind}})
	if err != nil {
		return refusal(err)
	}
	return textResult(fmt.Sprintf("Done: %s, tab %s (audit row %d).\n", r.Done, in.Tab, r.Audit))
}

// openTab is browser_tabs with action new.
func (h *handler) openTab(ctx context.Context, s agentdoor.Session, in tabsIn) *sdk.CallToolResult {
	tab, err := h.tab(ctx, s, tabIn{Tab: in.Tab})
	if err != nil {
		return refusal(err)
	}
	r, err := s.OpenTab(ctx, tab, in.URL)
	if err != nil {
		return refusal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Done: %s (audit row %d).\n", r.Done, r.Audit)
	switch {
	case r.Shared:
		fmt.Fprintf(&b, "The new tab is tab %s, yours at control; read it with browser_snapshot.\n", r.Tab)
	case r.Tab != "":
		fmt.Fprintf(&b, "The new tab is tab %s: %s.\n", r.Tab, r.Note)
	default:
		fmt.Fprintf(&b, "[%s.]\n", r.Note)
	}
	return textResult(b.String())
}

func (h *handler) browserSnapshot(ctx context.Context, req *sdk.CallToolRequest, in snapshotIn) *sdk.CallToolResult {
	s := h.session(req.Session, req.Extra)
	tab, err := h.tab(ctx, s, in.tabIn)
	if err != nil {
		return refusal(err)
	}
	r, err := s.Read(ctx, agentdoor.ReadOptions{Tab: tab, Mode: in.Mode, MaxChars: agentdoor.TextBudget(h.maxChars(req.Session, in.MaxChars)), Root: in.Ref, Diff: in.Diff})
	if err != nil {
		return refusal(err)
	}
	return textResult(formatRead(r))
}

func (h *handler) browserFind(ctx context.Context, req *sdk.CallToolRequest, in findIn) *sdk.CallToolResult {
	s := h.session(req.Session, req.Extra)
	tab, err := h.tab(ctx, s, in.tabIn)
	if err != nil {
		return refusal(err)
	}
	r, err := s.Find(ctx, tab, in.Text, in.Role)
	if err != nil {
		return refusal(err)
	}
	// The lines come best first; as many as the budget holds are shown.
	budget := agentdoor.TextBudget(h.maxChars(req.Session, in.MaxChars))
	var lines strings.Builder
	shown := 0
	for _, l := range r.Lines {
		if budget > 0 && lines.Len()+len(l)+1 > budget {
			break
		}
		lines.WriteString(l + "\n")
		shown++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Snapshot %s of tab %s: %d matching lines", r.ID, r.Tab, len(r.Lines))
	if shown < len(r.Lines) {
		fmt.Fprintf(&b, ", best first; the first %d are shown", shown)
	}
	b.WriteString(".\n" + lines.String())
	if shown < len(r.Lines) {
		fmt.Fprintf(&b, "[Left out: %d of the %d matching lines (by role: %s). Narrow the search with more of the text, a role, or browser_snapshot with the ref of the part of the page to look in; or list more with a larger max_chars (-1 for no limit).]\n",
			len(r.Lines)-shown, len(r.Lines), rolesOf(r.Lines))
	}
	return textResult(b.String())
}

// rolesOf says what matching lines are, by role, the most common first, so
// that an agent can narrow a search.
func rolesOf(lines []string) string {
	count := map[string]int{}
	var roles []string
	for _, l := range lines {
		role, _, _ := strings.Cut(strings.TrimPrefix(l, "- "), " ")
		role = strings.TrimSuffix(role, ":")
		if count[role] == 0 {
			roles = append(roles, role)
		}
		count[role]++
	}
	var top []string
	for len(top) < 4 && len(roles) > 0 {
		best := 0
		for i, role := range roles {
			if count[role] > count[roles[best]] {
				best = i
			}
		}
		top = append(top, fmt.Sprintf("%d %s", count[roles[best]], roles[best]))
		roles = append(roles[:best], roles[best+1:]...)
	}
	if len(roles) > 0 {
		top = append(top, fmt.Sprintf("%d other roles", len(roles)))
	}
	return strings.Join(top, ", ")
}

func (h *handler) browserSetMaxChars(ctx context.Context, req *sdk.CallToolRequest, in maxCharsIn) *sdk.CallToolResult {
	n := in.MaxChars
	switch {
	case n == 0:
		h.budgets.Delete(req.Session)
		return textResult(fmt.Sprintf("Answers in this session are at most %d characters again, unless a call asks for more.\n", agentdoor.DefaultBudget))
	case n < 0:
		n = agentdoor.NoBudget
		h.budgets.Store(req.Session, n)
		return textResult("Answers in this session are no longer cut, unless a call gives its own max_chars.\n")
	case n < minSessionChars:
		return refusal(badRequest("max_chars %d is too small to hold a page's lines; give at least %d", n, minSessionChars))
	}
	h.budgets.Store(req.Session, n)
	return textResult(fmt.Sprintf("Answers in this session are at most %d characters, unless a call gives its own max_chars.\n", n))
}

func (h *handler) browserClick(ctx context.Context, req *sdk.CallToolRequest, in clickIn) *sdk.CallToolResult {
	kind, err := clickKind(in.Button, in.Double)
	if err != nil {
		return refusal(err)
	}
	return h.act(ctx, req, in.targetIn, vocab.Act{Kind: kind})
}

// clickKind is the act a click's button and double name.
func clickKind(button string, double bool) (vocab.ActKind, error) {
	switch {
	case button == "right":
		return vocab.RightClick, nil
	case button != "" && button != "left":
		return "", badRequest("button %q is not available; use left or right", button)
	case double:
		return vocab.DoubleClick, nil
	}
	return vocab.Click, nil
}

func (h *handler) browserType(ctx context.Context, req *sdk.CallToolRequest, in typeIn) *sdk.CallToolResult {
	return h.act(ctx, req, in.targetIn, vocab.Act{Kind: vocab.Type, Text: in.Text, Submit: in.Submit, Clear: in.Clear})
}

func (h *handler) browserPressKey(ctx context.Context, req *sdk.CallToolRequest, in keyIn) *sdk.CallToolResult {
	return h.act(ctx, req, targetIn{tabIn: in.tabIn}, vocab.Act{Kind: vocab.Key, Keys: in.Key})
}

func (h *handler) browserHover(ctx context.Context, req *sdk.CallToolRequest, in targetIn) *sdk.CallToolResult {
	return h.act(ctx, req, in, vocab.Act{Kind: vocab.Hover})
}

// browserSelectOption picks an option as a person does with the keyboard:
// the drop-down clicked, the option's text typed, Enter.
func (h *handler) browserSelectOption(ctx context.Context, req *sdk.CallToolRequest, in selectIn) *sdk.CallToolResult {
	return h.act(ctx, req, in.targetIn, vocab.Act{Kind: vocab.Type, Text: in.Option, Submit: true})
}

func (h *handler) browserScroll(ctx context.Context, req *sdk.CallToolRequest, in scrollIn) *sdk.CallToolResult {
	if in.DX == 0 && in.DY == 0 {
		in.DY = 3
	}
	return h.act(ctx, req, in.targetIn, vocab.Act{Kind: vocab.Scroll, DX: in.DX, DY: in.DY})
}

func (h *handler) browserDrag(ctx context.Context, req *sdk.CallToolRequest, in dragIn) *sdk.CallToolResult {
	return h.actTo(ctx, req, in.targetIn, vocab.Act{Kind: vocab.Drag, DX: in.DX, DY: in.DY}, in.To)
}

func (h *handler) browserHandleDialog(ctx context.Context, req *sdk.CallToolRequest, in dialogIn) *sdk.CallToolResult {
	s := h.session(req.Session, req.Extra)
	tab, err := h.tab(ctx, s, in.tabIn)
	if err != nil {
		return refusal(err)
	}
	r, err := s.Act(ctx, agentdoor.ActRequest{Tab: tab, Act: vocab.Act{Kind: vocab.Dialog, Accept: in.Accept, Text: in.Text}})
	if err != nil {
		return refusal(err)
	}
	return textResult(fmt.Sprintf("Done: %s, tab %s (audit row %d). Take a new snapshot to see what the page did.\n", r.Done, tab, r.Audit))
}

func (h *handler) browserFileUpload(ctx context.Context, req *sdk.CallToolRequest, in uploadIn) *sdk.CallToolResult {
	s := h.session(req.Session, req.Extra)
	tab, err := h.tab(ctx, s, in.tabIn)
	if err != nil {
		return refusal(err)
	}
	r, err := s.Upload(ctx, agentdoor.UploadRequest{Tab: tab, Ref: in.Ref, Snapshot: in.Snapshot, Paths: in.Paths, Element: in.Element})
	if err != nil {
		return refusal(err)
	}
	return textResult(fmt.Sprintf("Done: %s (audit row %d).\nWhat the page shows: %s\n", r.Done, r.Audit, r.Received))
}

func (h *handler) browserWaitFor(ctx context.Context, req *sdk.CallToolRequest, in waitIn) *sdk.CallToolResult {
	if in.Handoff != "" {
		return h.waitHandoff(ctx, req, in)
	}
	s := h.session(req.Session, req.Extra)
	o := agentdoor.WaitOptions{Text: in.Text, Gone: in.TextGone, Ref: in.Ref, State: in.State, Role: in.Role, Name: in.Name, Loaded: in.Loaded, Time: time.Duration(in.Time * float64(time.Second))}
	if in.Name != "" && in.Role == "" {
		return refusal(badRequest("name goes with role: say which role the element has (button, link, textbox…)"))
	}
	if o.Text != "" || o.Gone != "" || o.Ref != "" || o.Role != "" || o.Loaded {
		tab, err := h.tab(ctx, s, in.tabIn)
		if err != nil {
			return refusal(err)
		}
		o.Tab, o.Timeout = tab, o.Time
	}
	r, err := s.WaitFor(ctx, o)
	if err != nil {
		return refusal(err)
	}
	return textResult(formatWait(o, r))
}

func (h *handler) browserNavigate(ctx context.Context, req *sdk.CallToolRequest, in navigateIn) *sdk.CallToolResult {
	act := vocab.Act{Kind: vocab.Navigate, URL: in.URL}
	switch {
	case in.URL != "" && in.Direction != "":
		return refusal(badRequest("give either url or direction, not both"))
	case in.Direction == "back":
		act = vocab.Act{Kind: vocab.Back}
	case in.Direction == "forward":
		act = vocab.Act{Kind: vocab.Forward}
	case in.Direction != "":
		return refusal(badRequest("direction %q is not back or forward", in.Direction))
	case in.URL == "":
		return refusal(badRequest("give a url, or a direction (back or forward)"))
	}
	return h.act(ctx, req, targetIn{tabIn: in.tabIn}, act)
}

func (h *handler) browserScreenshot(ctx context.Context, req *sdk.CallToolRequest, in screenshotIn) *sdk.CallToolResult {
	s := h.session(req.Session, req.Extra)
	tab, err := h.tab(ctx, s, in.tabIn)
	if err != nil {
		return refusal(err)
	}
	png, err := s.ScreenshotOf(ctx, tab, in.Ref, in.Snapshot)
	if err != nil {
		return refusal(err)
	}
	return pngResult(png)
}

func (h *handler) desktopScreenshot(ctx context.Context, req *sdk.CallToolRequest, in desktopPictureIn) *sdk.CallToolResult {
	png, err := h.session(req.Session, req.Extra).DesktopScreenshot(ctx, in.Window)
	if err != nil {
		return refusal(err)
	}
	return pngResult(png)
}

func (h *handler) desktopObserve(ctx context.Context, req *sdk.CallToolRequest, in observeIn) *sdk.CallToolResult {
	v, err := h.session(req.Session, req.Extra).DesktopWith(ctx, agentdoor.DesktopOptions{Boxes: in.Boxes, Find: in.Find, MaxChars: agentdoor.TextBudget(h.maxChars(req.Session, in.MaxChars))})
	if err != nil {
		return refusal(err)
	}
	return textResult(formatDesktop(v))
}

func (h *handler) desktopClick(ctx context.Context, req *sdk.CallToolRequest, in desktopClickIn) *sdk.CallToolResult {
	kind, err := clickKind(in.Button, in.Double)
	if err != nil {
		return refusal(err)
	}
	return h.desktopAct(ctx, req, agentdoor.DesktopActRequest{Act: vocab.Act{Kind: kind}, Ref: in.Ref, X: in.X, Y: in.Y, Element: in.Element})
}

func (h *handler) desktopType(ctx context.Context, req *sdk.CallToolRequest, in desktopTypeIn) *sdk.CallToolResult {
	return h.desktopAct(ctx, req, agentdoor.DesktopActRequest{Act: vocab.Act{Kind: vocab.Type, Text: in.Text, Submit: in.Submit}, Ref: in.Ref})
}

func (h *handler) desktopPressKey(ctx context.Context, req *sdk.CallToolRequest, in desktopKeyIn) *sdk.CallToolResult {
	return h.desktopAct(ctx, req, agentdoor.DesktopActRequest{Act: vocab.Act{Kind: vocab.Key, Keys: in.Key}})
}

// tab is the tab a call names, or the current one.
func (h *handler) tab(ctx context.Context, s agentdoor.Session, in tabIn) (string, error) {
	if in.Tab != "" {
		return in.Tab, nil
	}
	return s.CurrentTab(ctx)
}

// act runs one act on a tab and reports what fired and what changed.
func (h *handler) act(ctx context.Context, req *sdk.CallToolRequest, in targetIn, act vocab.Act) *sdk.CallToolResult {
	return h.actTo(ctx, req, in, act, "")
}

// actTo is act, for a drag with to the ref it drops on.
func (h *handler) actTo(ctx context.Context, req *sdk.CallToolRequest, in targetIn, act vocab.Act, to string) *sdk.CallToolResult {
	s := h.session(req.Session, req.Extra)
	tab, err := h.tab(ctx, s, in.tabIn)
	if err != nil {
		return refusal(err)
	}
	r, err := s.Act(ctx, agentdoor.ActRequest{Tab: tab, Ref: in.Ref, Snapshot: in.Snapshot, Act: act, Element: in.Element, To: to})
	if err != nil {
		return refusal(err)
	}
	var b strings.Builder
	switch {
	case r.Missed:
		fmt.Fprintf(&b, "Fired, but missed: %s (audit row %d).\n", r.Done, r.Audit)
	default:
		fmt.Fprintf(&b, "Done: %s (audit row %d).\n", r.Done, r.Audit)
	}
	if r.Effect != "" {
		fmt.Fprintf(&b, "%s%s.\n", strings.ToUpper(r.Effect[:1]), r.Effect[1:])
	}
	settle := h.opts.Settle
	switch act.Kind {
	case vocab.Navigate, vocab.Back, vocab.Forward:
		settle *= 3 // a new document takes longer than a click's effect
	}
	// The session answers as soon as the page has settled after this act,
	// and says when it did not; settle is then only its fallback.
	ch, note, err := s.ChangesAfter(ctx, tab, act, settle)
	writeChanges(&b, ch, err)
	if note != "" {
		fmt.Fprintf(&b, "[%s]\n", note)
	}
	return textResult(b.String())
}

func (h *handler) desktopAct(ctx context.Context, req *sdk.CallToolRequest, r agentdoor.DesktopActRequest) *sdk.CallToolResult {
	res, err := h.session(req.Session, req.Extra).DesktopAct(ctx, r)
	if err != nil {
		return refusal(err)
	}
	return textResult(fmt.Sprintf("Done: %s (audit row %d).\n", res.Done, res.Audit))
}
