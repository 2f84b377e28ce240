// Package protocol holds the wire types spoken between the Reins bridge and
// the browser extension. It is a leaf: it imports nothing of Reins.
//
// Every WebSocket text message is one JSON [Message]. A request carries an id
// and a method; its response carries the same id and either a result or an
// error; an event carries a method and no id. The handshake (challenge,
// hello, welcome) travels as plain JSON; every message after it is sealed
// with the session key the handshake derived (bridge.Session): one header
// line "<seq> <mac>" and then the message. The extension's service worker
// and the Go side read the same golden messages under testdata/.
package protocol

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Version is the protocol version both sides announce in hello. Version 2
// binds the handshake to the port the extension dialled and seals every
// later message.
const Version = 2

// MaxMessageBytes is the largest message either side accepts. Trees are sent
// one frame per message part, so a real page stays far below it.
const MaxMessageBytes = 16 << 20

// MaxHandshakeBytes is the largest message either side accepts before the
// other has proved it knows the secret: a hello is a few hundred bytes, and
// a stranger must not make Reins hold megabytes on its behalf.
const MaxHandshakeBytes = 4 << 10

// Methods sent by the app to the extension.
const (
	MethodKeepalive = "keepalive" // {} → {}
	MethodTabs      = "tabs"      // {} → TabsResult
	MethodSnapshot  = "snapshot"  // SnapshotParams → SnapshotResult
	MethodResolve   = "resolve"   // ResolveParams → ResolveResult
	MethodCapture   = "capture"   // CaptureParams → CaptureResult
	MethodActivate  = "activate"  // ActivateParams → {}
	MethodCloseTab  = "close_tab" // ActivateParams → {}: the tab is closed
	MethodNewTab    = "new_tab"   // NewTabParams → NewTabResult
	MethodNavigate  = "navigate"  // NavigateParams → {}
	MethodFocus     = "focus"     // FocusParams → FocusResult
)

// Methods of the pairing handshake, before anything else may be sent.
const (
	MethodChallenge = "challenge" // app → extension event: Challenge
	MethodHello     = "hello"     // extension → app request: Hello → Welcome
)

// Requests the extension may send the app: the side panel's two buttons.
// Each only takes power away; nothing the extension sends can share a tab,
// raise a level, resume, approve or answer anything, and the app answers any
// other request with CodeUnknownMethod. See [ExtensionMayAsk].
const (
	MethodStopSharing = "stop_sharing" // StopSharing → {}: the tab is set to not shared
	MethodPauseAll    = "pause_all"    // {} → {}: every agent is paused
)

// NeedsShare is the share level the person must have given a tab before the
// extension answers the app's request named method about it, or "" when the
// method reads no tab (keepalive, tabs). The extension refuses on its own any
// request whose tab its latest share table does not share at that level, so
// the app sends the table before such a request.
func NeedsShare(method string) string {
	switch method {
	case MethodSnapshot, MethodResolve, MethodCapture, MethodSettle, MethodWatch, MethodWitness, MethodEffects, MethodFocus:
		return LevelRead
	case MethodActivate, MethodNavigate, MethodCloseTab, MethodNewTab:
		return LevelControl
	}
	return ""
}

// ExtensionMayAsk reports whether the extension may send the app a request
// named method.
func ExtensionMayAsk(method string) bool {
	return method == MethodStopSharing || method == MethodPauseAll
}

// Events pushed by the app, for the extension's badge and side panel. Every
// string in them was rendered for a person by the app (one line, no control
// or bidi characters, capped); the extension shows them as text only.
const (
	EventShares   = "shares"    // Shares
	EventActivity = "activity"  // Activity
	EventTabState = "tab.state" // TabState
)

// Share levels in [TabShare].
const (
	LevelNone    = "none"
	LevelRead    = "read"
	LevelControl = "control"
)

