package core

import (
	"fmt"
	"strings"

	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/grounding/quote"
	"github.com/reins-app/reins/internal/plain"
)

// An act's answer tells what the act did: the element acted on, what came
// up (a dialog, an alert), where the focus went if not where the act was,
// a navigation, and the changes around the element. It leaves out
// bookkeeping (focus arriving where the act was, leaving the element that
// had it), counts the changes of what keeps changing on its own, and, when
// the page changed in many places, counts the changes far from the act
// instead of listing them: browser_snapshot shows the whole page.

// listAll is how many changed lines an answer lists in full, wherever
// they are on the page.
const listAll = 12

// answerRoles are the containers whose changes an answer always lists:
// what came up for the agent to read or answer.
var answerRoles = map[string]bool{"dialog": true, "alertdialog": true, "alert": true, "status": true, "log": true}

// nearRoles are the containers that hold an element's neighbours: its
// changes are listed with the act's, the rest of the page's counted.
var nearRoles = map[string]bool{
	"form": true, "dialog": true, "alertdialog": true, "table": true, "grid": true, "treegrid": true,
	"list": true, "listbox": true, "tree": true, "menu": true, "menubar": true, "tablist": true,
	"radiogroup": true, "feed": true, "article": true, "region": true, "search": true, "group": true,
	"banner": true, "navigation": true, "main": true, "contentinfo": true, "complementary": true,
}

// churnWords says in one line what kept changing on its own and was not
// waited for, and how many of its changes the answer left out. The words
// are the page's: quoted as every agent-read line quotes them.
func churnWords(churn []protocol.Churn, left int) string {
	var spots []string
	for _, c := range churn {
		w := plain.Quote(c.Text, plain.NameMax)
		if c.Every > 0 {
			w += fmt.Sprintf(" (about every %d ms)", c.Every)
		}
		spots = append(spots, w)
	}
	line := "Not waited for, since it keeps changing on its own: " + strings.Join(spots, ", ")
	if left > 0 {
		line += fmt.Sprintf("; %d %s of it not listed (browser_snapshot shows the page as it stands)", left, plural(left, "change", "changes"))
	}
	return line + "."
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// actChanges is what an act's answer is made from.
type actChanges struct {
	diff   string           // the diff of the page from before the act to after it
	target string           // the ref of the element acted on; "" when none or unknown
	churn  []protocol.Churn // what keeps changing on its own
	// before and after are the snapshots' text either side of the act,
	// which place each changed line on the page; "" when unknown.
	before, after string
}

// effectOnly keeps of an act's diff what the act did; churned counts the
// changes of what keeps changing on its own, far those far from the act,
// both left out.
//
// Focus moving onto the act's target and off the element that had it is
// bookkeeping and goes unsaid; focus arriving anywhere else stays, as do
// the target's new state and every other change near it. A churn change is
// a line that went and one that appeared alike but for their figures,
// where one of churn's words stand. When more than listAll lines are left,
// those outside the target's container (a form, a list, a landmark) and
// outside any dialog, alert or status are counted instead.
func effectOnly(c actChanges) (kept string, churned, far int) {
	if c.diff == "" {
		return "", 0, 0
	}
	type line struct {
		text, norm string
		gone, drop bool
	}
	var lines []line
	for _, l := range strings.Split(strings.TrimSuffix(c.diff, "\n"), "\n") {
		gone := strings.HasPrefix(l, "- ")
		norm := l[min(2, len(l)):]
		mine := c.target != "" && refOf(norm) == c.target
		if gone || mine {
			norm = strings.Replace(norm, " [active]", "", 1)
		}
		if !gone && mine {
			l = "+ " + norm // the focus arriving where the act was goes unsaid
		}
		lines = append(lines, line{text: l, norm: norm, gone: gone})
	}
	// A line that went and one that appeared alike, once focus is set
	// aside, are no change.
	for i := range lines {
		if !lines[i].gone || lines[i].drop {
			continue
		}
		for j := range lines {
			if !lines[j].gone && !lines[j].drop && lines[j].norm == lines[i].norm {
				lines[i].drop, lines[j].drop = true, true
				break
			}
		}
	}
	var shapes []string
	for _, ch := range c.churn {
		if sh := figureless(ch.Text); len(sh) >= 4 {
			shapes = append(shapes, sh)
		}
	}
	isChurn := func(norm string) bool {
		sh := figureless(norm)
		for _, c := range shapes {
			if strings.Contains(sh, c) {
				return true
			}
		}
		return false
	}
	for i := range lines {
		if !lines[i].gone || lines[i].drop || !isChurn(lines[i].norm) {
			continue
		}
		for j := range lines {
			if !lines[j].gone && !lines[j].drop && figureless(lines[j].norm) == figureless(lines[i].norm) {
				lines[i].drop, lines[j].drop = true, true
				churned++
				break
			}
		}
	}
	left := 0
	for _, l := range lines {
		if !l.drop {
			left++
		}
	}
	if left > listAll && c.target != "" {
		nearBefore, nearAfter := around(c.before, c.target), around(c.after, c.target)
		if nearBefore != nil || nearAfter != nil {
			for i, l := range lines {
				near := nearAfter
				if l.gone {
					near = nearBefore
				}
				own := l.text[min(2, len(l.text)):]
				switch {
				case l.drop:
				case near[own] > 0:
					near[own]--
				case !l.gone && strings.Contains(own, " [active]"):
					// Focus gone somewhere the act did not take it.
				default:
					lines[i].drop = true
					far++
				}
			}
		}
	}
	var b strings.Builder
	for _, l := range lines {
		if !l.drop {
			b.WriteString(l.text + "\n")
		}
	}
	return b.String(), churned, far
}

// around is the lines of a snapshot's text near the element with ref: the
// subtree of its nearest container of nearRoles, and of every dialog,
// alert or status on the page, each line as a diff gives it, counted; nil
// when the element is not in text or sits in no container.
func around(text, ref string) map[string]int {
	if text == "" {
		return nil
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	depth := func(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }
	at := -1
	for i, l := range lines {
		if refOf(l) == ref {
			at = i
			break
		}
	}
	if at < 0 {
		return nil
	}
	box := -1
	for j, d := at-1, depth(lines[at]); j >= 0; j-- {
		if depth(lines[j]) < d {
			d = depth(lines[j])
			if nearRoles[roleOf(lines[j])] {
				box = j
				break
			}
		}
	}
	if box < 0 {
		return nil
	}
	near := map[string]int{}
	subtree := func(i int) int {
		d := depth(lines[i])
		near[strings.TrimLeft(lines[i], " ")]++
		k := i + 1
		for ; k < len(lines) && depth(lines[k]) > d; k++ {
			near[strings.TrimLeft(lines[k], " ")]++
		}
		return k
	}
	subtree(box)
	for i := 0; i < len(lines); i++ {
		if answerRoles[roleOf(lines[i])] {
			i = subtree(i) - 1
		}
	}
	return near
}

// roleOf is the role a rendered line names: "- button "Save" [ref=e2]"
// is a button's.
func roleOf(l string) string {
	l = strings.TrimPrefix(strings.TrimLeft(l, " "), "- ")
	if i := strings.IndexAny(l, " :"); i >= 0 {
		l = l[:i]
	}
	return l
}

// refOf is the ref a rendered line gives its element, or "". Page text
// cannot forge one: a snapshot escapes a bracket that opens a marker.
func refOf(l string) string {
	i := strings.LastIndex(l, "[ref=")
	if i < 0 {
		return ""
	}
	j := strings.IndexByte(l[i:], ']')
	if j < 0 {
		return ""
	}
	return l[i+len("[ref=") : i+j]
}

// figureless is text with its runs of figures folded and its spaces
// closed up, as the extension tells churn apart from news.
func figureless(s string) string {
	var b strings.Builder
	digits, space := false, false
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			if !digits {
				b.WriteByte('0')
			}
			digits, space = true, false
			continue
		case r == ' ' || r == '\t' || r == '\n':
			if !space {
				b.WriteByte(' ')
			}
			digits, space = false, true
			continue
		}
		digits, space = false, false
		b.WriteRune(r)
	}
	return b.String()
}

