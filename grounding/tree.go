// Package grounding turns what the extension reports into what agents read
// and where acts land. It is pure Go: no OS calls, no network, no clock but
// the one it is given.
//
// It stitches each frame's tree under its iframe element into one tab tree,
// hands out tab-wide refs ("e7" in the top frame, "f2e7" in frame 2) that are
// never reused for the life of a tab, renders the snapshot text, validates a
// ref against the snapshot it came from, and maps a point in the page to a
// point on screen.
package grounding

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/grounding/quote"
)

// Errors an agent may see. Each says what to do next.
var (
	ErrStaleRef = errors.New("that ref is not in the tab's current page; take a new snapshot and use a ref from it")
	ErrNoFrame  = errors.New("the element's frame cannot be located on screen; it cannot be acted on")
	// ErrTurned: the element's frame, or one around it, is rotated, skewed
	// or under a 3-D transform, so where its content shows is not guessed.
	ErrTurned = errors.New("the element's frame is rotated or skewed, so Reins does not place points in it; it cannot be acted on")
)

// Element is what a ref points at, frozen at snapshot time.
type Element struct {
	Ref         string
	Frame       int    // chrome frameId
	Doc         string // the frame's document generation
	Epoch       int    // the frame's navigation epoch
	ID          int    // the frame's element id
	Role, Name  string
	Secret      bool
	Box         protocol.Rect  // in its frame's viewport, at snapshot time
	Page        protocol.Rect  // the same box in the top frame's viewport; zero unless Placeable
	Clip        *protocol.Rect // the frames' content boxes it shows through, intersected, in the top frame's viewport; nil in the top frame
	FrameOrigin string         // the element's frame origin
	Path        []protocol.Hop // ancestors up to the top frame; nil for the top frame
	Placeable   bool           // every frame on the way to the top is paired, none of them turned
	Turned      string         // why not, when a frame on the way is rotated or skewed (protocol.Child.Turned)
}

// Snapshot is one rendered view of a tab.
type Snapshot struct {
	ID       string
	Tab      string
	URL      string
	Title    string
	Origin   string
	Text     string
	Zoom     float64
	Elements map[string]Element // by ref
	docs     map[int]frameGen   // chrome frameId → generation at snapshot time
	lines    []line             // every line of Text, in order
	top      *protocol.FrameReport
}

type frameGen struct {
	doc   string
	epoch int
}

// Refs hands out tab-wide refs. A ref names at most one element for the whole
// life of a tab: the key includes the document generation and the frame's
// element id, which the frame never reuses, and epochs give new element ids.
type Refs struct {
	mu     sync.Mutex
	frames map[int]string    // guarded by mu; chrome frameId → "" or "fN"
	next   map[int]int       // guarded by mu; chrome frameId → next element number
	refs   map[refKey]string // guarded by mu
	nextF  int               // guarded by mu
}

type refKey struct {
	frame int
	doc   string
	id    int
}

// NewRefs makes the refs of one tab.
func NewRefs() *Refs {
	return &Refs{frames: map[int]string{0: ""}, next: map[int]int{}, refs: map[refKey]string{}, nextF: 1}
}

func (r *Refs) ref(frame int, doc string, id int) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := refKey{frame, doc, id}
	if s, ok := r.refs[k]; ok {
		return s
	}
	prefix, ok := r.frames[frame]
	if !ok {
		prefix = "f" + strconv.Itoa(r.nextF)
		r.nextF++
		r.frames[frame] = prefix
	}
	r.next[frame]++
	s := prefix + "e" + strconv.Itoa(r.next[frame])
	r.refs[k] = s
	return s
}

// Forget drops the mapping of documents no longer in the tab, keeping the
// counters so that no ref is handed out twice.
func (r *Refs) Forget(live map[int]string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k := range r.refs {
		if live[k.frame] != k.doc {
			delete(r.refs, k)
		}
	}
}

