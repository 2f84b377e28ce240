package grounding

import (
	"fmt"
	"strings"
)

// Modes of a snapshot's rendering.
const (
	ModeFull        = "full"        // everything readable
	ModeInteractive = "interactive" // what an agent can act on, with headings and landmarks as context
	ModeViewport    = "viewport"    // what is on screen, with counts of what lies outside
)

// RenderOptions chooses what of a snapshot to show.
type RenderOptions struct {
	Mode     string // optional: ModeFull by default
	MaxChars int    // optional: cut the text at a line boundary past this many characters
	Root     string // optional: only the subtree of this ref
	Boxes    bool   // optional: add [box=x,y,w,h] in screen points
}

// Rendered is a snapshot's text as asked for.
type Rendered struct {
	Text      string
	Truncated bool
	Hint      string // how to get the rest, when Truncated
}

// Render shows the snapshot as opts ask.
func (s *Snapshot) Render(opts RenderOptions) (Rendered, error) {
	switch opts.Mode {
	case "", ModeFull:
	default:
		return Rendered{}, fmt.Errorf("snapshot mode %q is not available; use %q", opts.Mode, ModeFull)
	}
	text := s.Text
	if opts.Root != "" {
		sub, ok := subtree(text, opts.Root)
		if !ok {
			return Rendered{}, fmt.Errorf("%w (%s is not in snapshot %s)", ErrStaleRef, opts.Root, s.ID)
		}
		text = sub
	}
	return truncate(text, opts.MaxChars), nil
}

// subtree returns the line of ref and the lines indented below it.
func subtree(text, ref string) (string, bool) {
	lines := strings.SplitAfter(text, "\n")
	// Only a line's own marker counts: page text may contain an escaped look-alike.
	marker := " [ref=" + ref + "]"
	for i, l := range lines {
		if !strings.HasSuffix(strings.TrimSuffix(strings.TrimRight(l, "\n"), ":"), marker) {
			continue
		}
		depth := indentOf(l)
		var b strings.Builder
		b.WriteString(l[depth:])
		for _, m := range lines[i+1:] {
			if strings.TrimSpace(m) == "" || indentOf(m) <= depth {
				break
			}
			b.WriteString(m[depth:])
		}
		return b.String(), true
	}
	return "", false
}

func indentOf(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

func truncate(text string, max int) Rendered {
	if max <= 0 || len(text) <= max {
		return Rendered{Text: text}
	}
	cut := strings.LastIndexByte(text[:max], '\n') + 1
	return Rendered{
		Text:      text[:cut],
		Truncated: true,
		Hint:      fmt.Sprintf("the snapshot was cut at %d of %d characters; ask for a subtree by ref, the interactive mode, or a larger budget", cut, len(text)),
	}
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
// when role is set, whose role is role.
func (s *Snapshot) Find(query, role string) []string {
	q := strings.ToLower(query)
	var out []string
	for _, l := range strings.Split(strings.TrimRight(s.Text, "\n"), "\n") {
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
