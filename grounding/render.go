package grounding

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/reins-app/reins/bridge/protocol"
)

// Modes of a snapshot's rendering.
//
// The default, [ModeAuto], shows the whole page when it is small and the
// interactive view when it is not. An agent mostly needs two things from a
// page: what it says, and what it can act on. On a small page the full tree
// answers both in a few thousand tokens, so nothing is held back. On a large
// page (a news front page renders to 30,000–500,000 characters) the full
// tree costs more context than most agents can spare for one look, and most
// of it is prose the agent did not ask about; the interactive view keeps
// every control with its ref under the heading or landmark it belongs to, at
// a fraction of the size, and the hint says how to read more (a subtree by
// ref, find, or the full mode with a budget). A page of thousands of
// controls (a long table) is too large even so: every mode is cut to
// RenderOptions.MaxChars at a line, and the hint counts what was left out
// and names the refs of the sections that hold it.
const (
	ModeAuto        = "auto"        // ModeFull up to AutoFullChars, else ModeInteractive
	ModeFull        = "full"        // everything readable
	ModeInteractive = "interactive" // what an agent can act on, with headings and landmarks as context
	ModeViewport    = "viewport"    // what is on screen, with counts of what lies outside
)

// AutoFullChars is the largest full rendering [ModeAuto] shows as is: about
// 4,000 tokens.
const AutoFullChars = 16000

// RenderOptions chooses what of a snapshot to show.
type RenderOptions struct {
	Mode     string // optional: ModeAuto by default
	MaxChars int    // optional: cut the text at a line boundary before this many characters, and say what was left out; 0 or less is no limit
	Root     string // optional: only the subtree of this ref
	Boxes    bool   // optional: add [box=x,y,w,h] in screen points to lines with a ref
}

// Rendered is a snapshot's text as asked for.
type Rendered struct {
	Text      string
	Mode      string // the mode that was rendered (ModeAuto resolves to another)
	Truncated bool
	Hint      string // how to get the rest, when Truncated or when a mode left lines out
	Size      int    // when Truncated: the characters of the whole text
	Left      int    // when Truncated: the lines the cut left out
	Above     int    // viewport mode: elements with a ref above the visible area
	Below     int    // viewport mode: and below it (to the sides count as below)
}

type lineKind uint8

const (
	kindNode lineKind = iota
	kindText
	kindProp
	kindUnplaced
)

// line is one rendered line, without its indentation and trailing colon,
// which depend on which lines a mode keeps.
type line struct {
	depth   int
	parent  int // index of the enclosing line; -1 at the top
	kind    lineKind
	role    string
	ref     string
	pointer bool
	box     *protocol.Rect // CSS pixels in the top frame's viewport; nil if unplaced
	scroll  *protocol.Scroll
	text    string
}

func (s *Snapshot) add(l line) int {
	s.lines = append(s.lines, l)
	return len(s.lines) - 1
}

func selectAll(ls []line) []bool {
	keep := make([]bool, len(ls))
	for i := range keep {
		keep[i] = true
	}
	return keep
}

// Render shows the snapshot as opts ask.
func (s *Snapshot) Render(opts RenderOptions) (Rendered, error) {
	if s.lines == nil && s.Text != "" {
		// A snapshot made from text alone (a diff to cut to a budget).
		return cutText(s.Text, opts.MaxChars), nil
	}
	lo, hi := 0, len(s.lines)
	if opts.Root != "" {
		i := s.lineOf(opts.Root)
		if i < 0 {
			return Rendered{}, fmt.Errorf("%w (%s is not in snapshot %s)", ErrStaleRef, opts.Root, s.ID)
		}
		lo, hi = i, i+1
		for hi < len(s.lines) && s.lines[hi].depth > s.lines[i].depth {
			hi++
		}
	}
	mode := opts.Mode
	all := selectAll(s.lines)
	full := s.Text
	if opts.Root != "" || opts.Boxes {
		full = s.renderRange(lo, hi, all, opts.Boxes)
	}
	auto := mode == "" || mode == ModeAuto
	if auto {
		mode = ModeFull
		if len(full) > AutoFullChars {
			mode = ModeInteractive
		}
	}
	o := cutOptions{mode: mode, root: opts.Root != ""}
	var r Rendered
	switch mode {
	case ModeFull:
		o.view = "the snapshot"
		r = s.cut(lo, hi, all, opts.Boxes, full, opts.MaxChars, o)
	case ModeInteractive:
		keep := s.interactive(lo, hi)
		o.view = "the interactive view"
		r = s.cut(lo, hi, keep, opts.Boxes, s.renderRange(lo, hi, keep, opts.Boxes), opts.MaxChars, o)
		if auto {
			shown := fmt.Sprintf("the full snapshot is %d characters, so only what can be acted on is shown, under its headings and landmarks", len(full))
			if r.Truncated {
				r.Hint = shown + "; " + r.Hint
			} else {
				r.Hint = shown + fmt.Sprintf("; read more with a subtree by ref, find, or mode %q with max_chars", ModeFull)
			}
		}
	case ModeViewport:
		keep, above, below := s.viewport(lo, hi)
		o.view = "the viewport view"
		r = s.cut(lo, hi, keep, opts.Boxes, s.renderRange(lo, hi, keep, opts.Boxes), opts.MaxChars, o)
		r.Above, r.Below = above, below
		if above+below > 0 {
			outside := fmt.Sprintf("%d elements with refs lie above the visible area and %d below or beside it; scroll, or use mode %q", above, below, ModeFull)
			if r.Truncated {
				r.Hint += " Besides, " + outside + "."
			} else {
				r.Hint = outside
			}
		}
	default:
		return Rendered{}, fmt.Errorf("snapshot mode %q is not available; use %q, %q, %q or %q", opts.Mode, ModeAuto, ModeFull, ModeInteractive, ModeViewport)
	}
	r.Mode = mode
	return r, nil
}

