package deskread

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/reins-app/reins/executor"
	gdesktop "github.com/reins-app/reins/grounding/desktop"
	"github.com/reins-app/reins/internal/macos/ax"
)

// The macOS accessibility reader, apart from the OS: how an application's
// AXUIElements become a [gdesktop.Tree], over [axSource], which
// axread_darwin.go implements with AXUIElement calls and the tests with
// recorded elements. Nothing here calls the OS, so it is built and tested
// on every system.

// Attribute names: the headers define them as CFSTR macros
// (kAXRoleAttribute is CFSTR("AXRole")), not as symbols.
const (
	axAttrRole        = "AXRole"
	axAttrSubrole     = "AXSubrole"
	axAttrTitle       = "AXTitle"
	axAttrDescription = "AXDescription"
	axAttrValue       = "AXValue"
	axAttrPosition    = "AXPosition" // an AXValue holding a CGPoint, global top-left points
	axAttrSize        = "AXSize"     // an AXValue holding a CGSize, points
	axAttrEnabled     = "AXEnabled"
	axAttrFocused     = "AXFocused"
	axAttrSelected    = "AXSelected"
	axAttrExpanded    = "AXExpanded"
	axAttrChildren    = "AXChildren"
	axAttrParent      = "AXParent"
	axAttrWindows     = "AXWindows"
	axAttrFocusedWin  = "AXFocusedWindow"
	axAttrMainWin     = "AXMainWindow"
	axRoleWindow      = "AXWindow"
	axSecureField     = "AXSecureTextField" // the subrole of a password field; a role for some toolkits
)

// axElementAttrs are what the reader asks every element for, in one
// AXUIElementCopyMultipleAttributeValues call: one round trip to the
// application instead of eleven. Each AXUIElementCopyAttributeValue is a
// synchronous message to the application's main thread, so the count of
// calls, not their size, is what a read of a window costs. AXValue is not
// among them: it is asked for apart, only once the role and subrole say the
// element is not a password field, so that a password's value is never
// even requested.
var axElementAttrs = []string{
	axAttrRole, axAttrSubrole, axAttrTitle, axAttrDescription,
	axAttrPosition, axAttrSize, axAttrEnabled, axAttrFocused,
	axAttrSelected, axAttrExpanded, axAttrChildren,
}

// Indexes into axElementAttrs.
const (
	axiRole = iota
	axiSubrole
	axiTitle
	axiDescription
	axiPosition
	axiSize
	axiEnabled
	axiFocused
	axiSelected
	axiExpanded
	axiChildren
)

// axAppAttrs are what the reader asks the application element for.
var axAppAttrs = []string{axAttrTitle, axAttrFocusedWin, axAttrMainWin, axAttrWindows}

// axCodeOf is err's AXError, or 0.
func axCodeOf(err error) ax.Error {
	var e ax.Error
	if errors.As(err, &e) {
		return e
	}
	return 0
}

// axRef is an element reference a source handed out: the caller releases
// it, once, with [axSource.release].
type axRef uintptr

// axKind is what an attribute's value turned out to be.
type axKind int

const (
	axkAbsent   axKind = iota // not supported, no value, CFNull or an error slot
	axkString                 // CFString
	axkBool                   // CFBoolean
	axkNumber                 // CFNumber
	axkPoint                  // AXValue of kAXValueCGPointType
	axkSize                   // AXValue of kAXValueCGSizeType
	axkElements               // an AXUIElement, or a CFArray of them
	axkOther                  // any other type, not read
)

// axVal is one attribute's value in a form free of CoreFoundation: what
// the darwin source makes of a CFTypeRef, and what recorded tests give.
type axVal struct {
	Kind  axKind
	Str   string
	Num   float64  // a number; a boolean as 0 or 1
	X, Y  float64  // a point, or a size's width and height
	Elems []axRef  // owned by the caller, each to be released
	Code  ax.Error // for axkAbsent: the AXError the application gave, if any
}

func (v axVal) str() string { return v.Str }

func (v axVal) truth() (bool, bool) {
	if v.Kind == axkBool || v.Kind == axkNumber {
		return v.Num != 0, true
	}
	return false, false
}

