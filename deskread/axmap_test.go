package deskread

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reins-app/reins/executor"
	gdesktop "github.com/reins-app/reins/grounding/desktop"
	"github.com/reins-app/reins/internal/macos/ax"
	"github.com/reins-app/reins/internal/plain"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files under testdata")

// recordedApp is an application's accessibility elements written down: the
// application element's attributes and every element's by a name, an
// element referred to as "#name". It is the shape the darwin source makes
// of CFTypes (strings, booleans, numbers, [x, y] for AXPosition and
// AXSize, elements and arrays of them); the files under
// testdata/axrecorded are written from Apple's documented attribute names,
// not recorded on a Mac.
type recordedApp struct {
	PID      int                       `json:"pid"`
	App      map[string]any            `json:"app"`
	Elements map[string]map[string]any `json:"elements"`
}

// recordedSource is an axSource over a recordedApp. Like AXUIElement
// copies, each reference it hands out is a new handle, so that equal is
// needed to compare them; it counts handles not released, and every
// attribute asked for.
type recordedSource struct {
	t       *testing.T
	rec     recordedApp
	parents map[string]string
	handles map[axRef]string // live handles: the element each is
	next    axRef
	asked   []string // "name.attribute", in order
	multi   [][]string
	hang    bool // every call fails as a hung application's would
	noPerm  bool
}

const recordedAppHandle axRef = 1

func loadRecorded(t *testing.T, name string) *recordedSource {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "axrecorded", name))
	if err != nil {
		t.Fatal(err)
	}
	s := &recordedSource{t: t, handles: map[axRef]string{}, next: 100, parents: map[string]string{}}
	if err := json.Unmarshal(b, &s.rec); err != nil {
		t.Fatal(err)
	}
	for name, el := range s.rec.Elements {
		for _, c := range refsOf(el[axAttrChildren]) {
			s.parents[c] = name
		}
	}
	for _, c := range refsOf(s.rec.App[axAttrChildren]) {
		s.parents[c] = ""
	}
	t.Cleanup(func() {
		if len(s.handles) != 0 {
			t.Errorf("%d element references not released: %v", len(s.handles), s.handles)
		}
	})
	return s
}

func refsOf(v any) []string {
	var out []string
	switch v := v.(type) {
	case string:
		if strings.HasPrefix(v, "#") {
			out = append(out, v[1:])
		}
	case []any:
		for _, x := range v {
			out = append(out, refsOf(x)...)
		}
	}
	return out
}

func (s *recordedSource) hand(name string) axRef {
	s.next++
	s.handles[s.next] = name
	return s.next
}

func (s *recordedSource) element(el axRef) (string, map[string]any, error) {
	if s.noPerm {
		return "", nil, ax.APIDisabled
	}
	if s.hang {
		return "", nil, ax.CannotComplete
	}
	if el == recordedAppHandle {
		return "", s.rec.App, nil
	}
	name, ok := s.handles[el]
	if !ok {
		s.t.Fatalf("a call on reference %d, which is not live", el)
	}
	e := s.rec.Elements[name]
	if e["gone"] == true {
		return name, nil, ax.InvalidUIElement
	}
	if e["hang"] == true {
		return name, nil, ax.CannotComplete
	}
	return name, e, nil
}

func (s *recordedSource) value(attr string, v any) axVal {
	switch v := v.(type) {
	case nil:
		return axVal{Code: ax.NoValue}
	case bool:
		if v {
			return axVal{Kind: axkBool, Num: 1}
		}
		return axVal{Kind: axkBool}
	case float64:
		return axVal{Kind: axkNumber, Num: v}
	case string:
		if strings.HasPrefix(v, "#") {
			return axVal{Kind: axkElements, Elems: []axRef{s.hand(v[1:])}}
		}
		return axVal{Kind: axkString, Str: v}
	case []any:
		if attr == axAttrPosition || attr == axAttrSize {
			k := axkPoint
			if attr == axAttrSize {
				k = axkSize
			}
			return axVal{Kind: k, X: v[0].(float64), Y: v[1].(float64)}
		}
		out := axVal{Kind: axkElements, Elems: []axRef{}}
		for _, r := range refsOf(v) {
			out.Elems = append(out.Elems, s.hand(r))
		}
		return out
	}
	return axVal{Kind: axkOther}
}

