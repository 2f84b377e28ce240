package grounding

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/reins-app/reins/grounding/quote"
)

// A budget cuts a rendered view at a line boundary, and the hint says what
// the cut left out, and where, in words an agent can act on: how many lines
// and refs, the first element left out, the refs of the sections that hold
// the rest, and how to read them.

// sectionRoles are the containers a cut view's hint names: reading one of
// them by its ref reads a part of the page that makes sense on its own.
var sectionRoles = map[string]bool{
	"table": true, "grid": true, "treegrid": true, "list": true, "listbox": true, "tree": true,
	"menu": true, "menubar": true, "tablist": true, "radiogroup": true, "feed": true, "article": true,
	"banner": true, "navigation": true, "main": true, "contentinfo": true, "complementary": true,
	"region": true, "form": true, "search": true, "dialog": true, "alertdialog": true, "iframe": true,
}

// hintName is the most characters of a name a hint quotes.
const hintName = 40

// renderIndexed is renderRange that also returns, for each line it wrote,
// the line's index and where its text starts: line k of the text is
// text[starts[k]:starts[k+1]], its own colon and newline included.
func (s *Snapshot) renderIndexed(lo, hi int, keep []bool, boxes bool) (text string, idx, starts []int) {
	w := lineIndex{}
	text = s.renderLines(lo, hi, keep, boxes, &w)
	return text, w.idx, append(w.starts, len(text))
}

type lineIndex struct{ idx, starts []int }

// cut renders text, the kept lines of [lo, hi), within max characters: at
// the last line boundary before max, with a hint that says what was left
// out. A max of 0 or less is no limit.
func (s *Snapshot) cut(lo, hi int, keep []bool, boxes bool, text string, max int, o cutOptions) Rendered {
	if max <= 0 || len(text) <= max {
		return Rendered{Text: text}
	}
	text, idx, starts := s.renderIndexed(lo, hi, keep, boxes)
	k, _ := slices.BinarySearch(starts, max+1)
	k-- // the lines [0, k) end at or before max
	r := Rendered{Text: text[:starts[k]], Truncated: true, Size: len(text), Left: len(idx) - k}
	r.Hint = s.cutHint(lo, idx, k, len(text), starts[k], o)
	return r
}

type cutOptions struct {
	view string // what was cut: "the interactive view"
	mode string // the mode rendered; the hint suggests the others
	root bool   // the view is one ref's subtree, whose own ref the hint does not name
}