// axSource is one application's accessibility elements, as the reader asks
// for them. Every axRef a method returns, in an axVal or alone, belongs to
// the caller, who releases it once.
type axSource interface {
	// app is the application element; the source keeps it.
	app() axRef
	// attrs reads names of el in one round trip; a value el lacks is
	// axkAbsent. The error is the call's own: the application did not
	// answer, or el is gone.
	attrs(el axRef, names []string) ([]axVal, error)
	// attr reads one attribute of el.
	attr(el axRef, name string) (axVal, error)
	// at is the application's element at (x, y), global points.
	at(x, y float64) (axRef, error)
	// pid is the process that owns el.
	pid(el axRef) (int, error)
	// equal reports whether a and b are the same element.
	equal(a, b axRef) bool
	release(el axRef)
}

// axReadOptions bounds a read.
type axReadOptions struct {
	MaxElements int           // default 5,000 (see limits.go)
	MaxDepth    int           // default 64
	MaxValue    int           // characters of a value kept; default 1000
	CallTimeout time.Duration // each call's deadline; default 2 s
}

func (o *axReadOptions) defaults() {
	fillBounds(&o.MaxElements, &o.MaxDepth, &o.MaxValue, &o.CallTimeout)
}

// axTarget names the application being read, for errors.
type axTarget struct {
	Name string
	PID  int
}

func (a axTarget) String() string {
	if a.Name != "" {
		return fmt.Sprintf("application %s (pid %d)", strconv.Quote(a.Name), a.PID)
	}
	return fmt.Sprintf("the application with pid %d", a.PID)
}

// errAXPermission: macOS answers no Accessibility call of a process it has
// not given the permission. Its text, the fix-it step included, fits a
// refusal's detail (plain.DetailMax).
var errAXPermission error = axPermissionError{}

// axPermissionError is [executor.ErrPermission] for reading rather than input.
type axPermissionError struct{}

func (axPermissionError) Error() string {
	return "macOS has not given Reins the Accessibility permission, so no application's elements can be read: in System Settings › Privacy & Security › Accessibility turn Reins on, then try again"
}

func (axPermissionError) Is(target error) bool { return target == executor.ErrPermission }

// fail turns a call's error into one that says which application did not
// answer which call, or what else went wrong.
func (a axTarget) fail(what string, err error, timeout time.Duration) error {
	switch axCodeOf(err) {
	case ax.CannotComplete:
		return fmt.Errorf("%v did not answer %s within %v; it may be hung or busy: try again, or read it from a screenshot: %w", a, what, timeout, err)
	case ax.APIDisabled:
		return errAXPermission
	case ax.InvalidUIElement, ax.NotImplemented:
		return fmt.Errorf("%w: %v: %s: %v", ErrNoAccessibleApp, a, what, err)
	}
	return fmt.Errorf("%v: %s: %w", a, what, err)
}

// axWalker reads one window. It owns every reference it was handed and
// releases them all at the end.
type axWalker struct {
	src   axSource
	app   axTarget
	opts  axReadOptions
	owned []axRef
}

func (w *axWalker) own(vs ...axVal) {
	for _, v := range vs {
		w.owned = append(w.owned, v.Elems...)
	}
}

func (w *axWalker) releaseAll() {
	for _, r := range w.owned {
		w.src.release(r)
	}
	w.owned = nil
}

// axNode is one element as read, before it is an Element.
type axNode struct {
	id       string
	role     string
	subrole  string
	vals     []axVal
	value    axVal
	secret   bool // a password field, or inside one
	children []*axNode
	kids     []axRef // from AXChildren
}