// States of a tab in [TabState].
const (
	StateIdle    = "idle"
	StateWaiting = "waiting" // an act on the tab waits for the person's answer
	StateFiring  = "firing"  // an allowed act on the tab is under way
)

// Shares is the person's share table for one browser profile: the level of
// every tab the app knows, and whether the person paused all agents. It is
// the first message after the handshake, and is sent again after every
// change and, when it changed, before any request that reads or acts on a
// tab (see NeedsShare); each one replaces the one before. A tab missing from
// it counts as not shared, and so does every tab before the first table
// arrives: the extension itself refuses such requests for such tabs.
type Shares struct {
	// Seq grows with every table sent on a connection, so that a table
	// that arrives late or twice never overrides a newer one.
	Seq    uint64     `json:"seq"`
	Paused bool       `json:"paused"`
	Tabs   []TabShare `json:"tabs"`
}

// TabShare is one tab's line in [Shares].
type TabShare struct {
	Tab   int    `json:"tab"`
	Level string `json:"level"` // LevelNone, LevelRead or LevelControl
	// Origin is the origin the share is bound to; the share ends when the
	// tab shows another one. Empty when the tab is not shared.
	Origin string `json:"origin,omitempty"`
	// Agent names, as the person's menu does (process first, then the
	// declared name, rendered as text), the one agent the tab is shared
	// with; empty when it is shared with every allowed agent, or not at all.
	Agent string `json:"agent,omitempty"`
}

// Activity is one line of a tab's activity strip: an attempt an agent made
// on the tab and what came of it, in the words the app's own strip uses.
type Activity struct {
	Tab     int    `json:"tab"`
	Time    int64  `json:"time"`              // Unix milliseconds
	Agent   string `json:"agent"`             // who tried: the real process first, then the name it gave
	Act     string `json:"act"`               // the act as a sentence: Click “Place order”
	Outcome string `json:"outcome"`           // "done", "refused — tab not shared", "denied by you"…
	Refused bool   `json:"refused,omitempty"` // Reins refused it: shown with the amber mark
}

// TabState says whether an approval for a tab waits or an act on it fires.
type TabState struct {
	Tab   int    `json:"tab"`
	State string `json:"state"` // StateIdle, StateWaiting or StateFiring
}

// StopSharing asks the app to stop sharing a tab, as the person would from
// the tray.
type StopSharing struct {
	Tab int `json:"tab"`
}

// Events pushed by the extension.
const (
	EventTabs        = "tabs.changed" // TabsResult
	EventNavigated   = "navigated"    // Navigated
	EventCalibration = "calibration"  // Calibration
	EventZoom        = "zoom"         // Zoom
)

// Error codes carried in [Error].
const (
	CodeBadRequest    = "bad_request"
	CodeUnknownMethod = "unknown_method"
	CodeNoTab         = "no_tab"
	CodeNoFrame       = "no_frame"
	CodeStale         = "stale_ref"
	CodeChanged       = "changed"
	CodeObscured      = "obscured"
	CodeNotVisible    = "not_visible"
	CodeDisabled      = "disabled"
	CodeTooLarge      = "too_large"
	CodeUnauthorized  = "unauthorized"
	CodeInternal      = "internal"
	CodeUnsupported   = "unsupported"
	CodeBusy          = "busy" // the browser's own rate limit left no turn in time
	// CodeUnmapped: a point in a frame cannot be placed on the page (the
	// frame is rotated or skewed), or the pointer, sent there, did not
	// land on the element (see MethodWitness).
	CodeUnmapped = "unmapped"
	// CodeNotShared is the extension's own refusal: its latest share table
	// does not share the tab at the level the request needs (NeedsShare).
	CodeNotShared = "not_shared"
)