func (s *Snapshot) cutHint(lo int, idx []int, k, size, at int, o cutOptions) string {
	left := idx[k:]
	refs := 0
	first := -1
	for _, i := range left {
		if s.lines[i].ref != "" {
			refs++
			if first < 0 {
				first = i
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s is %d characters, so it was cut at %d, after %d of its %d lines. Left out: %d lines with %d refs", o.view, size, at, k, len(idx), len(left), refs)
	if first < 0 {
		fmt.Fprintf(&b, ", from %s on.", clip(s.lines[left[0]].text, 2*hintName))
	} else {
		fmt.Fprintf(&b, ", from %s on", s.short(first))
	}
	read := ""
	if first >= 0 {
		// Where the refs left out are: the section the first of them
		// sits in, and the parts of the page after it.
		floor := lo - 1 // the lines around the view's lines are above floor
		if o.root {
			floor = lo
		}
		c := s.section(first, floor)
		inC := 0
		groups := map[int]int{} // the top line of a part after the section → refs left out in it
		var order []int
		for _, i := range left {
			if s.lines[i].ref == "" {
				continue
			}
			if c >= 0 && s.within(i, c) {
				inC++
				continue
			}
			g := s.apart(i, first, floor)
			if groups[g] == 0 {
				order = append(order, g)
			}
			groups[g]++
		}
		var parts []string
		if c >= 0 {
			p := fmt.Sprintf("%d in %s", inC, s.short(c))
			var outer []string
			for a := s.lines[c].parent; a > floor; a = s.lines[a].parent {
				if s.lines[a].ref != "" && sectionRoles[s.lines[a].role] && len(outer) < 2 {
					outer = append(outer, s.short(a))
				}
			}
			if len(outer) > 0 {
				p += " (in " + strings.Join(outer, ", in ") + ")"
			}
			parts = append(parts, p)
			read = s.lines[c].ref
		}
		rest := 0
		for n, g := range order {
			if n < 3 && s.lines[g].ref != "" {
				parts = append(parts, fmt.Sprintf("%d in %s", groups[g], s.short(g)))
				if read == "" {
					read = s.lines[g].ref
				}
				continue
			}
			rest += groups[g]
		}
		if rest > 0 {
			parts = append(parts, fmt.Sprintf("%d elsewhere", rest))
		}
		b.WriteString("; of those refs, " + strings.Join(parts, ", ") + ".")
	}
	b.WriteString(" Read the rest with ")
	if read != "" {
		fmt.Fprintf(&b, "the subtree of a ref named here (ref %q) and a larger max_chars (-1 for no limit), ", read)
	} else {
		b.WriteString("a larger max_chars (-1 for no limit), ")
	}
	b.WriteString("with find (a name, a role)")
	switch o.mode {
	case ModeFull:
		fmt.Fprintf(&b, ", with mode %q for only what can be acted on, or with mode %q for what is on screen.", ModeInteractive, ModeViewport)
	case ModeViewport:
		b.WriteString(".")
	default:
		fmt.Fprintf(&b, ", or with mode %q for what is on screen.", ModeViewport)
	}
	return b.String()
}

// section is the innermost section with a ref around line i, among the
// lines above floor; failing that, the outermost element with a ref around
// it; -1 if there is none.
func (s *Snapshot) section(i, floor int) int {
	outer := -1
	for a := s.lines[i].parent; a > floor; a = s.lines[a].parent {
		if s.lines[a].ref == "" {
			continue
		}
		if sectionRoles[s.lines[a].role] {
			return a
		}
		outer = a
	}
	return outer
}

// within reports whether line i is in the subtree of line a.
func (s *Snapshot) within(i, a int) bool {
	for ; i >= 0; i = s.lines[i].parent {
		if i == a {
			return true
		}
	}
	return false
}

// apart is the outermost line around i, above floor, that does not hold
// line first: the part of the page after the cut that i belongs to.
func (s *Snapshot) apart(i, first, floor int) int {
	g := i
	for p := s.lines[i].parent; p > floor && !s.within(first, p); p = s.lines[p].parent {
		g = p
	}
	return g
}

// short names an element in a hint: role, a short name, and ref.
func (s *Snapshot) short(i int) string {
	l := &s.lines[i]
	out := l.role
	if name := s.Elements[l.ref].Name; name != "" {
		out += " " + quote.Text(name, hintName)
	}
	return out + " [ref=" + l.ref + "]"
}

// clip shortens s to at most n runes, marking the cut with "…".
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// cutText cuts a text without lines (a diff) at a line boundary before max
// characters; Left says how many lines it left out.
func cutText(text string, max int) Rendered {
	if max <= 0 || len(text) <= max {
		return Rendered{Text: text}
	}
	cut := strings.LastIndexByte(text[:max], '\n') + 1
	left := strings.Count(text[cut:], "\n")
	if !strings.HasSuffix(text, "\n") {
		left++
	}
	return Rendered{
		Text: text[:cut], Truncated: true, Size: len(text), Left: left,
		Hint: fmt.Sprintf("the text was cut at %d of %d characters; %d more lines were left out. Read the rest with a subtree by ref, find, or a larger max_chars (-1 for no limit)", cut, len(text), left),
	}
}

// Ranked is [Snapshot.Find] with the best matches first: lines whose name
// is the query, then those where it is a whole word or words, then the
// rest; within each, elements that can be acted on before the others, and
// then the order of the page.
func (s *Snapshot) Ranked(query, role string) []string {
	lines := s.Find(query, role)
	q := strings.ToLower(query)
	rank := make(map[int]int, len(lines))
	for i, l := range lines {
		rank[i] = lineRank(l, q)
	}
	order := make([]int, len(lines))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return rank[a] - rank[b] })
	out := make([]string, len(lines))
	for i, j := range order {
		out[i] = lines[j]
	}
	return out
}

// lineRank orders a found line: 0 when its name is q, 2 when q is a whole
// word or words of it, 4 otherwise; one more when the line is not an
// element that can be acted on.
func lineRank(l, q string) int {
	role, name := splitLine(l)
	r := 4
	n := strings.ToLower(name)
	switch {
	case q == "" || n == q:
		r = 0
	case wholeWord(n, q):
		r = 2
	}
	if !interactiveRoles[role] && !strings.Contains(l, " [cursor=pointer]") {
		r++
	}
	return r
}

// splitLine takes a found line ("- role "name" …") apart into its role and
// its name as quoted (escapes left in).
func splitLine(l string) (role, name string) {
	l = strings.TrimPrefix(l, "- ")
	role, rest, _ := strings.Cut(l, " ")
	role = strings.TrimSuffix(role, ":")
	if !strings.HasPrefix(rest, `"`) {
		return role, ""
	}
	for i := 1; i < len(rest); i++ {
		switch rest[i] {
		case '\\':
			i++
		case '"':
			return role, rest[1:i]
		}
	}
	return role, ""
}

// wholeWord reports whether q occurs in s with no letter or digit right
// before or after it.
func wholeWord(s, q string) bool {
	for off := 0; ; {
		i := strings.Index(s[off:], q)
		if i < 0 {
			return false
		}
		i += off
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[i+len(q):])
		if !isWord(before) && !isWord(after) {
			return true
		}
		off = i + 1
	}
}

func isWord(r rune) bool {
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r))
}