// readAXTree reads the focused window of the application src is for (else
// its main window, else its first): roles, names, states, boxes in global
// points and the values of elements that are not password fields. A
// password field's value is never asked for; neither is anything's inside
// one. Every call has opts.CallTimeout, set by the source; a call the
// application does not answer in time fails the read with an error that
// names it. When ctx ends first, the read stops there and says it is cut.
func readAXTree(ctx context.Context, src axSource, app axTarget, opts axReadOptions) (*gdesktop.Tree, error) {
	opts.defaults()
	w := &axWalker{src: src, app: app, opts: opts}
	defer w.releaseAll()
	av, err := src.attrs(src.app(), axAppAttrs)
	if err != nil {
		return nil, app.fail("the window list", err, opts.CallTimeout)
	}
	w.own(av...)
	if t := av[0].str(); t != "" {
		app.Name, w.app.Name = t, t
	}
	win, winID, ok := w.pickWindow(av[1], av[2], av[3])
	if !ok {
		return nil, fmt.Errorf("%v: %w", app, ErrNoAccessibleWindow)
	}
	tree := &gdesktop.Tree{App: app.Name, PID: app.PID, Source: "ax"}
	root, err := w.read(win, winID, false)
	if err != nil {
		return nil, err
	}
	if root == nil {
		return nil, fmt.Errorf("%v: its window went away while being read: %w", app, ErrNoAccessibleWindow)
	}
	// Breadth first, as the Linux reader does, so that the bounds cut the
	// deepest elements rather than the last branches.
	count := 1
	type item struct {
		n     *axNode
		depth int
	}
	level := []item{{root, 0}}
walk:
	for len(level) > 0 {
		var next []item
		for _, it := range level {
			for i, kid := range it.n.kids {
				if it.depth >= opts.MaxDepth || count >= opts.MaxElements {
					tree.Truncated = true
					break
				}
				if ctx.Err() != nil {
					if errors.Is(ctx.Err(), context.Canceled) {
						return nil, ctx.Err()
					}
					tree.Truncated = true
					break walk
				}
				n, err := w.read(kid, it.n.id+"/"+strconv.Itoa(i), it.n.secret)
				if err != nil {
					return nil, err
				}
				if n == nil {
					continue // gone while read
				}
				count++
				it.n.children = append(it.n.children, n)
				next = append(next, item{n, it.depth + 1})
			}
		}
		level = next
	}
	tree.Root = axBuild(root, "", nil, true, opts.MaxValue)
	tree.Count = count
	return tree, nil
}

// pickWindow is the focused window, else the main one, else the first of
// the list, and its ID (see windowID).
func (w *axWalker) pickWindow(focused, main, windows axVal) (axRef, string, bool) {
	for _, v := range []axVal{focused, main, windows} {
		if v.Kind == axkElements && len(v.Elems) > 0 {
			win := v.Elems[0]
			return win, w.windowID(win, windows, focused, main), true
		}
	}
	return 0, "", false
}

// windowID names win among the application's windows: "w" and its index
// in AXWindows; "wf" or "wm" for the focused or main window when the list
// does not hold it; "" for none of these.
func (w *axWalker) windowID(win axRef, windows, focused, main axVal) string {
	for i, el := range windows.Elems {
		if el == win || w.src.equal(el, win) {
			return "w" + strconv.Itoa(i)
		}
	}
	for _, v := range []struct {
		val axVal
		id  string
	}{{focused, "wf"}, {main, "wm"}} {
		if len(v.val.Elems) > 0 && (v.val.Elems[0] == win || w.src.equal(v.val.Elems[0], win)) {
			return v.id
		}
	}
	return ""
}

// read asks el for what an element shows, then, when it is not a password
// field, for its value. nil for an element gone in between, or one whose
// attributes cannot be read for any reason but a hung application or a
// missing permission.
func (w *axWalker) read(el axRef, id string, inSecret bool) (*axNode, error) {
	vals, err := w.src.attrs(el, axElementAttrs)
	if err != nil {
		if c := axCodeOf(err); c == ax.CannotComplete || c == ax.APIDisabled {
			return nil, w.app.fail("the attributes of element "+id, err, w.opts.CallTimeout)
		}
		// Gone, or unreadable on its own: the rest of the window still is.
		return nil, nil
	}
	w.own(vals...)
	n := &axNode{id: id, vals: vals, role: vals[axiRole].str(), subrole: vals[axiSubrole].str()}
	n.secret = inSecret || axSecret(n.role, n.subrole)
	if v := vals[axiChildren]; v.Kind == axkElements {
		n.kids = v.Elems
	}
	if !n.secret && axWantsValue(n.role) {
		v, err := w.src.attr(el, axAttrValue)
		switch {
		case err == nil:
			w.own(v)
			n.value = v
		case axCodeOf(err) == ax.CannotComplete || axCodeOf(err) == ax.APIDisabled:
			return nil, w.app.fail("the value of element "+id, err, w.opts.CallTimeout)
		}
	}
	return n, nil
}

// axSecret reports whether an element of this role and subrole is a
// password field (NSSecureTextField, a web page's password input).
func axSecret(role, subrole string) bool {
	return subrole == axSecureField || role == axSecureField
}

// axValueRoles are the roles whose AXValue the reader asks for: text, the
// state of a box or button, the position of a slider.
var axValueRoles = map[string]bool{
	"AXTextField": true, "AXTextArea": true, "AXComboBox": true, "AXStaticText": true,
	"AXCheckBox": true, "AXRadioButton": true, "AXSlider": true, "AXIncrementor": true,
	"AXProgressIndicator": true, "AXLevelIndicator": true, "AXDisclosureTriangle": true,
	"AXPopUpButton": true, "AXDateField": true, "AXTimeField": true, "AXHeading": true,
}