// Message is one WebSocket message.
type Message struct {
	ID     string          `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *Error          `json:"error,omitempty"`
}

// Kind tells what a decoded message is.
type Kind int

const (
	KindRequest Kind = iota + 1
	KindResponse
	KindEvent
)

// Kind reports what m is. Decode has already rejected shapes that are none.
func (m *Message) Kind() Kind {
	switch {
	case m.ID != "" && m.Method != "":
		return KindRequest
	case m.ID != "":
		return KindResponse
	default:
		return KindEvent
	}
}

// Error is a request's failure.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// Now is, for CodeChanged from a resolve, what the element is now: its
	// new element id with its role and name; for CodeNotVisible, the
	// element with its Reach when it can be scrolled into view; nil
	// otherwise.
	Now *Shown `json:"now,omitempty"`
}

// Shown is an element as a frame shows it now: its element id, role and
// name.
type Shown struct {
	ID    int    `json:"id"`
	Role  string `json:"role"`
	Name  string `json:"name"`
	Reach *Reach `json:"reach,omitempty"` // scrolled out of view: how to bring it in
	// Motion is, with a Reach, what activating the element sets in motion.
	Motion *Motion `json:"motion,omitempty"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// ErrMalformed is wrapped by every error Decode returns.
var ErrMalformed = errors.New("malformed message")

// Decode parses and checks one message. It never panics, whatever the input.
func Decode(data []byte) (*Message, error) {
	if len(data) > MaxMessageBytes {
		return nil, fmt.Errorf("%w: %d bytes is over the %d byte limit", ErrMalformed, len(data), MaxMessageBytes)
	}
	var m Message
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if len(m.ID) > 64 || len(m.Method) > 64 {
		return nil, fmt.Errorf("%w: id or method longer than 64 bytes", ErrMalformed)
	}
	switch m.Kind() {
	case KindRequest:
		if m.Result != nil || m.Error != nil {
			return nil, fmt.Errorf("%w: request %q carries a result or error", ErrMalformed, m.ID)
		}
	case KindResponse:
		if (m.Result == nil) == (m.Error == nil) {
			return nil, fmt.Errorf("%w: response %q needs exactly one of result and error", ErrMalformed, m.ID)
		}
		if m.Error != nil && m.Error.Code == "" {
			return nil, fmt.Errorf("%w: response %q has an error without a code", ErrMalformed, m.ID)
		}
	case KindEvent:
		if m.Method == "" {
			return nil, fmt.Errorf("%w: neither id nor method", ErrMalformed)
		}
		if m.Result != nil || m.Error != nil {
			return nil, fmt.Errorf("%w: event %q carries a result or error", ErrMalformed, m.Method)
		}
	}
	return &m, nil
}

// Challenge is the app's first message on a new connection.
type Challenge struct {
	Nonce string `json:"nonce"` // 32 random bytes, hex
}

// Hello is the extension's first request. Proof is
//
//	hex(HMAC-SHA256(secret, "reins-extension\n" + port + "\n" + app nonce + "\n" + Nonce + "\n" + Profile))
//
// with port in decimal: the port the extension dialled, which it also names
// in Port so that the app can tell a relay (a valid proof over a port it
// does not listen on) from a wrong secret.
type Hello struct {
	Version   int    `json:"version"`
	Port      int    `json:"port"`      // the port the extension dialled
	Extension string `json:"extension"` // extension version
	Browser   string `json:"browser"`   // user agent brand and version
	Profile   string `json:"profile"`   // random id kept in the profile's storage
	// BrowserSession is a random id kept in the browser's session storage:
	// the same while the browser runs, across restarts of the service
	// worker, and new after the browser restarts. The app drops a profile's
	// tabs and shares when it changes, since Chrome then reuses tab ids.
	BrowserSession string `json:"browserSession"`
	Nonce          string `json:"nonce"` // the extension's nonce, hex
	Proof          string `json:"proof"`
}

// Welcome answers Hello. Proof is
//
//	hex(HMAC-SHA256(secret, "reins-app\n" + port + "\n" + app nonce + "\n" + extension nonce + "\n" + profile))
//
// over the port the app listens on. The extension sends nothing else until
// it has checked it against the port it dialled. Both sides then seal every
// message with the session key
//
//	HMAC-SHA256(secret, "reins-session\n" + port + "\n" + app nonce + "\n" + extension nonce + "\n" + profile)
type Welcome struct {
	Version int    `json:"version"`
	Proof   string `json:"proof"`
}

// Tab is one browser tab as the extension sees it.
type Tab struct {
	ID       int    `json:"id"`
	WindowID int    `json:"windowId"`
	URL      string `json:"url"`
	Title    string `json:"title"`
	Active   bool   `json:"active"`
	Focused  bool   `json:"focused"` // its window is the focused one
	Status   string `json:"status"`  // "loading" or "complete"
	// Opener is the tab whose page opened this one (a link to a new tab,
	// window.open), when Chrome says; 0 otherwise.
	Opener int `json:"opener,omitempty"`
}

// TabsResult lists the open tabs.
type TabsResult struct {
	// Seq numbers the lists one connection sends, answered or pushed, in
	// the order the extension read them; a list numbered below one already
	// seen is older than it. 0: not numbered.
	Seq  uint64 `json:"seq,omitempty"`
	Tabs []Tab  `json:"tabs"`
}

// SnapshotParams asks for every frame of a tab.
type SnapshotParams struct {
	Tab int `json:"tab"`
	// Known names, by frame id, the "doc:version" of each tree the app still
	// holds; a frame whose tree is that version answers Same without it.
	Known map[string]string `json:"known,omitempty"`
}

// SnapshotResult carries each frame's report and the tab's zoom.
type SnapshotResult struct {
	Tab    int           `json:"tab"`
	Zoom   float64       `json:"zoom"`
	Frames []FrameReport `json:"frames"`
}

// FrameReport is one frame's view of itself. Boxes are CSS pixels in the
// frame's own viewport.
type FrameReport struct {
	Frame     int      `json:"frame"`               // chrome frameId; 0 is the top frame
	Parent    int      `json:"parent"`              // parent frameId; -1 for the top frame
	URL       string   `json:"url"`                 //
	Origin    string   `json:"origin"`              //
	Doc       string   `json:"doc"`                 // random id of this document (generation)
	Epoch     int      `json:"epoch"`               // bumped on every same-document navigation
	Entry     string   `json:"entry"`               // navigation.currentEntry.id
	History   int      `json:"history"`             // history.length
	Index     int      `json:"index"`               // its position in the parent's window.frames; -1 if none
	Viewport  Viewport `json:"viewport"`            //
	Window    Window   `json:"window"`              //
	Root      *Node    `json:"root"`                // the tree; nil when sent as Tree
	Tree      string   `json:"tree,omitempty"`      // the tree as JSON text: see [FrameReport.Decode]
	Version   int      `json:"version,omitempty"`   // bumped each time the frame's tree text changes
	Same      bool     `json:"same,omitempty"`      // the tree is the version the app said it knows; Tree is left out
	Truncated bool     `json:"truncated,omitempty"` // the node budget ran out
	Error     string   `json:"error,omitempty"`
	Took      float64  `json:"took,omitempty"` // ms the frame spent building its tree
	// Churn is what kept changing on its own during the frame's last
	// settle, which the settle did not wait for; told once.
	Churn []Churn `json:"churn,omitempty"`
}

// Churn is a spot of a page that keeps changing on its own (a clock, a
// ticker, a progress figure).
type Churn struct {
	Text  string `json:"text"`  // the page's words around it, as they stood; the page's to choose
	Every int    `json:"every"` // about how many ms apart its changes come
}

// Decode fills Root from Tree. The extension sends a frame's tree as one JSON
// string: Chrome's extension messaging converts an object node by node on
// each hop (content script → service worker), which costs ten times the
// building of the tree on a large page, while a string crosses in one piece.
func (f *FrameReport) Decode() error {
	if f.Root != nil || f.Tree == "" {
		return nil
	}
	var n Node
	if err := json.Unmarshal([]byte(f.Tree), &n); err != nil {
		return fmt.Errorf("%w: frame %d's tree: %v", ErrMalformed, f.Frame, err)
	}
	f.Root, f.Tree = &n, ""
	return nil
}

// Viewport describes a frame's layout viewport in CSS pixels.
type Viewport struct {
	Width        float64 `json:"width"`        // visualViewport.width
	Height       float64 `json:"height"`       // visualViewport.height
	InnerWidth   float64 `json:"innerWidth"`   // includes scrollbars
	InnerHeight  float64 `json:"innerHeight"`  //
	ClientWidth  float64 `json:"clientWidth"`  // documentElement.clientWidth
	ClientHeight float64 `json:"clientHeight"` //
	ScrollX      float64 `json:"scrollX"`      //
	ScrollY      float64 `json:"scrollY"`      //
}

// Window describes the browser window, in DIP (screen points).
type Window struct {
	ScreenX     float64 `json:"screenX"`
	ScreenY     float64 `json:"screenY"`
	OuterWidth  float64 `json:"outerWidth"`
	OuterHeight float64 `json:"outerHeight"`
	DPR         float64 `json:"dpr"` // devicePixelRatio = zoom × device scale
}

// Rect is a box: x, y of the top-left corner, width and height.
type Rect struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
	W float64 `json:"w"`
	H float64 `json:"h"`
}

