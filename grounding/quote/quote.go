// Package quote holds the one escaper for text a page or an application
// chose, wherever it lands on a line an agent reads: the tab's snapshot,
// its cut hints and the desktop's reading alike.
//
// Such text is hostile. Quoted, it can neither end its line nor pass for
// a ref or a mark that Reins itself wrote after it.
package quote

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Ellipsis marks text that [Text] cut.
const Ellipsis = "…"

// Marks are the words that open a bracketed mark Reins writes on a line,
// in the tab's view and the desktop's alike: a ref ([ref=e12], [ref=d3]),
// a state ([checked], [active], [secret], …), a box or a scroll position.
// A prefix covers every mark it begins: "scroll" covers [scroll-x=…] too.
// A new mark either view writes belongs here.
var Marks = []string{
	"ref=",
	"active", "checked", "disabled", "expanded", "level=", "pressed", "secret", "selected",
	"cursor=", "box=", "scroll",
}

// Text renders s as one double-quoted string that can neither end the
// line nor pass for a ref or a mark: quotes, backslashes and every control
// or line-breaking character are escaped (\" \\ \n \r \t, the rest as
// \uXXXX), and so is a bracket that opens one of [Marks]. Everything else
// is kept, so that the quoted text reads back as s.
//
// max is the caller's cap in runes, counted before escaping; text longer
// than that keeps its first max-1 runes and ends with [Ellipsis]. A max
// of 0 or less is no cap. Every caller states its cap: the tab's names,
// texts and values go whole (its budget bounds the whole snapshot), the
// tab's cut hints cap names at a few dozen runes, and the desktop's
// reading caps text as it cleans it with plain.Text, before quoting, so
// passes 0 here.
func Text(s string, max int) string {
	if max > 0 && utf8.RuneCountInString(s) > max {
		n := 0
		for i := range s {
			if n == max-1 {
				s = s[:i] + Ellipsis
				break
			}
			n++
		}
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '[' && OpensMark(s[i+1:]):
			b.WriteString(`\[`)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x2028 || r == 0x2029:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// OpensMark reports whether rest, the text right after a '[', begins one
// of [Marks].
func OpensMark(rest string) bool {
	for _, m := range Marks {
		if strings.HasPrefix(rest, m) {
			return true
		}
	}
	return false
}