func (s *recordedSource) app() axRef { return recordedAppHandle }

func (s *recordedSource) attrs(el axRef, names []string) ([]axVal, error) {
	name, e, err := s.element(el)
	s.multi = append(s.multi, names)
	if err != nil {
		return nil, err
	}
	out := make([]axVal, len(names))
	for i, n := range names {
		s.asked = append(s.asked, name+"."+n)
		if n == axAttrParent {
			if p, ok := s.parents[name]; ok && p != "" {
				out[i] = axVal{Kind: axkElements, Elems: []axRef{s.hand(p)}}
			} else if ok {
				out[i] = axVal{Kind: axkElements, Elems: []axRef{}} // the application; not handed out
			}
			continue
		}
		out[i] = s.value(n, e[n])
	}
	return out, nil
}

func (s *recordedSource) attr(el axRef, n string) (axVal, error) {
	name, e, err := s.element(el)
	if err != nil {
		return axVal{}, err
	}
	s.asked = append(s.asked, name+"."+n)
	v, ok := e[n]
	if !ok {
		return axVal{}, ax.NoValue
	}
	return s.value(n, v), nil
}

// at is the deepest element whose box holds the point, later children
// over earlier ones, windows in AXWindows order front to back.
func (s *recordedSource) at(x, y float64) (axRef, error) {
	if s.hang {
		return 0, ax.CannotComplete
	}
	var hit func(name string) string
	hit = func(name string) string {
		e := s.rec.Elements[name]
		pos, _ := e[axAttrPosition].([]any)
		size, _ := e[axAttrSize].([]any)
		if pos == nil || size == nil || e["gone"] == true {
			return ""
		}
		px, py, w, h := pos[0].(float64), pos[1].(float64), size[0].(float64), size[1].(float64)
		if x < px || y < py || x >= px+w || y >= py+h {
			return ""
		}
		kids := refsOf(e[axAttrChildren])
		for i := len(kids) - 1; i >= 0; i-- {
			if d := hit(kids[i]); d != "" {
				return d
			}
		}
		return name
	}
	for _, top := range append(refsOf(s.rec.App[axAttrWindows]), refsOf(s.rec.App[axAttrChildren])...) {
		if d := hit(top); d != "" {
			return s.hand(d), nil
		}
	}
	return 0, ax.NoValue
}

func (s *recordedSource) pid(el axRef) (int, error) {
	if name := s.handles[el]; s.rec.Elements[name]["pid"] != nil {
		return int(s.rec.Elements[name]["pid"].(float64)), nil
	}
	return s.rec.PID, nil
}

func (s *recordedSource) equal(a, b axRef) bool {
	na, oka := s.handles[a]
	nb, okb := s.handles[b]
	return oka && okb && na == nb
}

func (s *recordedSource) release(el axRef) {
	if _, ok := s.handles[el]; !ok {
		s.t.Errorf("reference %d released twice, or never handed out", el)
	}
	delete(s.handles, el)
}

func readRecorded(t *testing.T, s *recordedSource, opts axReadOptions) *gdesktop.Tree {
	t.Helper()
	tree, err := readAXTree(context.Background(), s, axTarget{Name: "Demo", PID: s.rec.PID}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// axGolden compares got with testdata/axrecorded/name, or rewrites it under
// -update.
func axGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "axrecorded", name)
	if *updateGolden {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs; got:\n%s", path, got)
	}
}

func TestAXTreeFromRecordedWindow(t *testing.T) {
	s := loadRecorded(t, "signin.json")
	tree := readRecorded(t, s, axReadOptions{})
	if tree.App != "Sign In Demo" || tree.PID != 4242 || tree.Source != "ax" || tree.Truncated {
		t.Errorf("tree head %q %d %q truncated %v", tree.App, tree.PID, tree.Source, tree.Truncated)
	}
	n := 0
	tree.Walk(func(*gdesktop.Element, int) bool { n++; return true })
	if tree.Count != n {
		t.Errorf("Count %d, but the tree holds %d", tree.Count, n)
	}
	snap := gdesktop.Build(tree, gdesktop.NewRefs(), gdesktop.BuildOptions{ID: "ds1", At: time.Unix(0, 0), Boxes: true})
	axGolden(t, "signin.golden", axDump(tree)+"\n"+snap.Text+"\n")
}

