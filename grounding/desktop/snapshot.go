package desktop

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/reins-app/reins/grounding/quote"
	"github.com/reins-app/reins/internal/plain"
)

// ErrStaleRef is wrapped by [Snapshot.Check] for a ref the snapshot does not
// show.
var ErrStaleRef = errors.New("that desktop ref is not in the desktop reading it is checked against; take a new desktop_observe and use a ref from it")

// MaxAge is how long a snapshot reads as fresh; see [Snapshot.Stale].
const MaxAge = 2 * time.Second

// valueMax is the most characters of an element's value shown.
const valueMax = 200

// truncatedNote is the line that says the reader stopped at its bounds.
const truncatedNote = "(the window has more elements than Reins reads at once; this is the part read)"

// Target is what a desktop ref points at, frozen at snapshot time.
type Target struct {
	Ref  string
	PID  int
	App  string // the application's name as the caller gives it
	ID   string // the element's ID in its application
	Role string // as shown: [Shown] of the platform role
	// Name is the element's name cleaned as [plain.Text] cleans it, not
	// capped; [Target.Matches] compares a fresh element the same way.
	Name     string
	Secret   bool
	Editable bool
	Box      Rect // screen device pixels, at snapshot time
}

// Matches reports whether e, read afresh, is still the element t was: the
// same ID, shown role, cleaned name and secrecy.
func (t Target) Matches(e *Element) bool {
	return e != nil && e.ID == t.ID && Shown(e.Role) == t.Role && plain.Text(e.Name, 0) == t.Name && secret(e) == t.Secret
}

// Snapshot is one rendered reading of the desktop's front application.
type Snapshot struct {
	ID   string
	At   time.Time
	Text string // rendered lines
	// Targets holds every ref Text shows, and only those: a ref cut by the
	// budget is not in it.
	Targets   map[string]Target // by ref
	Truncated bool              // the tree was cut by the reader's bounds
}

// BuildOptions configures [Build].
type BuildOptions struct {
	ID       string    // required: the snapshot id, e.g. "ds3"
	At       time.Time // required: when the tree was read
	App      string    // optional: the application's name (e.g. "gedit"); the tree's own when empty
	MaxChars int       // optional: the most characters of Text; 0 for no cut
	// Boxes shows each element's box on screen, [box=x,y,wxh] in DIP.
	Boxes bool
	// Find keeps only the elements whose role or name holds these words,
	// any case, as a flat list.
	Find string
}

// Build renders t, handing out refs from refs to the elements an act can
// land on: those Showing and Visible with a box on screen. t must not be
// nil.
func Build(t *Tree, refs *Refs, opts BuildOptions) *Snapshot {
	app := opts.App
	if app == "" {
		app = t.App
	}
	s := &Snapshot{ID: opts.ID, At: opts.At, Targets: map[string]Target{}, Truncated: t.Truncated}
	head := []line{{text: "Application in front: " + quote.Text(plain.Text(app, plain.NameMax), 0) + " (pid " + strconv.Itoa(t.PID) + ")"}}
	if t.Truncated {
		head = append(head, line{text: truncatedNote})
	}
	b := builder{s: s, refs: refs, pid: t.PID, app: app, boxes: opts.Boxes}
	b.element(&t.Root, 0)
	lines := b.lines
	if opts.Find != "" {
		lines = found(lines, opts.Find)
		head = append(head, line{text: fmt.Sprintf("(%d elements whose role or name holds %s)", len(lines), quote.Text(plain.Text(opts.Find, plain.NameMax), 0))})
	}
	s.Text = s.cut(head, lines, opts.MaxChars)
	return s
}

// found keeps the element lines whose text holds words (any case), without
// their indentation: a flat list to pick a ref from.
func found(lines []line, words string) []line {
	w := strings.ToLower(words)
	var out []line
	for _, l := range lines {
		if l.element && strings.Contains(strings.ToLower(l.text), w) {
			l.text = strings.TrimLeft(l.text, " ")
			out = append(out, l)
		}
	}
	return out
}

type line struct {
	text    string
	ref     string // the ref the line shows, if any
	element bool   // an element's own line, not a /value line
}

type builder struct {
	s     *Snapshot
	refs  *Refs
	pid   int
	app   string
	boxes bool
	lines []line
}

