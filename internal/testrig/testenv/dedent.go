package testenv

import "strings"

// Dedent lets an expected text sit indented in a test's source: the
// leading newline goes, and so do the tabs common to its non-blank lines;
// blank lines become empty. Indentation inside the text (the two spaces of
// a rendered tree) stays.
func Dedent(s string) string {
	s = strings.TrimPrefix(s, "\n")
	lines := strings.Split(s, "\n")
	common := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, "\t"))
		if common < 0 || n < common {
			common = n
		}
	}
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			lines[i] = ""
			continue
		}
		lines[i] = l[common:]
	}
	return strings.Join(lines, "\n")
}