func TestAXNeverAsksAPasswordFieldsValue(t *testing.T) {
	s := loadRecorded(t, "signin.json")
	tree := readRecorded(t, s, axReadOptions{})
	for _, names := range s.multi {
		if slices.Contains(names, axAttrValue) {
			t.Errorf("AXValue asked among %v, before the role is known", names)
		}
	}
	for _, a := range s.asked {
		if a == "pw."+axAttrValue || a == "pwinner."+axAttrValue {
			t.Errorf("asked %s: a password field's value, or one inside it", a)
		}
	}
	if !slices.Contains(s.asked, "user."+axAttrValue) {
		t.Errorf("the user name field's value was not asked for: %v", s.asked)
	}
	if all := fmt.Sprintf("%+v", *tree); strings.Contains(all, "hunter2") {
		t.Errorf("the password appears in the read: %s", all)
	}
	var pw, inner *gdesktop.Element
	tree.Walk(func(e *gdesktop.Element, _ int) bool {
		switch e.Name {
		case "Password":
			pw = e
		}
		if e.Role == "text" {
			inner = e
		}
		return true
	})
	if pw == nil || !pw.Secret || pw.Role != "password text" || pw.Value != "" || !pw.State.Focused || !pw.State.Editable {
		t.Errorf("the password field reads %+v; want a focused, editable, secret password text with no value", pw)
	}
	if inner == nil || !inner.Secret || inner.Value != "" {
		t.Errorf("the text inside the password field reads %+v; want secret, no value", inner)
	}
}

func TestAXRoleNamesAreTheLinuxReadersOnes(t *testing.T) {
	for _, tc := range []struct {
		role, subrole, parent string
		want, shown           string
	}{
		{"AXButton", "", "", "push button", "button"},
		{"AXButton", "AXCloseButton", "", "push button", "button"},
		{"AXTextField", "", "", "entry", "textbox"},
		{"AXTextField", "AXSearchField", "", "entry", "textbox"},
		{"AXTextArea", "", "", "text", "textbox"},
		{"AXTextField", "AXSecureTextField", "", "password text", "textbox"},
		{"AXSecureTextField", "", "", "password text", "textbox"},
		{"AXCheckBox", "", "", "check box", "checkbox"},
		{"AXCheckBox", "AXSwitch", "", "check box", "checkbox"},
		{"AXRadioButton", "", "AXRadioGroup", "radio button", "radio"},
		{"AXRadioButton", "", "AXTabGroup", "page tab", "tab"},
		{"AXWindow", "AXStandardWindow", "", "frame", "window"},
		{"AXWindow", "AXDialog", "", "dialog", "dialog"},
		{"AXStaticText", "", "", "label", "text"},
		{"AXPopUpButton", "", "", "combo box", "combobox"},
		{"AXMenuItem", "", "", "menu item", "menuitem"},
		{"AXRow", "AXOutlineRow", "", "tree item", "treeitem"},
		{"AXGroup", "", "", "panel", "generic"},
		{"AXLink", "", "", "link", "link"},
		{"AXSlider", "", "", "slider", "slider"},
		{"AXFancyWidget", "", "", "fancy widget", "fancy-widget"},
		{"AX\u202eEvil", "", "", "unknown", "generic"},
		{"", "", "", "unknown", "generic"},
	} {
		got := axRoleName(tc.role, tc.subrole, tc.parent)
		if got != tc.want || gdesktop.Shown(got) != tc.shown {
			t.Errorf("axRoleName(%q, %q, %q) = %q (shown %q); want %q (%q)", tc.role, tc.subrole, tc.parent, got, gdesktop.Shown(got), tc.want, tc.shown)
		}
	}
}

func TestAXReadReleasesEveryReference(t *testing.T) {
	// loadRecorded fails the test at cleanup for any reference left.
	s := loadRecorded(t, "signin.json")
	readRecorded(t, s, axReadOptions{})
	if len(s.handles) != 0 {
		t.Errorf("after a read, %d references live", len(s.handles))
	}
	readRecorded(t, s, axReadOptions{MaxElements: 4})
	if len(s.handles) != 0 {
		t.Errorf("after a read cut short, %d references live", len(s.handles))
	}
	s.rec.Elements["signin"]["hang"] = true
	if _, err := readAXTree(context.Background(), s, axTarget{PID: 4242}, axReadOptions{}); err == nil {
		t.Fatal("a read through a hung element succeeded")
	}
	if len(s.handles) != 0 {
		t.Errorf("after a failed read, %d references live", len(s.handles))
	}
}