func (b *builder) element(e *Element, depth int) {
	role := Shown(e.Role)
	name := plain.Text(e.Name, plain.NameMax)
	actable := e.ID != "" && e.State.Showing && e.State.Visible && !e.Box.Empty()
	if role == "generic" && name == "" && !actable {
		for i := range e.Children {
			b.element(&e.Children[i], depth)
		}
		return
	}
	sec := secret(e)
	var t strings.Builder
	t.WriteString(strings.Repeat("  ", depth) + "- " + role)
	if name != "" {
		t.WriteString(" " + quote.Text(name, 0))
	}
	t.WriteString(marks(e.State, sec))
	l := line{element: true}
	if actable && b.boxes {
		fmt.Fprintf(&t, " [box=%d,%d,%dx%d]", e.Box.X, e.Box.Y, e.Box.W, e.Box.H)
	}
	if actable {
		l.ref = b.refs.ref(b.pid, e.ID, role)
		t.WriteString(" [ref=" + l.ref + "]")
		b.s.Targets[l.ref] = Target{
			Ref: l.ref, PID: b.pid, App: b.app, ID: e.ID, Role: role, Name: plain.Text(e.Name, 0),
			Secret: sec, Editable: e.State.Editable, Box: e.Box,
		}
	}
	l.text = t.String()
	b.lines = append(b.lines, l)
	// A secret element's value is never shown, even if the reader filled it.
	if v := plain.Text(e.Value, valueMax); v != "" && !sec {
		b.lines = append(b.lines, line{text: strings.Repeat("  ", depth+1) + "- /value: " + quote.Text(v, 0)})
	}
	for i := range e.Children {
		b.element(&e.Children[i], depth+1)
	}
}

// secret reports whether e is a password field, by its mark or its role.
func secret(e *Element) bool {
	return e.Secret || strings.EqualFold(strings.TrimSpace(e.Role), "password text")
}

func marks(st States, secret bool) string {
	var b strings.Builder
	if st.Checked {
		b.WriteString(" [checked]")
	}
	if st.Expanded {
		b.WriteString(" [expanded]")
	}
	if st.Selected {
		b.WriteString(" [selected]")
	}
	if !st.Enabled {
		b.WriteString(" [disabled]")
	}
	if st.Focused {
		b.WriteString(" [active]")
	}
	if secret {
		b.WriteString(" [secret]")
	}
	return b.String()
}

// cut joins head and body within max characters: the head whole, then as
// many lines of body as fit with a last line that says what was left out.
// The refs on lines left out leave s.Targets. A max of 0 or less is no cut.
func (s *Snapshot) cut(head, body []line, max int) string {
	all := slices.Concat(head, body)
	size := -1
	for _, l := range all {
		size += len(l.text) + 1
	}
	if max <= 0 || size <= max {
		return join(all)
	}
	// elems[k], refs[k]: element lines and refs in body[k:].
	elems := make([]int, len(body)+1)
	refs := make([]int, len(body)+1)
	for k := len(body) - 1; k >= 0; k-- {
		elems[k], refs[k] = elems[k+1], refs[k+1]
		if body[k].element {
			elems[k]++
		}
		if body[k].ref != "" {
			refs[k]++
		}
	}
	// size is the length of head and body[:k] joined; the head stays even
	// when nothing else fits.
	k := len(body)
	for k > 0 {
		k--
		size -= len(body[k].text) + 1
		if size+1+len(cutHint(elems[k], refs[k], max)) <= max {
			break
		}
	}
	for _, l := range body[k:] {
		delete(s.Targets, l.ref)
	}
	return join(append(all[:len(head)+k], line{text: cutHint(elems[k], refs[k], max)}))
}

func cutHint(elems, refs, max int) string {
	return fmt.Sprintf("(cut at %d characters: %d more elements, %d with refs, left out; read them with desktop_observe and a larger max_chars)", max, elems, refs)
}

func join(lines []line) string {
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l.text)
	}
	return b.String()
}

// Check returns the target of ref in s, or an error wrapping [ErrStaleRef]
// for a ref s does not show. An old snapshot is not refused here: acts
// re-find the element by its ID; see [Snapshot.Stale].
func (s *Snapshot) Check(ref string) (Target, error) {
	if t, ok := s.Targets[ref]; ok {
		return t, nil
	}
	if !strings.HasPrefix(ref, "d") {
		return Target{}, fmt.Errorf("%w (%s is not a desktop ref: desktop refs read d1, d2, …)", ErrStaleRef, plain.Quote(ref, plain.NameMax))
	}
	return Target{}, fmt.Errorf("%w (%s is not in desktop reading %s)", ErrStaleRef, plain.Quote(ref, plain.NameMax), s.ID)
}

// Stale reports whether s was read more than [MaxAge] before now.
func (s *Snapshot) Stale(now time.Time) bool {
	return now.Sub(s.At) > MaxAge
}

// FindID returns the element with id in a fresh tree t, or nil.
func FindID(t *Tree, id string) *Element {
	if t == nil || id == "" {
		return nil
	}
	var found *Element
	t.Walk(func(e *Element, _ int) bool {
		if e.ID == id {
			found = e
			return false
		}
		return true
	})
	return found
}
