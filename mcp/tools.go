package mcp

import (
	"context"
	"encoding/json"
	"errors"
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

func readOnly(title string) *sdk.ToolAnnotations {
	return &sdk.ToolAnnotations{Title: title, ReadOnlyHint: true}
}

func acting(title string) *sdk.ToolAnnotations {
	return &sdk.ToolAnnotations{Title: title}
}

// addTools registers every tool. Each handler is a thin call through the agents' door.
func (h *handler) addTools(s *sdk.Server) {
	h.addHandoffTools(s)
	sdk.AddTool(s, &sdk.Tool{Name: "browser_drag", Annotations: acting("Drag an element onto another"),
		Description: "Drag an element with the real mouse: press on ref, move in steps, let go over to (both refs from the same snapshot, both in view), or dx, dy screen points away (a slider, a splitter; the end must be on the page as it shows). Works for pointer-event drags and HTML drag and drop. Needs control of the tab; the person is asked first."},
		func(ctx context.Context, req *sdk.CallToolRequest, in dragIn) (*sdk.CallToolResult, any, error) {
			return h.actTo(ctx, req, in.targetIn, vocab.Act{Kind: vocab.Drag, DX: in.DX, DY: in.DY}, in.To), nil, nil
		})

	sdk.AddTool(s, &sdk.Tool{Name: "browser_handle_dialog", Annotations: acting("Reply to a page's dialog"),
		Description: "Reply to the JavaScript dialog (alert, confirm, prompt, or the browser's \"Leave site?\" question) that stops a tab's page: a read or act of such a tab is refused with dialog_open, which names the dialog and, where Reins can read it, the page's message. accept true presses OK (Leave), false Cancel; text is typed as a prompt's reply. The keys go to the dialog with the real keyboard once the person says yes; accepting is asked every time. Needs control of the tab, the tab in front, and the dialog holding the keyboard focus."},
		func(ctx context.Context, req *sdk.CallToolRequest, in dialogIn) (*sdk.CallToolResult, any, error) {
			s := h.session(req.Session, req.Extra)
			tab, err := h.tab(ctx, s, in.tabIn)
			if err != nil {
				return refusal(err), nil, nil
			}
			r, err := s.Act(ctx, agentdoor.ActRequest{Tab: tab, Act: vocab.Act{Kind: vocab.Dialog, Accept: in.Accept, Text: in.Text}})
			if err != nil {
				return refusal(err), nil, nil
			}
			return textResult(fmt.Sprintf("Done: %s, tab %s (audit row %d). Take a new snapshot to see what the page did.\n", r.Done, tab, r.Audit)), nil, nil
		})

	sdk.AddTool(s, &sdk.Tool{Name: "browser_file_upload", Annotations: acting("Upload a file"),
		Description: "Give a page a file from the computer: ref is the file input (or the button that opens its file chooser), paths the file's absolute path (one file a call). The person is asked every time, with the file's name, size and folder; then Reins clicks with the real mouse and types the path into the browser's own file dialog with real keys (on Linux the GTK dialog; a desktop portal's is refused with no_file_dialog). Files that are missing, folders, over 100 MB, or in stores of keys, credentials, passwords or browser profiles (~/.ssh, ~/.gnupg, ~/.aws, keychains, browser profiles…) or in Reins' own data are refused with path_refused before anyone is asked. The result says whether the page's next snapshot names the file. Needs control of the tab."},
		func(ctx context.Context, req *sdk.CallToolRequest, in uploadIn) (*sdk.CallToolResult, any, error) {
			s := h.session(req.Session, req.Extra)
			tab, err := h.tab(ctx, s, in.tabIn)
			if err != nil {
				return refusal(err), nil, nil
			}
			r, err := s.Upload(ctx, agentdoor.UploadRequest{Tab: tab, Ref: in.Ref, Snapshot: in.Snapshot, Paths: in.Paths, Element: in.Element})
			if err != nil {
				return refusal(err), nil, nil
			}
			return textResult(fmt.Sprintf("Done: %s (audit row %d).\nWhat the page shows: %s\n", r.Done, r.Audit, r.Received)), nil, nil
		})

	sdk.AddTool(s, &sdk.Tool{Name: "browser_set_max_chars", Annotations: readOnly("Set this session's result size"),
		Description: fmt.Sprintf("Set the most characters browser_snapshot, browser_find and desktop_observe return in this session when a call gives no max_chars of its own (%d by default; -1 for no limit, 0 for the default again). What an act changed is always cut at %d.", agentdoor.DefaultBudget, agentdoor.ChangesBudget)},
		func(ctx context.Context, req *sdk.CallToolRequest, in maxCharsIn) (*sdk.CallToolResult, any, error) {
			n := in.MaxChars
			switch {
			case n == 0:
				h.budgets.Delete(req.Session)
				return textResult(fmt.Sprintf("Answers in this session are at most %d characters again, unless a call asks for more.\n", agentdoor.DefaultBudget)), nil, nil
			case n < 0:
				n = agentdoor.NoBudget
				h.budgets.Store(req.Session, n)
				return textResult("Answers in this session are no longer cut, unless a call gives its own max_chars.\n"), nil, nil
			case n < minSessionChars:
				return refusal(badRequest("max_chars %d is too small to hold a page's lines; give at least %d", n, minSessionChars)), nil, nil
			}
			h.budgets.Store(req.Session, n)
			return textResult(fmt.Sprintf("Answers in this session are at most %d characters, unless a call gives its own max_chars.\n", n)), nil, nil
		})

	sdk.AddTool(s, &sdk.Tool{Name: "browser_tabs", Annotations: acting("Tabs"),
		Description: fmt.Sprintf("List the browser's tabs with the access the person gave you to each (none, read, control); titles and addresses are shown only for tabs you can read. With action new, open an address in a new tab beside a tab you control (at most %d of the tabs you opened open at once): on that tab's site the person is asked to give you the new tab at control too, on another site it is not yours. With action select, bring a tab to the front of its window; with action close, close it: both need control of that tab. The person is asked first every time.", agentdoor.MaxOpenedTabs)},
		func(ctx context.Context, req *sdk.CallToolRequest, in tabsIn) (*sdk.CallToolResult, any, error) {
			s := h.session(req.Session, req.Extra)
			var kind vocab.ActKind
			switch in.Action {
			case "", "list":
				tabs, err := s.ListTabs(ctx)
				if err != nil {
					return refusal(err), nil, nil
				}
				return textResult(formatTabs(tabs)), nil, nil
			case "select":
				kind = vocab.Activate
			case "close":
				kind = vocab.CloseTab
			case "new":
				tab, err := h.tab(ctx, s, tabIn{Tab: in.Tab})
				if err != nil {
					return refusal(err), nil, nil
				}
				r, err := s.OpenTab(ctx, tab, in.URL)
				if err != nil {
					return refusal(err), nil, nil
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
				return textResult(b.String()), nil, nil
			default:
				return refusal(badRequest("action %q is not one of list, select or close", in.Action)), nil, nil
			}
			if in.Tab == "" {
				return refusal(badRequest("%s needs the tab's id from the list", in.Action)), nil, nil
			}
			r, err := s.Act(ctx, agentdoor.ActRequest{Tab: in.Tab, Act: vocab.Act{Kind: kind}})
			if err != nil {
				return refusal(err), nil, nil
			}
			return textResult(fmt.Sprintf("Done: %s, tab %s (audit row %d).\n", r.Done, in.Tab, r.Audit)), nil, nil
		})

	sdk.AddTool(s, &sdk.Tool{Name: "browser_snapshot", Annotations: readOnly("Read a tab"),
		Description: "Read a tab as an accessibility snapshot: one line per element, with refs like [ref=e12] to act on, and a snapshot id. Needs read access to the tab. A result is at most max_chars characters (40000 by default); a longer page is cut at a line, and the result says what was left out and how to read it: the subtree of a ref it names (ref), browser_find, mode viewport, or a larger max_chars."},
		func(ctx context.Context, req *sdk.CallToolRequest, in snapshotIn) (*sdk.CallToolResult, any, error) {
			s := h.session(req.Session, req.Extra)
			tab, err := h.tab(ctx, s, in.tabIn)
			if err != nil {
				return refusal(err), nil, nil
			}
			r, err := s.Read(ctx, agentdoor.ReadOptions{Tab: tab, Mode: in.Mode, MaxChars: agentdoor.TextBudget(h.maxChars(req.Session, in.MaxChars)), Root: in.Ref, Diff: in.Diff})
			if err != nil {
				return refusal(err), nil, nil
			}
			return textResult(formatRead(r)), nil, nil
		})

	sdk.AddTool(s, &sdk.Tool{Name: "browser_find", Annotations: readOnly("Find on a tab"),
		Description: "Take a fresh snapshot of a tab and return only the lines whose text contains the given words (and role, if given), with their refs: first those named exactly so, then those where the words stand whole, then the rest, controls before text. A result is at most max_chars characters (40000 by default); it says how many lines matched in all and how to narrow the search."},
		func(ctx context.Context, req *sdk.CallToolRequest, in findIn) (*sdk.CallToolResult, any, error) {
			s := h.session(req.Session, req.Extra)
			tab, err := h.tab(ctx, s, in.tabIn)
			if err != nil {
				return refusal(err), nil, nil
			}
			r, err := s.Find(ctx, tab, in.Text, in.Role)
			if err != nil {
				return refusal(err), nil, nil
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
				// What the matches are, by role, so that the agent can narrow.
				count := map[string]int{}
				var roles []string
				for _, l := range r.Lines {
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
				fmt.Fprintf(&b, "[Left out: %d of the %d matching lines (by role: %s). Narrow the search with more of the text, a role, or browser_snapshot with the ref of the part of the page to look in; or list more with a larger max_chars (-1 for no limit).]\n",
					len(r.Lines)-shown, len(r.Lines), strings.Join(top, ", "))
			}
			return textResult(b.String()), nil, nil
		})

	sdk.AddTool(s, &sdk.Tool{Name: "browser_click", Annotations: acting("Click"),
		Description: "Click an element by its ref, with real mouse input. The person is asked first; the result lists what changed on the page."},
		func(ctx context.Context, req *sdk.CallToolRequest, in clickIn) (*sdk.CallToolResult, any, error) {
			kind := vocab.Click
			switch {
			case in.Button == "right":
				kind = vocab.RightClick
			case in.Button != "" && in.Button != "left":
				return refusal(badRequest("button %q is not available; use left or right", in.Button)), nil, nil
			case in.Double:
				kind = vocab.DoubleClick
			}
			return h.act(ctx, req, in.targetIn, vocab.Act{Kind: kind}), nil, nil
		})

	sdk.AddTool(s, &sdk.Tool{Name: "browser_type", Annotations: acting("Type"),
		Description: fmt.Sprintf("Click a field by its ref and type text into it with real keystrokes; optionally clear it first and press Enter after. At most %d characters per call (longer text is refused with text_too_long: split it). The person is asked first.", agentdoor.MaxTypedText)},
		func(ctx context.Context, req *sdk.CallToolRequest, in typeIn) (*sdk.CallToolResult, any, error) {
			return h.act(ctx, req, in.targetIn, vocab.Act{Kind: vocab.Type, Text: in.Text, Submit: in.Submit, Clear: in.Clear}), nil, nil
		})

	sdk.AddTool(s, &sdk.Tool{Name: "browser_press_key", Annotations: acting("Press a key"),
		Description: "Press a key or chord in the tab in front, e.g. Enter, Escape, Control+Shift+K, Meta+A. The person is asked first."},
		func(ctx context.Context, req *sdk.CallToolRequest, in keyIn) (*sdk.CallToolResult, any, error) {
			return h.act(ctx, req, targetIn{tabIn: in.tabIn}, vocab.Act{Kind: vocab.Key, Keys: in.Key}), nil, nil
		})

	sdk.AddTool(s, &sdk.Tool{Name: "browser_hover", Annotations: acting("Hover"),
		Description: "Move the mouse over an element by its ref. The person is asked first."},
		func(ctx context.Context, req *sdk.CallToolRequest, in targetIn) (*sdk.CallToolResult, any, error) {
			return h.act(ctx, req, in, vocab.Act{Kind: vocab.Hover}), nil, nil
		})

	sdk.AddTool(s, &sdk.Tool{Name: "browser_select_option", Annotations: acting("Pick an option"),
		Description: "Pick an option of a drop-down (a select element) by its visible text: Reins clicks the drop-down, types the option's text and presses Enter, as a person would with the keyboard. It relies on the browser's type-to-find, so the text should be the start of the option's label."},
		func(ctx context.Context, req *sdk.CallToolRequest, in selectIn) (*sdk.CallToolResult, any, error) {
			return h.act(ctx, req, in.targetIn, vocab.Act{Kind: vocab.Type, Text: in.Option, Submit: true}), nil, nil
		})

	sdk.AddTool(s, &sdk.Tool{Name: "browser_scroll", Annotations: acting("Scroll"),
		Description: "Scroll with the mouse wheel over an element by its ref (a list, a panel, the page's main region; a box that scrolls shows as [scroll=240/1160]: 240 of the 1160 pixels it can go down). The person is asked first. The result says where the box and the page stand afterwards. To act on an element out of view there is no need to scroll first: the act scrolls to it."},
		func(ctx context.Context, req *sdk.CallToolRequest, in scrollIn) (*sdk.CallToolResult, any, error) {
			if in.DX == 0 && in.DY == 0 {
				in.DY = 3
			}
			return h.act(ctx, req, in.targetIn, vocab.Act{Kind: vocab.Scroll, DX: in.DX, DY: in.DY}), nil, nil
		})

	sdk.AddTool(s, &sdk.Tool{Name: "browser_wait_for", Annotations: readOnly("Wait"),
		Description: "Wait until text appears on a tab or disappears from it, until an element (by ref) is visible, hidden, enabled, disabled, checked, unchecked, expanded or collapsed, until an element of a role and name appears, or until the tab has finished loading — reading the tab a few times a second, for up to 30 s — or just wait a number of seconds."},
		func(ctx context.Context, req *sdk.CallToolRequest, in waitIn) (*sdk.CallToolResult, any, error) {
			if in.Handoff != "" {
				return h.waitHandoff(ctx, req, in), nil, nil
			}
			s := h.session(req.Session, req.Extra)
			o := agentdoor.WaitOptions{Text: in.Text, Gone: in.TextGone, Ref: in.Ref, State: in.State, Role: in.Role, Name: in.Name, Loaded: in.Loaded, Time: time.Duration(in.Time * float64(time.Second))}
			if in.Name != "" && in.Role == "" {
				return refusal(badRequest("name goes with role: say which role the element has (button, link, textbox…)")), nil, nil
			}
			if o.Text != "" || o.Gone != "" || o.Ref != "" || o.Role != "" || o.Loaded {
				tab, err := h.tab(ctx, s, in.tabIn)
				if err != nil {
					return refusal(err), nil, nil
				}
				o.Tab, o.Timeout = tab, o.Time
			}
			r, err := s.WaitFor(ctx, o)
			if err != nil {
				return refusal(err), nil, nil
			}
			return textResult(formatWait(o, r)), nil, nil
		})

	sdk.AddTool(s, &sdk.Tool{Name: "browser_navigate", Annotations: acting("Open an address"),
		Description: "Open an http(s) address in a tab, or go back or forward in its history. The person is asked first; your access to the tab lasts only while it stays on the site it was given on."},
		func(ctx context.Context, req *sdk.CallToolRequest, in navigateIn) (*sdk.CallToolResult, any, error) {
			act := vocab.Act{Kind: vocab.Navigate, URL: in.URL}
			switch {
			case in.URL != "" && in.Direction != "":
				return refusal(badRequest("give either url or direction, not both")), nil, nil
			case in.Direction == "back":
				act = vocab.Act{Kind: vocab.Back}
			case in.Direction == "forward":
				act = vocab.Act{Kind: vocab.Forward}
			case in.Direction != "":
				return refusal(badRequest("direction %q is not back or forward", in.Direction)), nil, nil
			case in.URL == "":
				return refusal(badRequest("give a url, or a direction (back or forward)")), nil, nil
			}
			return h.act(ctx, req, targetIn{tabIn: in.tabIn}, act), nil, nil
		})

	sdk.AddTool(s, &sdk.Tool{Name: "browser_screenshot", Annotations: readOnly("Picture of a tab"),
		Description: "A PNG picture of the visible part of a tab (which must be the tab in front of its window), or of one element by ref. Needs read access to the tab."},
		func(ctx context.Context, req *sdk.CallToolRequest, in screenshotIn) (*sdk.CallToolResult, any, error) {
			s := h.session(req.Session, req.Extra)
			tab, err := h.tab(ctx, s, in.tabIn)
			if err != nil {
				return refusal(err), nil, nil
			}
			png, err := s.ScreenshotOf(ctx, tab, in.Ref, in.Snapshot)
			if err != nil {
				return refusal(err), nil, nil
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{Data: png, MIMEType: "image/png"}}}, nil, nil
		})

	sdk.AddTool(s, &sdk.Tool{Name: "desktop_screenshot", Annotations: readOnly("Picture of the desktop"),
		Description: "A PNG picture of the whole screen, or of the window in front (window: true). Windows of web browsers (picture their tabs with browser_screenshot), of applications on the deny list and of Reins itself are blacked out. Needs read access to the desktop."},
		func(ctx context.Context, req *sdk.CallToolRequest, in desktopPictureIn) (*sdk.CallToolResult, any, error) {
			png, err := h.session(req.Session, req.Extra).DesktopScreenshot(ctx, in.Window)
			if err != nil {
				return refusal(err), nil, nil
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{Data: png, MIMEType: "image/png"}}}, nil, nil
		})

	sdk.AddTool(s, &sdk.Tool{Name: "desktop_observe", Annotations: readOnly("Look at the desktop"),
		Description: "The application in front, the top-level windows (title, application, position in points), and the elements of the window in front with desktop refs like [ref=d7] to click or type into with desktop_click and desktop_type (for a web browser, the tab it shows when that tab is open to you, with its tab refs; nothing of applications on the deny list), then the tabs open to you that browser windows behind it show on screen, from their pages. A part read more than 2 s before the rest came back (behind a slow application) is marked as maybe out of date. Needs read access to the desktop, which is off unless the person turns it on."},
		func(ctx context.Context, req *sdk.CallToolRequest, in observeIn) (*sdk.CallToolResult, any, error) {
			v, err := h.session(req.Session, req.Extra).DesktopWith(ctx, agentdoor.DesktopOptions{Boxes: in.Boxes, Find: in.Find, MaxChars: agentdoor.TextBudget(h.maxChars(req.Session, in.MaxChars))})
			if err != nil {
				return refusal(err), nil, nil
			}
			return textResult(formatDesktop(v)), nil, nil
		})

	sdk.AddTool(s, &sdk.Tool{Name: "desktop_click", Annotations: acting("Click on the desktop"),
		Description: "Click an element of the desktop by its ref from desktop_observe, or a point on screen, with real mouse input. A ref is found again right before the click (gone: stale_ref; renamed: changed; covered: obscured). Needs control of the desktop; the person is asked about each click, and some applications (password managers, system settings) are never clicked. Nor is a web browser's window (browser_window): act on a tab open to you with the browser tools instead. A point on no screen is refused with off_screen before anyone is asked."},
		func(ctx context.Context, req *sdk.CallToolRequest, in desktopClickIn) (*sdk.CallToolResult, any, error) {
			kind := vocab.Click
			switch {
			case in.Button == "right":
				kind = vocab.RightClick
			case in.Button != "" && in.Button != "left":
				return refusal(badRequest("button %q is not available; use left or right", in.Button)), nil, nil
			case in.Double:
				kind = vocab.DoubleClick
			}
			return h.desktopAct(ctx, req, agentdoor.DesktopActRequest{Act: vocab.Act{Kind: kind}, Ref: in.Ref, X: in.X, Y: in.Y, Element: in.Element}), nil, nil
		})

	sdk.AddTool(s, &sdk.Tool{Name: "desktop_type", Annotations: acting("Type on the desktop"),
		Description: fmt.Sprintf("Type text with real keystrokes into a field of the desktop, by its ref from desktop_observe (clicked first), or into whatever has keyboard focus; at most %d characters per call (longer text is refused with text_too_long: split it). Needs control of the desktop; the person is asked first. Never into a web browser (browser_window): use browser_type on a tab open to you.", agentdoor.MaxTypedText)},
		func(ctx context.Context, req *sdk.CallToolRequest, in desktopTypeIn) (*sdk.CallToolResult, any, error) {
			return h.desktopAct(ctx, req, agentdoor.DesktopActRequest{Act: vocab.Act{Kind: vocab.Type, Text: in.Text, Submit: in.Submit}, Ref: in.Ref}), nil, nil
		})

	sdk.AddTool(s, &sdk.Tool{Name: "desktop_press_key", Annotations: acting("Press a key on the desktop"),
		Description: "Press a key or chord in whatever has keyboard focus. Needs control of the desktop; the person is asked first. Not while a web browser is in front (browser_window): use browser_press_key, or browser_handle_dialog for a page's dialog, on a tab open to you."},
		func(ctx context.Context, req *sdk.CallToolRequest, in desktopKeyIn) (*sdk.CallToolResult, any, error) {
			return h.desktopAct(ctx, req, agentdoor.DesktopActRequest{Act: vocab.Act{Kind: vocab.Key, Keys: in.Key}}), nil, nil
		})
	h.addPlanTools(s)
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

// writeChanges says what changed on the page after an act, or why it could
// not be read.
func writeChanges(b *strings.Builder, ch *agentdoor.ReadResult, err error) {
	switch {
	case err != nil:
		fmt.Fprintf(b, "The tab could not be read afterwards: %s\n", shorten(err.Error(), messageMax))
	case ch.NewPage && ch.First:
		fmt.Fprintf(b, "The tab went to a new page, %s; the refs of the page the act began on are gone (snapshot %s):\n%s", shorten(ch.URL, urlMax), ch.ID, ch.Text)
	case ch.NewPage:
		fmt.Fprintf(b, "The tab went to a new page, %s; the refs of the page the act began on are gone. Changes (snapshot %s; + appeared, - went):\n%s", shorten(ch.URL, urlMax), ch.ID, ch.Text)
	case ch.First:
		fmt.Fprintf(b, "The tab now shows %s (snapshot %s):\n%s", shorten(ch.URL, urlMax), ch.ID, ch.Text)
	case ch.Text == "":
		fmt.Fprintf(b, "Nothing changed on the page yet (snapshot %s).\n", ch.ID)
	default:
		fmt.Fprintf(b, "Changes on the page (snapshot %s; + appeared, - went):\n%s", ch.ID, ch.Text)
	}
	if ch != nil && ch.Hint != "" {
		// The act's answer keeps to agentdoor.ChangesBudget; the rest of
		// the page is read with the tools the hint's words stand for.
		fmt.Fprintf(b, "[%s (with browser_snapshot and browser_find).]\n", strings.TrimSuffix(ch.Hint, "."))
	}
}

func (h *handler) desktopAct(ctx context.Context, req *sdk.CallToolRequest, r agentdoor.DesktopActRequest) *sdk.CallToolResult {
	res, err := h.session(req.Session, req.Extra).DesktopAct(ctx, r)
	if err != nil {
		return refusal(err)
	}
	return textResult(fmt.Sprintf("Done: %s (audit row %d).\n", res.Done, res.Audit))
}

func textResult(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

// refusal is a tool error: the stable code first, then what to do next.
// The page's title and address, and its words in an error, are the page's
// to choose: long ones are shortened, so that an answer keeps to
// agentdoor.AnswerRoom.
const (
	titleMax   = 200
	urlMax     = 500
	messageMax = 2000
)

// shorten cuts s to at most max characters, the last an ellipsis.
func shorten(s string, max int) string {
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	return string(append(r[:max-1], '…'))
}

func refusal(err error) *sdk.CallToolResult {
	var ce *vocab.Error
	text := ""
	switch {
	case errors.As(err, &ce):
		text = ce.Code + ": " + shorten(ce.Message, messageMax)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		text = vocab.CodeFailed + ": the call was cancelled before it finished; nothing more will happen for it"
	default:
		text = vocab.CodeFailed + ": " + shorten(err.Error(), messageMax)
	}
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: text}}}
}

