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
	Action string `json:"action,omitempty" jsonschema:"list (default), new, select or close"`
	Tab    string `json:"tab,omitempty" jsonschema:"with new, select, close: the tab's id (new: by default your front tab)"`
	URL    string `json:"url,omitempty" jsonschema:"with new: an http(s) address"`
}

type observeIn struct {
	Boxes bool   `json:"boxes,omitempty" jsonschema:"show boxes, [box=x,y,wxh] in points"`
	Find  string `json:"find,omitempty" jsonschema:"only elements whose role or name holds these words"`
	// MaxChars is as browser_snapshot's.
	MaxChars int `json:"max_chars,omitempty" jsonschema:"most characters to return (default 40000, -1: no limit); a cut result says what it left out"`
}

type tabIn struct {
	Tab string `json:"tab,omitempty" jsonschema:"tab id from browser_tabs; default: your front tab"`
}

type dragIn struct {
	targetIn
	To string `json:"to,omitempty" jsonschema:"ref to drop on, same snapshot; or dx, dy"`
	DX int    `json:"dx,omitempty" jsonschema:"instead of to: points right, as [box=] shows"`
	DY int    `json:"dy,omitempty" jsonschema:"instead of to: points down"`
}

type dialogIn struct {
	tabIn
	Accept bool   `json:"accept" jsonschema:"true: OK (Leave); false: Cancel"`
	Text   string `json:"text,omitempty" jsonschema:"a prompt's reply, one line"`
}

type uploadIn struct {
	targetIn
	Paths []string `json:"paths" jsonschema:"one absolute file path"`
}

type maxCharsIn struct {
	MaxChars int `json:"max_chars" jsonschema:"-1: no limit; 0: the default"`
}

// minSessionChars is the smallest budget a session may set: room for the
// lines around the page's text and a few of its lines.
const minSessionChars = 2 * agentdoor.AnswerRoom

type snapshotIn struct {
	tabIn
	Mode     string `json:"mode,omitempty" jsonschema:"auto (default: full while small, else what can be acted on), full, interactive or viewport"`
	MaxChars int    `json:"max_chars,omitempty" jsonschema:"most characters to return (default 40000, -1: no limit); a cut result says what it left out"`
	Ref      string `json:"ref,omitempty" jsonschema:"only this ref's subtree"`
	Diff     bool   `json:"diff,omitempty" jsonschema:"only lines changed since your last snapshot of the tab"`
}

type findIn struct {
	tabIn
	Text     string `json:"text" jsonschema:"words to find in names, values and text, any case"`
	Role     string `json:"role,omitempty" jsonschema:"only this role: button, link, textbox…"`
	MaxChars int    `json:"max_chars,omitempty" jsonschema:"most characters to return (default 40000, -1: no limit); lines left out are counted"`
}

type targetIn struct {
	tabIn
	Ref      string `json:"ref" jsonschema:"ref from a snapshot (e12, f1e3)"`
	Snapshot string `json:"snapshot,omitempty" jsonschema:"snapshot id of the ref; default: your latest"`
	Element  string `json:"element,omitempty" jsonschema:"the element in your own few words, for the log"`
}

type clickIn struct {
	targetIn
	Button string `json:"button,omitempty" jsonschema:"left (default) or right"`
	Double bool   `json:"double,omitempty" jsonschema:"double-click"`
}

type typeIn struct {
	targetIn
	Text   string `json:"text" jsonschema:"the text to type"`
	Submit bool   `json:"submit,omitempty" jsonschema:"press Enter after"`
	Clear  bool   `json:"clear,omitempty" jsonschema:"empty the field first"`
}

type keyIn struct {
	tabIn
	Key string `json:"key" jsonschema:"a key or chord: Enter, Tab, ArrowDown, Control+Shift+K, ControlOrMeta+L"`
}

type selectIn struct {
	targetIn
	Option string `json:"option" jsonschema:"the option's visible text"`
}

type scrollIn struct {
	targetIn
	DX int `json:"dx,omitempty" jsonschema:"notches right (negative: left)"`
	DY int `json:"dy,omitempty" jsonschema:"notches down (negative: up)"`
}

type waitIn struct {
	tabIn
	Text     string  `json:"text,omitempty" jsonschema:"text to appear"`
	TextGone string  `json:"text_gone,omitempty" jsonschema:"text to go"`
	Ref      string  `json:"ref,omitempty" jsonschema:"a ref from your latest snapshot, to be in state"`
	State    string  `json:"state,omitempty" jsonschema:"visible, hidden, enabled, disabled, checked, unchecked, expanded or collapsed"`
	Role     string  `json:"role,omitempty" jsonschema:"a role (button, link, textbox…) to appear with a ref"`
	Name     string  `json:"name,omitempty" jsonschema:"with role: words of its name"`
	Loaded   bool    `json:"loaded,omitempty" jsonschema:"until the page has loaded"`
	Time     float64 `json:"time,omitempty" jsonschema:"seconds (at most 30); with text, how long to look"`
	Handoff  string  `json:"handoff,omitempty" jsonschema:"a hand-off id: until the person presses Done or Stop"`
}