// BuildOptions configures Build.
type BuildOptions struct {
	ID    string // the snapshot id
	Tab   string // Reins' tab id
	Title string // the tab's title
}

// Build stitches a tab's frames into one tree, renders it and records every
// ref it shows.
func Build(res *protocol.SnapshotResult, refs *Refs, opts BuildOptions) (*Snapshot, error) {
	frames := map[int]*protocol.FrameReport{}
	for i := range res.Frames {
		f := &res.Frames[i]
		if err := f.Decode(); err != nil {
			f.Error = err.Error()
		}
		frames[f.Frame] = f
	}
	top := frames[0]
	if top == nil || top.Root == nil {
		msg := "the tab's page is not readable"
		if top != nil && top.Error != "" {
			msg += ": " + top.Error
		}
		return nil, errors.New(msg + " (a browser page, or still loading?)")
	}
	// Pair each child frame with the iframe element that holds it.
	children := map[[2]int]*protocol.FrameReport{} // (parent, index) → child
	for _, f := range res.Frames {
		if f.Frame == 0 || f.Index < 0 {
			continue
		}
		k := [2]int{f.Parent, f.Index}
		children[k] = frames[f.Frame]
	}
	s := &Snapshot{
		ID: opts.ID, Tab: opts.Tab, URL: top.URL, Title: opts.Title, Origin: top.Origin, Zoom: res.Zoom,
		Elements: map[string]Element{}, docs: map[int]frameGen{},
	}
	live := map[int]string{}
	for _, f := range res.Frames {
		if f.Root != nil {
			s.docs[f.Frame] = frameGen{f.Doc, f.Epoch}
			live[f.Frame] = f.Doc
		}
	}
	refs.Forget(live)
	seen := map[int]bool{}
	w := walker{s: s, refs: refs, frames: frames, children: children, seen: seen}
	w.frame(top, nil, true, "", 0, &offset{sx: 1, sy: 1}, -1)
	// Frames the stitching could not place still get read, after the rest.
	var rest []int
	for id, f := range frames {
		if !seen[id] && f.Root != nil {
			rest = append(rest, id)
		}
	}
	sort.Ints(rest)
	for _, id := range rest {
		if seen[id] {
			continue // already shown inside an unplaced ancestor
		}
		// Show the outermost unplaced frame this one is paired into, so that
		// nested frames sit under their iframe, whatever their frame ids.
		f := frames[id]
		for range len(frames) {
			p := frames[f.Parent]
			if f.Index < 0 || p == nil || p == f || p.Root == nil || seen[p.Frame] || children[[2]int{f.Parent, f.Index}] != f {
				break
			}
			f = p
		}
		w.unplaced(f)
		if !seen[id] {
			w.unplaced(frames[id])
		}
	}
	s.Text = s.render(selectAll(s.lines), RenderOptions{})
	s.top = top
	return s, nil
}

type walker struct {
	s        *Snapshot
	refs     *Refs
	frames   map[int]*protocol.FrameReport
	children map[[2]int]*protocol.FrameReport
	seen     map[int]bool
}

// offset places a frame's boxes in the top frame's viewport: a point p of
// the frame's own shows at (x + sx·p.X, y + sy·p.Y); nil where the frame
// cannot be placed. clip is where the frame's content shows: its iframe's
// content box within every enclosing frame's; nil for the top frame. turned
// says why a frame paired with its iframe is still not placed.
type offset struct {
	x, y   float64
	sx, sy float64
	clip   *protocol.Rect
}

// place is box b of the frame, in the top frame's viewport.
func (o *offset) place(b protocol.Rect) protocol.Rect {
	return protocol.Rect{X: o.x + o.sx*b.X, Y: o.y + o.sy*b.Y, W: o.sx * b.W, H: o.sy * b.H}
}

func (w *walker) unplaced(f *protocol.FrameReport) {
	i := w.s.add(line{depth: 0, parent: -1, kind: kindUnplaced, role: "iframe", text: "iframe " + quote.Text(f.URL, 0) + " (not placed on the page)"})
	w.frame(f, nil, false, "", 1, nil, i)
}