func TestAXHungApplicationIsNamed(t *testing.T) {
	for _, where := range []string{"the application", "an element"} {
		t.Run(where, func(t *testing.T) {
			s := loadRecorded(t, "signin.json")
			if where == "the application" {
				s.hang = true
			} else {
				s.rec.Elements["remember"]["hang"] = true
			}
			_, err := readAXTree(context.Background(), s, axTarget{Name: "Sign In Demo", PID: 4242}, axReadOptions{CallTimeout: 300 * time.Millisecond})
			if err == nil || !strings.Contains(err.Error(), `"Sign In Demo" (pid 4242) did not answer`) || !strings.Contains(err.Error(), "300ms") {
				t.Errorf("reading a hung application: %v; want an error naming it, saying it did not answer within 300ms", err)
			}
		})
	}
}

func TestAXPermissionAndMissingWindow(t *testing.T) {
	s := loadRecorded(t, "signin.json")
	s.noPerm = true
	if _, err := readAXTree(context.Background(), s, axTarget{PID: 4242}, axReadOptions{}); !errors.Is(err, executor.ErrPermission) || !strings.Contains(err.Error(), "Privacy & Security › Accessibility") {
		t.Errorf("without permission: %v; want executor.ErrPermission with the way to grant it", err)
	}
	s = loadRecorded(t, "signin.json")
	delete(s.rec.App, axAttrFocusedWin)
	delete(s.rec.App, axAttrMainWin)
	s.rec.App[axAttrWindows] = []any{}
	if _, err := readAXTree(context.Background(), s, axTarget{PID: 4242}, axReadOptions{}); !errors.Is(err, ErrNoAccessibleWindow) {
		t.Errorf("an application with no window: %v; want ErrNoAccessibleWindow", err)
	}
}