type navigateIn struct {
	tabIn
	URL       string `json:"url,omitempty" jsonschema:"an http(s) address"`
	Direction string `json:"direction,omitempty" jsonschema:"back or forward, instead of url"`
}

type screenshotIn struct {
	tabIn
	Ref      string `json:"ref,omitempty" jsonschema:"crop to this element"`
	Snapshot string `json:"snapshot,omitempty" jsonschema:"snapshot id of the ref"`
}

type desktopClickIn struct {
	Ref     string  `json:"ref,omitempty" jsonschema:"desktop ref (d7), instead of x, y"`
	X       float64 `json:"x,omitempty" jsonschema:"screen x in points"`
	Y       float64 `json:"y,omitempty" jsonschema:"screen y in points"`
	Button  string  `json:"button,omitempty" jsonschema:"left (default) or right"`
	Double  bool    `json:"double,omitempty" jsonschema:"double-click"`
	Element string  `json:"element,omitempty" jsonschema:"what is there, in a few words, shown to the person"`
}

type desktopPictureIn struct {
	Window bool `json:"window,omitempty" jsonschema:"only the window in front"`
}

type desktopTypeIn struct {
	Ref    string `json:"ref,omitempty" jsonschema:"desktop ref of a field to click first; else keys go to the focus"`
	Text   string `json:"text" jsonschema:"the text to type"`
	Submit bool   `json:"submit,omitempty" jsonschema:"press Enter after"`
}