func axWantsValue(role string) bool { return axValueRoles[role] }

// axRoles maps AX roles to the AT-SPI role names the Linux reader gives,
// so that [gdesktop.Shown] and every caller read both alike.
var axRoles = map[string]string{
	"AXApplication":        "application",
	"AXWindow":             "frame",
	"AXSheet":              "dialog",
	"AXDrawer":             "panel",
	"AXPopover":            "panel",
	"AXButton":             "push button",
	"AXMenuButton":         "push button",
	"AXColorWell":          "push button",
	"AXDockItem":           "push button",
	"AXDisclosureTriangle": "toggle button",
	"AXCheckBox":           "check box",
	"AXRadioButton":        "radio button",
	"AXRadioGroup":         "grouping",
	"AXTextField":          "entry",
	"AXTextArea":           "text",
	"AXStaticText":         "label",
	"AXComboBox":           "combo box",
	"AXPopUpButton":        "combo box",
	"AXMenuBar":            "menu bar",
	"AXMenuBarItem":        "menu",
	"AXMenu":               "menu",
	"AXMenuItem":           "menu item",
	"AXTabGroup":           "page tab list",
	"AXToolbar":            "tool bar",
	"AXList":               "list",
	"AXOutline":            "tree table",
	"AXBrowser":            "tree table",
	"AXTable":              "table",
	"AXGrid":               "table",
	"AXRow":                "table row",
	"AXColumn":             "filler",
	"AXCell":               "table cell",
	"AXScrollArea":         "scroll pane",
	"AXScrollBar":          "scroll bar",
	"AXSlider":             "slider",
	"AXIncrementor":        "spin button",
	"AXProgressIndicator":  "progress bar",
	"AXBusyIndicator":      "progress bar",
	"AXLevelIndicator":     "level bar",
	"AXRelevanceIndicator": "level bar",
	"AXValueIndicator":     "filler",
	"AXImage":              "image",
	"AXLink":               "link",
	"AXHeading":            "heading",
	"AXGroup":              "panel",
	"AXSplitGroup":         "panel",
	"AXSplitter":           "separator",
	"AXHelpTag":            "tool tip",
	"AXWebArea":            "document web",
	"AXDateField":          "date editor",
	"AXTimeField":          "date editor",
	"AXLayoutArea":         "panel",
	"AXLayoutItem":         "panel",
	"AXGrowArea":           "filler",
	"AXMatte":              "filler",
	"AXRuler":              "filler",
	"AXRulerMarker":        "filler",
	"AXHandle":             "filler",
	"AXUnknown":            "unknown",
}

// axSubroles override the role's name where the subrole says more.
var axSubroles = map[string]string{
	axSecureField:        "password text",
	"AXSearchField":      "entry",
	"AXDialog":           "dialog",
	"AXSystemDialog":     "dialog",
	"AXFloatingWindow":   "frame",
	"AXToggle":           "toggle button",
	"AXSwitch":           "toggle button",
	"AXTabButton":        "page tab",
	"AXOutlineRow":       "tree item",
	"AXTableRow":         "table row",
	"AXSortButton":       "push button",
	"AXCloseButton":      "push button",
	"AXMinimizeButton":   "push button",
	"AXZoomButton":       "push button",
	"AXFullScreenButton": "push button",
	"AXToolbarButton":    "push button",
	"AXContentList":      "list",
	"AXDefinitionList":   "list",
	"AXDescriptionList":  "list",
	"AXTextLink":         "link",
}

// axRoleName is the AT-SPI name for an element of role and subrole under a
// parent of parentRole: a radio button in a tab group is a page tab, as
// AppKit makes NSTabView's tabs. A role the tables do not know reads as its
// own words, "AXFooBar" as "foo bar", which [gdesktop.Shown] then renders
// or calls generic.
func axRoleName(role, subrole, parentRole string) string {
	if axSecret(role, subrole) {
		return "password text"
	}
	if r, ok := axSubroles[subrole]; ok {
		// A switch or toggle that is a check box keeps its checked state's
		// role; the subrole names only how it is drawn.
		if role != "AXCheckBox" || (subrole != "AXToggle" && subrole != "AXSwitch") {
			return r
		}
	}
	if role == "AXRadioButton" && parentRole == "AXTabGroup" {
		return "page tab"
	}
	if r, ok := axRoles[role]; ok {
		return r
	}
	return axWords(role)
}

