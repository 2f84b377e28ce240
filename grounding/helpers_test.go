package grounding_test

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/grounding"
)

// node is a shorthand for an element with a ref-bearing id (0 = no ref).
func node(role, name string, id int, kids ...*protocol.Node) *protocol.Node {
	return &protocol.Node{Role: role, Name: name, ID: id, Children: kids}
}

func text(s string) *protocol.Node {
	return &protocol.Node{Role: "text", Text: s}
}

// iframe is an iframe element whose document sits at window.frames[index]
// of the frame that holds it.
func iframe(name string, id, index int) *protocol.Node {
	return &protocol.Node{
		Role: "iframe", Name: name, ID: id,
		Frame: &protocol.Child{Content: protocol.Rect{X: 10, Y: 20, W: 300, H: 150}, Index: index},
	}
}

func frame(id, parent, index int, url, doc string, epoch int, kids ...*protocol.Node) protocol.FrameReport {
	origin := url
	if i := strings.Index(url, "://"); i >= 0 {
		if j := strings.Index(url[i+3:], "/"); j >= 0 {
			origin = url[:i+3+j]
		}
	}
	return protocol.FrameReport{
		Frame: id, Parent: parent, Index: index, URL: url, Origin: origin, Doc: doc, Epoch: epoch,
		Root: &protocol.Node{Role: "document", Children: kids},
	}
}

func topFrame(doc string, epoch int, kids ...*protocol.Node) protocol.FrameReport {
	return frame(0, -1, -1, "https://shop.example/cart", doc, epoch, kids...)
}

func result(frames ...protocol.FrameReport) *protocol.SnapshotResult {
	return &protocol.SnapshotResult{Tab: 7, Zoom: 1, Frames: frames}
}

func mustBuild(t testing.TB, res *protocol.SnapshotResult, refs *grounding.Refs) *grounding.Snapshot {
	t.Helper()
	s, err := grounding.Build(res, refs, grounding.BuildOptions{ID: "s1.1", Tab: "1", Title: "Cart"})
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return s
}

func assertText(t *testing.T, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("snapshot text differs\n--- got ---\n%s--- want ---\n%s", got, want)
	}
}

var refMarker = regexp.MustCompile(`\[ref=[a-z0-9]+\]`)

// parsableRefs counts what a naive reader would take for refs: every
// `[ref=…]` whose bracket is not escaped by a backslash.
func parsableRefs(s string) int {
	n := 0
	for _, m := range refMarker.FindAllStringIndex(s, -1) {
		if m[0] > 0 && s[m[0]-1] == '\\' {
			continue
		}
		n++
	}
	return n
}

// line is one rendered snapshot line, taken apart by the strict grammar an
// agent-side reader may rely on.
type line struct {
	depth  int
	kind   string // "node", "text", "prop" or "unplaced"
	role   string // node: its role; prop: "url", "placeholder" or "value"
	quoted *string
	marks  []string // node: what sits inside each trailing [...]
	colon  bool
}

func (l line) ref() string {
	for _, m := range l.marks {
		if r, ok := strings.CutPrefix(m, "ref="); ok {
			return r
		}
	}
	return ""
}

var (
	roleRe = regexp.MustCompile(`^[a-z][a-z-]*`)
	markRe = regexp.MustCompile(`^ \[([a-z]+(?:=[a-z0-9]+|=-?[0-9]+,-?[0-9]+,[0-9]+,[0-9]+)?)\]`)
)