func badRequest(format string, args ...any) error {
	return &vocab.Error{Code: vocab.CodeBadRequest, Message: fmt.Sprintf(format, args...)}
}

func formatTabs(tabs []vocab.TabInfo) string {
	if len(tabs) == 0 {
		return "No tabs: Chrome with the Reins extension is not connected, or has no tabs open.\n"
	}
	var b strings.Builder
	for _, t := range tabs {
		front := ""
		if t.Active {
			front = " (in front)"
		}
		if !t.Connected {
			// Its browser's extension is not connected: the tab may be
			// gone, and nothing can be read or done on it now.
			front = " (gone: its browser is not connected)"
		}
		if t.Title == "" && t.URL == "" {
			fmt.Fprintf(&b, "- tab %s: %s%s\n", t.ID, t.Share, front)
			continue
		}
		fmt.Fprintf(&b, "- tab %s: %s%s — %s <%s>\n", t.ID, t.Share, front, quoteLine(shorten(t.Title, titleMax)), shorten(t.URL, urlMax))
	}
	return b.String()
}

// quoteLine keeps a page's title on one line, as JSON quoting does.
func quoteLine(s string) string {
	q, _ := json.Marshal(s)
	return string(q)
}

func formatRead(r *agentdoor.ReadResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Tab %s — %s <%s>\nSnapshot %s", r.Tab, quoteLine(shorten(r.Title, titleMax)), shorten(r.URL, urlMax), r.ID)
	switch {
	case r.Diff && r.First:
		b.WriteString(" (nothing earlier to compare with; the page follows)")
	case r.Diff && r.Text == "":
		b.WriteString(": nothing changed since your previous snapshot.\n")
		return b.String()
	case r.Diff:
		b.WriteString(" (+ appeared, - went since your previous snapshot)")
	}
	b.WriteString(":\n")
	b.WriteString(r.Text)
	if r.Hint != "" {
		b.WriteString("[" + r.Hint + "]\n")
	}
	return b.String()
}