type desktopKeyIn struct {
	Key string `json:"key" jsonschema:"a key or chord: Enter, Control+Shift+K"`
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
// Every agent reads all of it before its first call: say each thing once,
// in as few words as an agent needs to act and to recover.
var toolTable = []toolEntry{
	acts[tabsIn]("browser_tabs", "Tabs", (*handler).browserTabs,
		fmt.Sprintf("List the browser's tabs with your access to each (none, read, control); titles and addresses only of tabs you can read. "+
			"new opens url in a new tab beside one you control (at most %d of yours open at once): on its site the person is asked to give it to you at control too, elsewhere it is not yours. "+
			"select brings a tab to the front, close closes it. new, select and close need control; the person is asked each time.", agentdoor.MaxOpenedTabs)),
	reads[snapshotIn]("browser_snapshot", "Read a tab", (*handler).browserSnapshot,
		"Read a tab as an accessibility snapshot: a line per element, refs like [ref=e12] to act on, and a snapshot id. Needs read access. "+
			"A page longer than max_chars is cut at a line, and the result says what it left out and how to read it (ref, browser_find, mode viewport, more max_chars)."),
	reads[findIn]("browser_find", "Find on a tab", (*handler).browserFind,
		"A fresh snapshot of a tab, only the lines holding the words (and role, if given), with refs: exact names first, then whole words, controls before text. Says how many matched and how to narrow."),
	reads[maxCharsIn]("browser_set_max_chars", "Set this session's result size", (*handler).browserSetMaxChars,
		fmt.Sprintf("Set max_chars for this session's browser_snapshot, browser_find and desktop_observe calls that give none (default %d). An act's changes are always cut at %d.", agentdoor.DefaultBudget, agentdoor.ChangesBudget)),
	acts[clickIn]("browser_click", "Click", (*handler).browserClick,
		"Click an element by ref with the real mouse. The person is asked first; the result lists what changed on the page."),
	acts[typeIn]("browser_type", "Type", (*handler).browserType,
		fmt.Sprintf("Click a field by ref and type into it with real keys. At most %d characters (more: text_too_long, split it). %s The person is asked first.", agentdoor.MaxTypedText, typedText("browser_press_key"))),
	acts[keyIn]("browser_press_key", "Press a key", (*handler).browserPressKey,
		"Press a key or chord in the tab in front. The person is asked first."),
	acts[targetIn]("browser_hover", "Hover", (*handler).browserHover,
		"Move the mouse over an element by ref. The person is asked first."),
	acts[selectIn]("browser_select_option", "Pick an option", (*handler).browserSelectOption,
		"Pick a drop-down's (select's) option: Reins clicks the drop-down, types the option's text and presses Enter, so give the start of the option's label. The person is asked first."),
	acts[scrollIn]("browser_scroll", "Scroll", (*handler).browserScroll,
		"Turn the mouse wheel over an element by ref (a list, a panel, the main region; [scroll=240/1160]: 240 of 1160 px down). The result says where it and the page stand. "+
			"No need to scroll before an act: it scrolls to its element. The person is asked first."),
	acts[dragIn]("browser_drag", "Drag an element onto another", (*handler).browserDrag,
		"Drag with the real mouse from ref onto to (both in view), or dx, dy points away (a slider, a splitter). Pointer drags and HTML drag and drop. The person is asked first."),
	acts[dialogIn]("browser_handle_dialog", "Reply to a page's dialog", (*handler).browserHandleDialog,
		"Reply to the JavaScript dialog (alert, confirm, prompt, \"Leave site?\") that stops a tab: reads and acts there are refused with dialog_open, naming it. "+
			"The keys go to the dialog with the real keyboard; the person is asked each time. Needs control of the tab, in front, the dialog focused."),
	acts[uploadIn]("browser_file_upload", "Upload a file", (*handler).browserFileUpload,
		"Give a page a file: ref is the file input (or its chooser's button). The person is asked each time, with the file's name, size and folder; "+
			"then Reins clicks and types the path into the browser's own file dialog (a desktop portal's: no_file_dialog). "+
			"Missing files, folders, files over 100 MB, stores of keys, passwords or browser profiles (~/.ssh, ~/.aws, keychains…) and Reins' data are refused with path_refused before anyone is asked. "+
			"The result says whether the page names the file."),
	reads[waitIn]("browser_wait_for", "Wait", (*handler).browserWaitFor,
		"Wait up to 30 s until text appears or goes, a ref is in a state, a role and name appears, or the page has loaded; or wait time seconds."),
	acts[navigateIn]("browser_navigate", "Open an address", (*handler).browserNavigate,
		"Open an http(s) address in a tab, or go back or forward. The person is asked first; your access lasts while the tab stays on the site it was given on."),
	reads[screenshotIn]("browser_screenshot", "Picture of a tab", (*handler).browserScreenshot,
		"A PNG of a tab's visible part (the tab in front of its window), or of an element by ref. Needs read access."),
	acts[handoffIn]("browser_handoff", "Hand a step to the person", (*handler).browserHandoff,
		fmt.Sprintf("Hand a tab to the person for a step only they should take (log in, captcha, second factor). "+
			"Returns a hand-off id at once; call browser_wait_for with it as handoff until it ends (at most %d s a call). Only the person can finish a hand-off, with Done or Stop. "+
			"Meanwhile acts on the tab are refused with handed_off; reading goes on while it shows your site. Needs control of the tab.", int(agentdoor.MaxWait/time.Second))),
	acts[planIn]("browser_run_plan", "Run a plan", (*handler).browserRunPlan,
		fmt.Sprintf("Propose up to %d steps on one tab, refs from one snapshot, no navigation (a form's fields and its button), and run them. "+
			"The person reads the plan in one popup: yes to all, yes up to a step, or no. A step fires only if it still matches the plan (action, element, role, name, site, text); "+
			"if not, and for typing into a password or payment field, a key, or a button that buys, pays, sends or deletes, the person is asked on its own. "+
			"The plan ends at the first step not done or a navigation. The result lists each step and what changed. %s", agentdoor.MaxPlanSteps, typedText("a press_key step"))),
	reads[desktopPictureIn]("desktop_screenshot", "Picture of the desktop", (*handler).desktopScreenshot,
		"A PNG of the screen, or the window in front. Web browsers (use browser_screenshot), deny-listed applications and Reins are blacked out. Needs read access to the desktop."),
	reads[observeIn]("desktop_observe", "Look at the desktop", (*handler).desktopObserve,
		"The application in front, the windows (title, application, place in points), and the front window's elements with refs like [ref=d7] for desktop_click and desktop_type "+
			"(a browser's: its tab's lines, if the tab is open to you; nothing of deny-listed applications), then tabs open to you that browsers behind show. "+
			"A part read over 2 s before the rest is marked as maybe old. Needs read access to the desktop, off unless the person turns it on."),
	acts[desktopClickIn]("desktop_click", "Click on the desktop", (*handler).desktopClick,
		"Click a desktop element by ref, or a point, with the real mouse. The ref is found again first (gone: stale_ref; renamed: changed; covered: obscured); "+
			"a point on no screen: off_screen; a web browser: browser_window, use the browser tools; a deny-listed application (password managers, settings): deny_listed_app. "+
			"Needs control of the desktop; the person is asked each time."),
	acts[desktopTypeIn]("desktop_type", "Type on the desktop", (*handler).desktopType,
		fmt.Sprintf("Type with real keys into a desktop field by ref (clicked first), or wherever the focus is; at most %d characters (more: text_too_long). %s "+
			"Not into a web browser (browser_window): use browser_type. Needs control of the desktop; the person is asked first.", agentdoor.MaxTypedText, typedText("desktop_press_key"))),
	acts[desktopKeyIn]("desktop_press_key", "Press a key on the desktop", (*handler).desktopPressKey,
		"Press a key or chord wherever the focus is. Not while a web browser is in front (browser_window): use browser_press_key or browser_handle_dialog. Needs control of the desktop; the person is asked first."),
}

// typedText is what typed text may hold: keys the person sees in the text
// they are asked about, and no other.
func typedText(keyTool string) string {
	return "Typed text: a line break is typed as Enter and shown to the person as ⏎; Tab and other control characters are refused with hidden_key (press Tab with " + keyTool + ")."
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