// Intersect is the part of r inside o; it has no width or no height when
// they do not overlap.
func (r Rect) Intersect(o Rect) Rect {
	x0, y0 := max(r.X, o.X), max(r.Y, o.Y)
	x1, y1 := min(r.X+r.W, o.X+o.W), min(r.Y+r.H, o.Y+o.H)
	return Rect{X: x0, Y: y0, W: max(x1-x0, 0), H: max(y1-y0, 0)}
}

// Move is r moved by (dx, dy).
func (r Rect) Move(dx, dy float64) Rect { return Rect{X: r.X + dx, Y: r.Y + dy, W: r.W, H: r.H} }

// Node is one element or text of a frame's accessibility tree.
type Node struct {
	Role        string  `json:"role"`
	Name        string  `json:"name,omitempty"`
	ID          int     `json:"id,omitempty"`   // the frame's element id; 0 = no ref (not visible or not hit-testable)
	Box         *Rect   `json:"box,omitempty"`  //
	Text        string  `json:"text,omitempty"` // role "text": its content
	Value       string  `json:"value,omitempty"`
	URL         string  `json:"url,omitempty"`
	Placeholder string  `json:"placeholder,omitempty"`
	Checked     string  `json:"checked,omitempty"` // "true", "false", "mixed"
	Disabled    bool    `json:"disabled,omitempty"`
	Expanded    string  `json:"expanded,omitempty"` // "true", "false"
	Pressed     string  `json:"pressed,omitempty"`  // "true", "false", "mixed"
	Selected    bool    `json:"selected,omitempty"`
	Focused     bool    `json:"focused,omitempty"`
	Level       int     `json:"level,omitempty"`
	Pointer     bool    `json:"pointer,omitempty"` // cursor: pointer
	Secret      bool    `json:"secret,omitempty"`  // password or payment field: value never sent
	Frame       *Child  `json:"frame,omitempty"`   // iframe: where its document sits
	Scroll      *Scroll `json:"scroll,omitempty"`  // a box that scrolls: where it stands
	Children    []*Node `json:"children,omitempty"`
}