func (s *Snapshot) lineOf(ref string) int {
	for i, l := range s.lines {
		if l.ref == ref {
			return i
		}
	}
	return -1
}

func (s *Snapshot) render(keep []bool, opts RenderOptions) string {
	return s.renderRange(0, len(s.lines), keep, opts.Boxes)
}

// renderRange writes the kept lines of [lo, hi): a line's depth is the
// number of its kept ancestors inside the range, and it ends with a colon
// exactly when the next kept line sits under it.
func (s *Snapshot) renderRange(lo, hi int, keep []bool, boxes bool) string {
	return s.renderLines(lo, hi, keep, boxes, nil)
}

// renderLines is renderRange; when w is set, it also notes where each line
// starts.
func (s *Snapshot) renderLines(lo, hi int, keep []bool, boxes bool, w *lineIndex) string {
	depth := make([]int, hi-lo)
	var b strings.Builder
	var ox, oy, z float64
	if boxes && s.top != nil {
		z = s.Zoom
		if z <= 0 {
			z = 1
		}
		ox, oy = ContentOrigin(s.top.Window, s.top.Viewport, z)
	}
	prev := -1
	for i := lo; i < hi; i++ {
		if !keep[i] {
			continue
		}
		l := &s.lines[i]
		d := 0
		for p := l.parent; p >= lo; p = s.lines[p].parent {
			if keep[p] {
				d = depth[p-lo] + 1
				break
			}
		}
		depth[i-lo] = d
		if prev >= 0 {
			if d > depth[prev-lo] {
				b.WriteByte(':')
			}
			b.WriteByte('\n')
		}
		if w != nil {
			w.idx = append(w.idx, i)
			w.starts = append(w.starts, b.Len())
		}
		for range d {
			b.WriteString("  ")
		}
		b.WriteString("- ")
		b.WriteString(l.text)
		if boxes && l.ref != "" && l.box != nil && s.top != nil {
			fmt.Fprintf(&b, " [box=%s,%s,%s,%s]", num(ox+l.box.X*z), num(oy+l.box.Y*z), num(l.box.W*z), num(l.box.H*z))
		}
		prev = i
	}
	if prev >= 0 {
		b.WriteByte('\n')
	}
	return b.String()
}

// ScrollAround is where the nearest box that scrolls around ref, or ref
// itself, stands: its ref and its scroll position. ok is false when no box
// around it scrolls, or ref is not in s.
func (s *Snapshot) ScrollAround(ref string) (box string, at protocol.Scroll, ok bool) {
	for i := s.lineOf(ref); i >= 0; i = s.lines[i].parent {
		if l := &s.lines[i]; l.scroll != nil && l.ref != "" {
			return l.ref, *l.scroll, true
		}
	}
	return "", protocol.Scroll{}, false
}

// scrollMarks says where a box that scrolls stands: [scroll=240/1160] is
// scrolled 240 of the 1160 CSS pixels it can go down, [scroll-x=…] the same
// sideways.
func scrollMarks(sc *protocol.Scroll) string {
	if sc == nil {
		return ""
	}
	var b strings.Builder
	if sc.MaxY > 0 {
		fmt.Fprintf(&b, " [scroll=%s/%s]", num(sc.Y), num(sc.MaxY))
	}
	if sc.MaxX > 0 {
		fmt.Fprintf(&b, " [scroll-x=%s/%s]", num(sc.X), num(sc.MaxX))
	}
	return b.String()
}

func num(v float64) string { return strconv.FormatFloat(math.Round(v), 'f', -1, 64) }

// interactiveRoles are what an agent can act on.
var interactiveRoles = map[string]bool{
	"button": true, "link": true, "textbox": true, "searchbox": true, "checkbox": true, "radio": true,
	"combobox": true, "listbox": true, "option": true, "menuitem": true, "menuitemcheckbox": true,
	"menuitemradio": true, "tab": true, "switch": true, "slider": true, "spinbutton": true, "treeitem": true,
}