func (w *walker) frame(f *protocol.FrameReport, path []protocol.Hop, placeable bool, turned string, depth int, off *offset, parent int) {
	w.seen[f.Frame] = true
	for _, n := range f.Root.Children {
		w.node(f, n, path, placeable, turned, depth, off, parent)
	}
}

func (w *walker) node(f *protocol.FrameReport, n *protocol.Node, path []protocol.Hop, placeable bool, turned string, depth int, off *offset, parent int) {
	if n.Role == "text" && n.Box == nil { // a text node; an element can claim role "text" but always has a box
		w.s.add(line{depth: depth, parent: parent, kind: kindText, text: "text: " + quote.Text(n.Text, 0)})
		return
	}
	role := renderedRole(n.Role)
	l := line{depth: depth, parent: parent, kind: kindNode, role: role, pointer: n.Pointer, scroll: n.Scroll}
	text := role
	if n.Name != "" {
		text += " " + quote.Text(n.Name, 0)
	}
	text += stateMarks(n) + scrollMarks(n.Scroll)
	if n.Box != nil && off != nil {
		b := off.place(*n.Box)
		l.box = &b
	}
	if n.ID != 0 {
		ref := w.refs.ref(f.Frame, f.Doc, n.ID)
		l.ref = ref
		text += " [ref=" + ref + "]"
		box := protocol.Rect{}
		if n.Box != nil {
			box = *n.Box
		}
		el := Element{
			Ref: ref, Frame: f.Frame, Doc: f.Doc, Epoch: f.Epoch, ID: n.ID, Role: noControls(n.Role), Name: noControls(n.Name),
			Secret: n.Secret, Box: box, FrameOrigin: f.Origin, Path: path, Placeable: placeable, Turned: turned,
		}
		if l.box != nil {
			el.Page, el.Clip = *l.box, off.clip
		}
		w.s.Elements[ref] = el
	}
	l.text = text
	me := w.s.add(l)
	var child *protocol.FrameReport
	if n.Frame != nil && n.Frame.Index >= 0 {
		child = w.children[[2]int{f.Frame, n.Frame.Index}]
	}
	if n.URL != "" {
		w.s.add(line{depth: depth + 1, parent: me, kind: kindProp, text: "/url: " + quote.Text(n.URL, 0)})
	}
	if n.Placeholder != "" {
		w.s.add(line{depth: depth + 1, parent: me, kind: kindProp, text: "/placeholder: " + quote.Text(n.Placeholder, 0)})
	}
	if n.Value != "" && !n.Secret {
		w.s.add(line{depth: depth + 1, parent: me, kind: kindProp, text: "/value: " + quote.Text(n.Value, 0)})
	}
	for _, c := range n.Children {
		w.node(f, c, path, placeable, turned, depth+1, off, me)
	}
	if child != nil && child.Root != nil && !w.seen[child.Frame] {
		hop := protocol.Hop{Frame: f.Frame, Index: n.Frame.Index, Doc: f.Doc, Epoch: f.Epoch}
		childPath := append([]protocol.Hop{hop}, path...)
		var coff *offset
		cplace, cturned := placeable, turned
		if n.Frame.Turned != "" && cturned == "" {
			cplace, cturned = false, n.Frame.Turned
		}
		if off != nil && cplace {
			c := off.place(n.Frame.Content)
			clip := c
			if off.clip != nil {
				clip = clip.Intersect(*off.clip)
			}
			sc := protocol.ScaleOf(n.Frame.Scale)
			coff = &offset{x: c.X, y: c.Y, sx: off.sx * sc.X, sy: off.sy * sc.Y, clip: &clip}
		}
		w.frame(child, childPath, cplace, cturned, depth+1, coff, me)
	}
}