// Child describes an iframe element as its parent frame sees it: the box of
// its content (inside border and padding) in the parent's viewport, and its
// position in window.frames. A child frame reports the same position from its
// side (FrameReport.Index); WindowProxy identity cannot be forged by a page,
// so the pair is exact. Index is -1 where the browser gives no position
// (iframes inside shadow roots): such frames are read but not acted in.
//
// Content is where the child's viewport shows, as rendered: every CSS
// transform on the way (the iframe's own and its ancestors') is in it.
// Scale is how many of the parent's CSS pixels one of the child's covers
// along each axis (1 when nothing scales it, and when an older extension
// sent none); a point p in the child's viewport shows at Content.X +
// Scale.X·p.X. Turned, when set, says the frame is rotated, skewed or
// under a 3-D transform, so no point of its content can be placed: the
// reason, for the agent.
type Child struct {
	Content Rect   `json:"content"`
	Scale   *Scale `json:"scale,omitempty"`
	Turned  string `json:"turned,omitempty"`
	Src     string `json:"src,omitempty"`
	Index   int    `json:"index"`
}

// Scale is a child frame's scale along each axis; see [Child].
type Scale struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// ScaleOf is s, or 1 along both axes when s is nil or says nothing usable.
func ScaleOf(s *Scale) Scale {
	if s == nil || !(s.X > 0) || !(s.Y > 0) {
		return Scale{X: 1, Y: 1}
	}
	return *s
}