// contextRoles are kept around what is kept: where a control sits.
var contextRoles = map[string]bool{
	"banner": true, "navigation": true, "main": true, "contentinfo": true, "complementary": true,
	"region": true, "form": true, "search": true, "dialog": true, "alertdialog": true, "iframe": true,
	"menu": true, "menubar": true, "tablist": true, "tree": true, "grid": true, "radiogroup": true,
}

// interactive keeps every control with a ref (and its property lines), the
// landmarks around them, and the nearest heading before each run of them.
func (s *Snapshot) interactive(lo, hi int) []bool {
	keep := make([]bool, len(s.lines))
	heading := -1
	for i := lo; i < hi; i++ {
		l := &s.lines[i]
		switch {
		case l.kind == kindNode && l.role == "heading":
			heading = i
		case l.kind == kindNode && l.ref != "" && (interactiveRoles[l.role] || l.pointer):
			keep[i] = true
			if heading >= 0 {
				keep[heading] = true
				heading = -1
			}
			for p := l.parent; p >= lo; p = s.lines[p].parent {
				if pl := &s.lines[p]; pl.kind == kindUnplaced || contextRoles[pl.role] || keep[p] {
					keep[p] = true
				}
			}
		case l.kind == kindProp && keep[l.parent]:
			keep[i] = true
		}
	}
	return keep
}

// viewport keeps what intersects the top frame's visible area, with its
// ancestors, and counts the refs it leaves out.
func (s *Snapshot) viewport(lo, hi int) (keep []bool, above, below int) {
	keep = make([]bool, len(s.lines))
	if s.top == nil {
		return keep, 0, 0
	}
	vw := s.top.Viewport.Width
	vh := s.top.Viewport.Height
	var last *protocol.Rect
	for i := lo; i < hi; i++ {
		l := &s.lines[i]
		b := l.box
		if l.kind == kindNode {
			last = b
		} else if l.kind == kindText || l.kind == kindProp {
			// Text has no box of its own: it sits in the element before it.
			b = last
		}
		if b == nil {
			continue
		}
		on := b.X < vw && b.Y < vh && b.X+b.W > 0 && b.Y+b.H > 0 && (b.W > 0 || b.H > 0)
		if !on {
			if l.ref != "" {
				if b.Y+b.H <= 0 {
					above++
				} else {
					below++
				}
			}
			continue
		}
		keep[i] = true
		for p := l.parent; p >= lo && !keep[p]; p = s.lines[p].parent {
			keep[p] = true
		}
	}
	return keep, above, below
}

// Diff lists what changed from prev to s, line by line: "+ " for lines that
// appeared, "- " for lines that went. An empty result means no change.
func (s *Snapshot) Diff(prev *Snapshot) string {
	if prev == nil {
		return s.Text
	}
	old := counts(prev.Text)
	cur := counts(s.Text)
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(prev.Text, "\n"), "\n") {
		if cur[l] > 0 {
			cur[l]--
			continue
		}
		b.WriteString("- " + strings.TrimLeft(l, " ") + "\n")
	}
	for _, l := range strings.Split(strings.TrimRight(s.Text, "\n"), "\n") {
		if old[l] > 0 {
			old[l]--
			continue
		}
		b.WriteString("+ " + strings.TrimLeft(l, " ") + "\n")
	}
	return b.String()
}

func counts(text string) map[string]int {
	m := map[string]int{}
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		m[l]++
	}
	return m
}

// Find returns the lines whose text contains query (case-insensitive) and,
// when role is set, whose role is role. A matching line without a ref of its
// own (a text, a property) is followed by the ref of the nearest element
// around it that has one, as " (in [ref=…])", so that every hit can be acted
// on or read further.
func (s *Snapshot) Find(query, role string) []string {
	q := strings.ToLower(query)
	var out []string
	if s.lines == nil {
		return findText(s.Text, q, role)
	}
	for _, l := range s.lines {
		if role != "" && (l.kind != kindNode || l.role != role) {
			continue
		}
		t := "- " + l.text
		if q != "" && !strings.Contains(strings.ToLower(t), q) {
			continue
		}
		if l.ref == "" {
			for p := l.parent; p >= 0; p = s.lines[p].parent {
				if r := s.lines[p].ref; r != "" {
					t += " (in [ref=" + r + "])"
					break
				}
			}
		}
		out = append(out, t)
	}
	return out
}

func findText(text, q, role string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		t := strings.TrimLeft(l, " ")
		if role != "" && !strings.HasPrefix(t, "- "+role+" ") && t != "- "+role && !strings.HasPrefix(t, "- "+role+":") {
			continue
		}
		if q == "" || strings.Contains(strings.ToLower(t), q) {
			out = append(out, t)
		}
	}
	return out
}