// axWords splits an unknown role into lower-case words: "AXFooBar" →
// "foo bar"; "" and anything that is not letters → "unknown".
func axWords(role string) string {
	s := strings.TrimPrefix(role, "AX")
	if s == "" {
		return "unknown"
	}
	var b strings.Builder
	for i, r := range s {
		if r > unicode.MaxASCII || !unicode.IsLetter(r) {
			return "unknown"
		}
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// axCheckable are the roles whose AXValue 1 means checked (2 is mixed).
var axCheckable = map[string]bool{"check box": true, "radio button": true, "toggle button": true}

// axEditable are the roles whose text the person types.
var axEditable = map[string]bool{"entry": true, "text": true, "password text": true}

// axFocusable are the roles that take the keyboard focus by nature; macOS
// says only whether an element has the focus, not whether it can.
var axFocusable = map[string]bool{
	"entry": true, "text": true, "password text": true, "push button": true, "toggle button": true,
	"check box": true, "radio button": true, "combo box": true, "slider": true, "spin button": true,
	"link": true, "page tab": true, "table": true, "tree table": true, "list": true, "date editor": true,
}

// axBuild turns a read node into an Element. clip is the visible area
// its ancestors leave it (the window's box, narrowed by each scroll area);
// nil above the window. AX has no showing or visible state: an element is
// Visible when it has a box, and Showing when the box meets clip.
func axBuild(n *axNode, parentRole string, clip *gdesktop.Rect, isWindow bool, maxValue int) gdesktop.Element {
	role := axRoleName(n.role, n.subrole, parentRole)
	v := n.vals
	e := gdesktop.Element{ID: n.id, Role: role, Secret: n.secret}
	e.Name = v[axiTitle].str()
	if e.Name == "" {
		e.Name = v[axiDescription].str()
	}
	if e.Name == "" && (n.role == "AXStaticText" || n.role == "AXHeading") && !n.secret {
		e.Name = capRunes(n.value.Str, maxValue)
	}
	e.Box = axBox(v[axiPosition], v[axiSize])
	enabled, has := v[axiEnabled].truth()
	e.State.Enabled = enabled || !has
	e.State.Focused, _ = v[axiFocused].truth()
	e.State.Selected, _ = v[axiSelected].truth()
	if x, ok := v[axiExpanded].truth(); ok {
		e.State.Expandable, e.State.Expanded = true, x
	}
	on := n.value.Kind == axkNumber && n.value.Num == 1
	switch {
	case n.role == "AXDisclosureTriangle":
		// Its value is whether what it discloses shows.
		e.State.Expandable, e.State.Expanded = true, on
	case role == "page tab":
		// A tab is a radio button to AppKit: on is the tab shown.
		e.State.Selected = e.State.Selected || on
	case axCheckable[role]:
		e.State.Checkable, e.State.Checked = true, on
	}
	e.State.Editable = axEditable[role] && e.State.Enabled
	e.State.Focusable = e.State.Focused || (axFocusable[role] && e.State.Enabled)
	e.State.Visible = !e.Box.Empty()
	here := e.Box
	if clip != nil {
		here = intersect(*clip, e.Box)
	}
	e.State.Showing = e.State.Visible && !here.Empty()
	if isWindow {
		e.State.Active = true // the focused window, or the one read in its place
	}
	if !n.secret {
		e.Value = axValueText(n, role, maxValue)
	}
	inner := clip
	if isWindow || n.role == "AXScrollArea" {
		c := here
		inner = &c
	}
	for _, c := range n.children {
		e.Children = append(e.Children, axBuild(c, n.role, inner, false, maxValue))
	}
	return e
}

// axValueText is the value an element shows as text: what a text field
// holds, a slider's number; not the state a check box's 0 or 1 is.
func axValueText(n *axNode, role string, maxValue int) string {
	if axCheckable[role] || role == "page tab" || n.role == "AXDisclosureTriangle" {
		return ""
	}
	switch n.value.Kind {
	case axkString:
		if n.role == "AXStaticText" || n.role == "AXHeading" {
			if n.vals[axiTitle].str() == "" && n.vals[axiDescription].str() == "" {
				return "" // it is the name already
			}
		}
		return capRunes(n.value.Str, maxValue)
	case axkNumber:
		return strconv.FormatFloat(n.value.Num, 'g', -1, 64)
	}
	return ""
}

// axBox is the box of a position and a size, rounded to whole points; zero
// unless both are there and the size has an area.
func axBox(pos, size axVal) gdesktop.Rect {
	if pos.Kind != axkPoint || size.Kind != axkSize || size.X <= 0 || size.Y <= 0 {
		return gdesktop.Rect{}
	}
	for _, f := range []float64{pos.X, pos.Y, size.X, size.Y} {
		if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > 1<<24 {
			return gdesktop.Rect{}
		}
	}
	x0, y0 := math.Round(pos.X), math.Round(pos.Y)
	x1, y1 := math.Round(pos.X+size.X), math.Round(pos.Y+size.Y)
	return gdesktop.Rect{X: int(x0), Y: int(y0), W: int(x1 - x0), H: int(y1 - y0)}
}

func intersect(a, b gdesktop.Rect) gdesktop.Rect {
	x0, y0 := max(a.X, b.X), max(a.Y, b.Y)
	x1, y1 := min(a.X+a.W, b.X+b.W), min(a.Y+a.H, b.Y+b.H)
	if x1 <= x0 || y1 <= y0 {
		return gdesktop.Rect{}
	}
	return gdesktop.Rect{X: x0, Y: y0, W: x1 - x0, H: y1 - y0}
}

// capRunes keeps the first n characters of s, and only whole ones.
func capRunes(s string, n int) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for k := range s {
		if i == n {
			return s[:k]
		}
		i++
	}
	return s
}

// axMaxUp bounds how many parents axElementAt climbs.
const axMaxUp = 128

// axElementAt is the ID of the element the application says is at (x, y)
// (AXUIElementCopyElementAtPosition: what it would hand the pointer to),
// found by climbing from it to its window and noting at each step its
// index among its parent's children: the path readAXTree gives it. ""
// when the application has no element there, or the one there is not in a
// window of its own (its menu bar, another process's window).
func axElementAt(ctx context.Context, src axSource, app axTarget, x, y float64, opts axReadOptions) (string, error) {
	opts.defaults()
	w := &axWalker{src: src, app: app, opts: opts}
	defer w.releaseAll()
	hit, err := src.at(x, y)
	if err != nil {
		if axCodeOf(err) == ax.NoValue {
			return "", nil
		}
		return "", app.fail(fmt.Sprintf("what is at (%g, %g)", x, y), err, opts.CallTimeout)
	}
	w.owned = append(w.owned, hit)
	if pid, err := src.pid(hit); err != nil || pid != app.PID {
		return "", nil
	}
	cur := hit
	vals, err := src.attrs(cur, []string{axAttrRole, axAttrParent})
	if err != nil {
		return "", app.fail("the element at the point", err, opts.CallTimeout)
	}
	w.own(vals...)
	var path []int
	for range axMaxUp {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		if vals[0].str() == axRoleWindow {
			av, err := src.attrs(src.app(), []string{axAttrWindows, axAttrFocusedWin, axAttrMainWin})
			if err != nil {
				return "", app.fail("the window list", err, opts.CallTimeout)
			}
			w.own(av...)
			id := w.windowID(cur, av[0], av[1], av[2])
			if id == "" {
				return "", nil
			}
			for i := len(path) - 1; i >= 0; i-- {
				id += "/" + strconv.Itoa(path[i])
			}
			return id, nil
		}
		parent := vals[1]
		if parent.Kind != axkElements || len(parent.Elems) == 0 {
			return "", nil // the application itself, or an element outside any window
		}
		up := parent.Elems[0]
		pv, err := src.attrs(up, []string{axAttrRole, axAttrParent, axAttrChildren})
		if err != nil {
			return "", app.fail("the parent of the element at the point", err, opts.CallTimeout)
		}
		w.own(pv...)
		i := -1
		for k, c := range pv[2].Elems {
			if c == cur || src.equal(c, cur) {
				i = k
				break
			}
		}
		if i < 0 {
			return "", fmt.Errorf("%v: the element at (%g, %g) is not among its parent's children, so it cannot be named", app, x, y)
		}
		path = append(path, i)
		cur, vals = up, pv[:2]
	}
	return "", fmt.Errorf("%v: the element at (%g, %g) is more than %d levels deep", app, x, y, axMaxUp)
}