// ResolveParams asks a frame to find an element again just before an act.
// Path lists the ancestors from the element's parent frame up to the top
// frame, each with the window.frames index of the child below it.
type ResolveParams struct {
	Tab   int    `json:"tab"`
	Frame int    `json:"frame"`
	Doc   string `json:"doc"`
	Epoch int    `json:"epoch"`
	ID    int    `json:"id"`
	Role  string `json:"role"`
	Name  string `json:"name"`
	Path  []Hop  `json:"path,omitempty"`
}

// Hop is one ancestor frame on the way to the top.
type Hop struct {
	Frame int    `json:"frame"` // the ancestor's frameId
	Index int    `json:"index"` // window.frames index of the child frame inside it
	Doc   string `json:"doc"`   // the ancestor's document generation at snapshot time
	Epoch int    `json:"epoch"` // and its navigation epoch
}

// ResolveResult is the element's fresh state. Point is the click point in the
// top frame's viewport (CSS pixels) after walking up through every ancestor
// frame's iframe element, each of which was hit-tested on the way.
type ResolveResult struct {
	Box      Rect     `json:"box"`             // in the element's own frame viewport
	TopBox   Rect     `json:"topBox"`          // the same box in the top frame's viewport, scaled as it shows
	Scale    *Scale   `json:"scale,omitempty"` // the element's frame in the top frame's viewport; nil: 1
	Point    Point    `json:"point"`           // in the top frame's viewport
	Viewport Viewport `json:"viewport"`        // the top frame's
	Window   Window   `json:"window"`
	Zoom     float64  `json:"zoom"`
	Secret   bool     `json:"secret,omitempty"`
	Editable bool     `json:"editable,omitempty"`
	Origin   string   `json:"origin"`           // the element's frame origin
	Motion   *Motion  `json:"motion,omitempty"` // what activating it sets in motion; nil: nothing beyond it
}

// Motion is what activating an element sets in motion beyond the element
// itself, as its frame read it: where it leads and what its form submits.
// Every string in it is the page's: a person reads it only through the
// renderer.
type Motion struct {
	// Leads is where the element takes the page, as an absolute address:
	// a link's (or area's) href, or for a submit control its form's
	// destination (its formaction, else the form's action). At most 2,048
	// characters; a longer one is cut and ends in "…".
	Leads string `json:"leads,omitempty"`
	// Script says the link or the form leads to a javascript: address,
	// which runs the page's own code instead of going anywhere; Leads is
	// then empty.
	Script bool `json:"script,omitempty"`
	// Form is, for a text field or a submit control, what its form
	// submits; for a field outside any form, the button beside it.
	Form *Form `json:"form,omitempty"`
}