func TestAXReadStopsAtItsBoundsAndSaysSo(t *testing.T) {
	for _, tc := range []struct {
		opts axReadOptions
		want int
	}{
		{axReadOptions{MaxElements: 3}, 3},
		{axReadOptions{MaxDepth: 1}, 6}, // the window and its five children still there
	} {
		tree := readRecorded(t, loadRecorded(t, "signin.json"), tc.opts)
		if !tree.Truncated || tree.Count != tc.want {
			t.Errorf("%+v: truncated %v, %d elements; want truncated, %d", tc.opts, tree.Truncated, tree.Count, tc.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := readAXTree(ctx, loadRecorded(t, "signin.json"), axTarget{PID: 4242}, axReadOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled read: %v", err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), -time.Second)
	defer cancel()
	tree, err := readAXTree(ctx, loadRecorded(t, "signin.json"), axTarget{PID: 4242}, axReadOptions{})
	if err != nil || !tree.Truncated || tree.Count != 1 {
		t.Errorf("a read past its deadline: %+v, %v; want the window alone, truncated", tree, err)
	}
}

func TestAXElementAtNamesWhatTheReadNames(t *testing.T) {
	s := loadRecorded(t, "signin.json")
	tree := readRecorded(t, s, axReadOptions{})
	for _, name := range []string{"Sign In", "Remember me", "Password", "Advanced", "Today"} {
		var want *gdesktop.Element
		tree.Walk(func(e *gdesktop.Element, _ int) bool {
			if e.Name == name && want == nil {
				want = e
			}
			return true
		})
		if want == nil {
			t.Fatalf("no %q in\n%s", name, axDump(tree))
		}
		x, y := float64(want.Box.X)+float64(want.Box.W)/2, float64(want.Box.Y)+float64(want.Box.H)/2
		got, err := axElementAt(context.Background(), s, axTarget{PID: 4242}, x, y, axReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// The password field's inner text is at its centre: its descendant.
		if got != want.ID && !strings.HasPrefix(got, want.ID+"/") {
			t.Errorf("at the centre of %q (%g, %g): %q; want %q", name, x, y, got, want.ID)
		}
	}
	for _, p := range []struct {
		x, y float64
		why  string
	}{
		{70, 10, "the menu bar"},
		{10, 700, "nothing"},
		{950, 150, "the other window"},
	} {
		got, err := axElementAt(context.Background(), s, axTarget{PID: 4242}, p.x, p.y, axReadOptions{})
		if err != nil {
			t.Errorf("at %s: %v", p.why, err)
		}
		if p.why == "the other window" {
			if got != "w0" {
				t.Errorf("at %s: %q; want w0, the window behind the one read", p.why, got)
			}
			continue
		}
		if got != "" {
			t.Errorf("at %s: %q; want none", p.why, got)
		}
	}
	s.rec.Elements["signin"]["pid"] = float64(99)
	if got, err := axElementAt(context.Background(), s, axTarget{PID: 4242}, 545, 244, axReadOptions{}); got != "" || err != nil {
		t.Errorf("at another process's element: %q, %v; want none", got, err)
	}
	s.hang = true
	if _, err := axElementAt(context.Background(), s, axTarget{Name: "Sign In Demo", PID: 4242}, 545, 244, axReadOptions{}); err == nil || !strings.Contains(err.Error(), "did not answer") {
		t.Errorf("asking a hung application: %v", err)
	}
}

func TestAXBoxesAndValues(t *testing.T) {
	for _, tc := range []struct {
		pos, size axVal
		want      gdesktop.Rect
	}{
		{axVal{Kind: axkPoint, X: 100.4, Y: 80.6}, axVal{Kind: axkSize, X: 600, Y: 420}, gdesktop.Rect{X: 100, Y: 81, W: 600, H: 420}},
		{axVal{Kind: axkPoint, X: -1440, Y: -20}, axVal{Kind: axkSize, X: 10, Y: 10}, gdesktop.Rect{X: -1440, Y: -20, W: 10, H: 10}},
		{axVal{Kind: axkPoint}, axVal{Kind: axkSize, X: 0, Y: 10}, gdesktop.Rect{}},
		{axVal{Kind: axkSize, X: 1, Y: 1}, axVal{Kind: axkSize, X: 10, Y: 10}, gdesktop.Rect{}},
		{axVal{}, axVal{Kind: axkSize, X: 10, Y: 10}, gdesktop.Rect{}},
	} {
		if got := axBox(tc.pos, tc.size); got != tc.want {
			t.Errorf("axBox(%+v, %+v) = %+v; want %+v", tc.pos, tc.size, got, tc.want)
		}
	}
	if got := capRunes("héllo wörld", 5); got != "héllo" {
		t.Errorf("capRunes = %q", got)
	}
}

// axDump renders a tree an element a line, for goldens and failures.
func axDump(t *gdesktop.Tree) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%q pid %d source %s count %d truncated %v\n", t.App, t.PID, t.Source, t.Count, t.Truncated)
	t.Walk(func(e *gdesktop.Element, depth int) bool {
		fmt.Fprintf(&b, "%s%s %s %q value=%q secret=%v box=%+v %s\n", strings.Repeat("  ", depth), e.ID, e.Role, e.Name, e.Value, e.Secret, e.Box, axStates(e.State))
		return true
	})
	return b.String()
}

// axStates lists the states that are set.
func axStates(s gdesktop.States) string {
	var out []string
	for _, f := range []struct {
		on   bool
		name string
	}{
		{s.Enabled, "enabled"}, {s.Focusable, "focusable"}, {s.Focused, "focused"}, {s.Checkable, "checkable"},
		{s.Checked, "checked"}, {s.Expandable, "expandable"}, {s.Expanded, "expanded"}, {s.Selected, "selected"},
		{s.Editable, "editable"}, {s.Showing, "showing"}, {s.Visible, "visible"}, {s.Active, "active"},
	} {
		if f.on {
			out = append(out, f.name)
		}
	}
	return "[" + strings.Join(out, " ") + "]"
}

// A refusal's detail is cut at plain.DetailMax characters; the fix-it step
// at the end of a permission error must survive it.
func TestPermissionErrorsFitARefusal(t *testing.T) {
	for _, err := range []error{errAXPermission, ErrNoScreenRecording} {
		if got := plain.Text(err.Error(), plain.DetailMax); got != err.Error() {
			t.Errorf("%q is cut to %q", err.Error(), got)
		}
	}
}