// holdingTyped takes out of diff, an act's changes, every field that now
// holds exactly the text typed into it (its line went and came back with
// that value), and counts them: the answer says so in a few words instead
// of three lines each. A value that is not the text typed (a field that
// reformats, one that held text before) stays in diff, shown as it is.
// Where a field was typed into more than once, the last text counts.
func holdingTyped(diff string, typed []typedInto) (rest string, n int) {
	if diff == "" || len(typed) == 0 {
		return diff, 0
	}
	last := map[string]string{}
	for _, t := range typed {
		last[t.ref] = t.text
	}
	lines := strings.Split(strings.TrimSuffix(diff, "\n"), "\n")
	drop := make([]bool, len(lines))
	own := func(l string) string { return strings.TrimPrefix(strings.TrimSpace(l[min(2, len(l)):]), "- ") }
	for ref, text := range last {
		if ref == "" {
			continue
		}
		want := "/value: " + quote.Text(text, 0)
		went, came := -1, -1
		for i, l := range lines {
			if drop[i] || refOf(own(l)) != ref {
				continue
			}
			if strings.HasPrefix(l, "- ") {
				went = i
			} else if strings.HasPrefix(l, "+ ") {
				came = i
			}
		}
		v := came + 1
		if went < 0 || came < 0 || v >= len(lines) || drop[v] || !strings.HasPrefix(lines[v], "+ ") || own(lines[v]) != want {
			continue
		}
		drop[went], drop[came], drop[v] = true, true, true
		n++
	}
	if n == 0 {
		return diff, 0
	}
	var b strings.Builder
	for i, l := range lines {
		if !drop[i] {
			b.WriteString(l + "\n")
		}
	}
	return b.String(), n
}