// Form is what a form submits, through a submit control or through Enter in
// one of its fields.
type Form struct {
	Action string `json:"action,omitempty"` // where, absolute; "" beside or for a javascript: action
	Method string `json:"method,omitempty"` // "get", "post" or "dialog"
	// Submit is the accessible name of the control that submits: the
	// element itself when Control, else the form's default button (the one
	// Enter in a field presses), or for a field outside any form the
	// button beside it (Beside). At most 200 characters.
	Submit string `json:"submit,omitempty"`
	// Control says the element is the form's submit control: activating it
	// submits the form.
	Control bool `json:"control,omitempty"`
	// Beside says there is no form: Submit names the first button within
	// the nearest of the field's three closest ancestors that holds one,
	// what Enter in the field most likely presses.
	Beside bool `json:"beside,omitempty"`
	// Fields are the kinds of field the form holds that say what it does,
	// from a fixed list: "amount", "card", "iban", "account".
	Fields []string `json:"fields,omitempty"`
	// Payment says a field takes a payment card's data (autocomplete
	// cc-…, or named as a card number or code).
	Payment bool `json:"payment,omitempty"`
}

// FocusParams asks which element of a tab has the keyboard focus.
type FocusParams struct {
	Tab int `json:"tab"`
}

// FocusResult is the element that has the keyboard focus in a tab, with
// what pressing Enter there sets in motion; empty (Focused false) when no
// element of the tab's frames has it.
type FocusResult struct {
	Focused  bool    `json:"focused,omitempty"`
	Frame    int     `json:"frame,omitempty"` // the frame it is in
	Role     string  `json:"role,omitempty"`
	Name     string  `json:"name,omitempty"`
	Editable bool    `json:"editable,omitempty"`
	Secret   bool    `json:"secret,omitempty"`
	Origin   string  `json:"origin,omitempty"` // its frame's origin
	Motion   *Motion `json:"motion,omitempty"`
}

// Point is a position in CSS pixels.
type Point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// CaptureParams asks for a picture of a tab's visible area.
type CaptureParams struct {
	Tab int `json:"tab"`
}

// CaptureResult carries a PNG as a data URL, in device pixels.
type CaptureResult struct {
	DataURL string `json:"dataUrl"`
}

// NewTabParams opens URL (http or https) in a new tab beside Tab, in its
// window: a tab shared at control, which the extension checks like any
// other request about it.
type NewTabParams struct {
	Tab int    `json:"tab"`
	URL string `json:"url"`
}

// NewTabResult names the tab opened.
type NewTabResult struct {
	Tab int `json:"tab"`
}

// ActivateParams selects a tab and focuses its window.
type ActivateParams struct {
	Tab int `json:"tab"`
}

// NavigateParams navigates a tab: to URL, or back or forward in history.
type NavigateParams struct {
	Tab       int    `json:"tab"`
	URL       string `json:"url,omitempty"`
	Direction string `json:"direction,omitempty"` // "back" or "forward"
}

// Navigated reports a navigation signal in a frame.
type Navigated struct {
	Tab   int    `json:"tab"`
	Frame int    `json:"frame"`
	URL   string `json:"url"`
	Doc   string `json:"doc"`
	Epoch int    `json:"epoch"`
	Kind  string `json:"kind"` // "document", "push", "popstate", "hash", "entry"
}

// Calibration is a trusted pointermove seen by a frame: its screen and client
// coordinates give the frame's exact content origin on screen.
type Calibration struct {
	Tab     int     `json:"tab"`
	Frame   int     `json:"frame"`
	ScreenX float64 `json:"screenX"`
	ScreenY float64 `json:"screenY"`
	ClientX float64 `json:"clientX"`
	ClientY float64 `json:"clientY"`
	Window  Window  `json:"window"`
}

// Zoom reports a tab's zoom change.
type Zoom struct {
	Tab  int     `json:"tab"`
	Zoom float64 `json:"zoom"`
}