func stateMarks(n *protocol.Node) string {
	var b strings.Builder
	switch n.Checked {
	case "true":
		b.WriteString(" [checked]")
	case "mixed":
		b.WriteString(" [checked=mixed]")
	}
	if n.Disabled {
		b.WriteString(" [disabled]")
	}
	if n.Expanded == "true" {
		b.WriteString(" [expanded]")
	}
	if n.Level > 0 {
		b.WriteString(" [level=" + strconv.Itoa(n.Level) + "]")
	}
	switch n.Pressed {
	case "true":
		b.WriteString(" [pressed]")
	case "mixed":
		b.WriteString(" [pressed=mixed]")
	}
	if n.Selected {
		b.WriteString(" [selected]")
	}
	if n.Focused {
		b.WriteString(" [active]")
	}
	if n.Pointer {
		b.WriteString(" [cursor=pointer]")
	}
	return b.String()
}

// Check validates a ref against the snapshot it came from and the tab's
// current frames. current maps chrome frameId → (document, epoch) as last
// reported; a frame whose document or epoch moved on makes every ref in it
// stale. Only the extension's re-resolution decides whether the element is
// still there.
func (s *Snapshot) Check(ref string, current map[int]FrameState) (Element, error) {
	el, ok := s.Elements[ref]
	if !ok {
		return Element{}, fmt.Errorf("%w (%s is not in snapshot %s)", ErrStaleRef, ref, s.ID)
	}
	for _, fr := range append([]int{el.Frame}, hopFrames(el.Path)...) {
		cur, ok := current[fr]
		was := s.docs[fr]
		if !ok || cur.Doc != was.doc || cur.Epoch != was.epoch {
			return Element{}, fmt.Errorf("%w (the page navigated after snapshot %s)", ErrStaleRef, s.ID)
		}
	}
	if el.Turned != "" {
		return Element{}, fmt.Errorf("%w (%s: %s)", ErrTurned, ref, el.Turned)
	}
	if !el.Placeable {
		return Element{}, fmt.Errorf("%w (%s)", ErrNoFrame, ref)
	}
	return el, nil
}

// FrameState is a frame's document generation and navigation epoch.
type FrameState struct {
	Doc   string
	Epoch int
}

func hopFrames(p []protocol.Hop) []int {
	out := make([]int, len(p))
	for i, h := range p {
		out[i] = h.Frame
	}
	return out
}

// Viewport is the top frame's viewport when the snapshot was read.
func (s *Snapshot) Viewport() protocol.Viewport {
	if s.top == nil {
		return protocol.Viewport{}
	}
	return s.top.Viewport
}

// Frames returns the generation of every frame in the snapshot, as a current
// map for Check.
func (s *Snapshot) Frames() map[int]FrameState {
	out := make(map[int]FrameState, len(s.docs))
	for id, g := range s.docs {
		out[id] = FrameState{Doc: g.doc, Epoch: g.epoch}
	}
	return out
}

// SamePage reports whether s shows the same top-frame document, at the same
// navigation epoch, as o: whether o's refs in the top frame can still be.
func (s *Snapshot) SamePage(o *Snapshot) bool {
	return s.docs[0] == o.docs[0]
}

// renderedRole shows a role only if it is a plain ARIA role token: the role
// attribute is page text and would otherwise be printed unescaped.
func renderedRole(r string) string {
	if r == "" {
		return "generic"
	}
	for _, c := range r {
		if (c < 'a' || c > 'z') && c != '-' {
			return "generic"
		}
	}
	return r
}

// noControls drops control characters (C0, DEL, C1) from page text that an
// Element keeps. The role and name go on into approval requests, the audit
// log and back to the extension to re-find the element; none of those
// should carry a byte that moves a terminal's cursor. The extension drops
// them too, so a name it reports again at fire time still matches; if it
// did not, the element would read as changed and the act be refused, never
// fired on a name the person did not see.
func noControls(s string) string {
	if strings.IndexFunc(s, unicode.IsControl) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
}