// parseLine accepts only what the renderer is meant to produce; anything a
// page smuggled in that does not sit inside the quotes makes it fail.
func parseLine(s string) (line, error) {
	var l line
	for strings.HasPrefix(s, "  ") {
		l.depth++
		s = s[2:]
	}
	rest, ok := strings.CutPrefix(s, "- ")
	if !ok {
		return l, fmt.Errorf("no %q after the indentation", "- ")
	}
	if r, ok := strings.CutPrefix(rest, "text: "); ok {
		l.kind = "text"
		q, tail, err := unquote(r)
		if err != nil {
			return l, err
		}
		if tail != "" {
			return l, fmt.Errorf("text line goes on after its quotes: %q", tail)
		}
		l.quoted = &q
		return l, nil
	}
	if r, ok := strings.CutPrefix(rest, "/"); ok {
		l.kind = "prop"
		name, r, ok := strings.Cut(r, ": ")
		if !ok || (name != "url" && name != "placeholder" && name != "value") {
			return l, fmt.Errorf("unknown property line %q", rest)
		}
		l.role = name
		q, tail, err := unquote(r)
		if err != nil {
			return l, err
		}
		if tail != "" {
			return l, fmt.Errorf("property line goes on after its quotes: %q", tail)
		}
		l.quoted = &q
		return l, nil
	}
	l.kind = "node"
	l.role = roleRe.FindString(rest)
	if l.role == "" {
		return l, fmt.Errorf("no role in %q", rest)
	}
	rest = rest[len(l.role):]
	if strings.HasPrefix(rest, ` "`) {
		q, tail, err := unquote(rest[1:])
		if err != nil {
			return l, err
		}
		l.quoted = &q
		rest = tail
	}
	if r, ok := strings.CutPrefix(rest, " (not placed on the page)"); ok && l.role == "iframe" && l.quoted != nil && (r == "" || r == ":") {
		l.kind = "unplaced"
		l.colon = r == ":"
		return l, nil
	}
	for {
		m := markRe.FindStringSubmatch(rest)
		if m == nil {
			break
		}
		l.marks = append(l.marks, m[1])
		rest = rest[len(m[0]):]
	}
	if rest == ":" {
		l.colon = true
		rest = ""
	}
	if rest != "" {
		return l, fmt.Errorf("unexpected %q after the role, name and marks", rest)
	}
	return l, nil
}

// unquote reads one quoted string at the start of s, undoing the renderer's
// escapes, and returns what follows the closing quote.
func unquote(s string) (string, string, error) {
	if !strings.HasPrefix(s, `"`) {
		return "", "", fmt.Errorf("no opening quote in %q", s)
	}
	var b strings.Builder
	i := 1
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			return b.String(), s[i+1:], nil
		case c == '\\':
			if i+1 >= len(s) {
				return "", "", errors.New("dangling backslash")
			}
			switch e := s[i+1]; e {
			case '"', '\\', '[':
				b.WriteByte(e)
				i += 2
			case 'n':
				b.WriteByte('\n')
				i += 2
			case 'r':
				b.WriteByte('\r')
				i += 2
			case 't':
				b.WriteByte('\t')
				i += 2
			case 'u':
				if i+6 > len(s) {
					return "", "", errors.New(`short \u escape`)
				}
				v, err := strconv.ParseUint(s[i+2:i+6], 16, 32)
				if err != nil {
					return "", "", fmt.Errorf(`bad \u escape %q`, s[i:i+6])
				}
				b.WriteRune(rune(v))
				i += 6
			default:
				return "", "", fmt.Errorf("unknown escape \\%c", e)
			}
		case c < 0x20 || c == 0x7f:
			return "", "", fmt.Errorf("raw control byte %#x inside quotes", c)
		default:
			b.WriteByte(c)
			i++
		}
	}
	return "", "", errors.New("no closing quote")
}

// parseAll parses every line of a snapshot text, failing the test on the
// first line that does not follow the grammar.
func parseAll(t testing.TB, text string) []line {
	t.Helper()
	if text != "" && !strings.HasSuffix(text, "\n") {
		t.Fatalf("snapshot text does not end with a newline: %q", text)
	}
	var out []line
	for _, s := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		l, err := parseLine(s)
		if err != nil {
			t.Fatalf("line %q: %v", s, err)
		}
		out = append(out, l)
	}
	return out
}

// asRendered is what the renderer can faithfully carry: Go reads invalid
// UTF-8 as one U+FFFD per bad byte.
func asRendered(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r)
	}
	return b.String()
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

// checkShape fails on a trailing colon with nothing under it, or on a line
// indented deeper than one step below the line before it.
func checkShape(t testing.TB, text string, lines []line) {
	t.Helper()
	for i, l := range lines {
		deeper := i+1 < len(lines) && lines[i+1].depth == l.depth+1
		if l.colon != deeper {
			t.Errorf("line %d: colon %v but next line deeper %v:\n%s", i+1, l.colon, deeper, text)
		}
		if i > 0 && l.depth > lines[i-1].depth+1 {
			t.Errorf("line %d jumps from depth %d to %d:\n%s", i+1, lines[i-1].depth, l.depth, text)
		}
	}
}