func formatWait(o agentdoor.WaitOptions, r *agentdoor.WaitResult) string {
	waited := r.Waited.Round(10 * time.Millisecond)
	switch {
	case o.Text == "" && o.Gone == "" && o.Ref == "" && o.Role == "" && !o.Loaded:
		return fmt.Sprintf("Waited %s.\n", waited)
	case r.Met && o.Loaded:
		return fmt.Sprintf("The page had finished loading after %s (snapshot %s).\n", waited, r.ID)
	case r.Met && o.Ref != "":
		return fmt.Sprintf("%s is %s after %s (snapshot %s).\n", o.Ref, o.State, waited, r.ID)
	case r.Met && r.Matched != "":
		return fmt.Sprintf("Found after %s (snapshot %s): %s\n", waited, r.ID, r.Matched)
	case r.Met:
		return fmt.Sprintf("Gone after %s (snapshot %s).\n", waited, r.ID)
	}
	return fmt.Sprintf("Not met after %s (snapshot %s); look again with browser_snapshot.\n", waited, r.ID)
}

func formatDesktop(v *agentdoor.DesktopView) string {
	var b strings.Builder
	fmt.Fprintf(&b, "In front: %s", v.Frontmost.Name)
	if v.Frontmost.Exe != "" {
		fmt.Fprintf(&b, " (%s, pid %d)", v.Frontmost.Exe, v.Frontmost.PID)
	}
	b.WriteString("\nWindows, front to back:\n")
	for _, w := range v.Windows {
		mark := ""
		if w.Active {
			mark = " [active]"
		}
		fmt.Fprintf(&b, "- %s — %s at %.0f,%.0f size %.0f×%.0f%s\n", quoteLine(w.Title), w.App.Name, w.X, w.Y, w.W, w.H, mark)
	}
	switch {
	case v.Elements != "" && v.Snapshot != "":
		fmt.Fprintf(&b, "Elements of the window in front (desktop snapshot %s):\n%s", v.Snapshot, v.Elements)
	case v.Elements != "":
		fmt.Fprintf(&b, "Elements of the window in front: %s\n", v.Elements)
	case v.Note != "":
		fmt.Fprintf(&b, "[%s]\n", v.Note)
	}
	b.WriteString(v.Tabs)
	var stale []string
	for _, a := range v.Ages {
		if a.Stale {
			stale = append(stale, fmt.Sprintf("%s (%.1f s)", a.Part, a.Age.Seconds()))
		}
	}
	if len(stale) > 0 {
		fmt.Fprintf(&b, "[Read more than 2 s before this answer, so it may have changed: %s. Look again with desktop_observe before acting on it.]\n", strings.Join(stale, ", "))
	}
	return b.String()
}
