// Package plain renders text that a page or an agent wrote for a person to
// read: in the approval popup, on the serve terminal, in the tray menu, the
// activity strips, the audit viewer and `reins audit`.
//
// Such text is hostile. Whatever it holds, what [Text] returns is one line
// of at most the given number of characters, with no control characters
// (C0, C1, DEL), no bidirectional overrides, embeddings or isolates, no
// zero-width or other invisible format characters, no line or paragraph
// breaks, and no run of combining marks long enough to draw over its
// neighbours. It cannot move a terminal's cursor, erase a line, hide what
// follows, reorder what the person reads or push the rest of a line out of
// sight. Every front end calls this package; none cleans text on its own.
package plain

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Length caps for the kinds of text people read, in characters.
const (
	NameMax   = 80  // an element's name, a role, a window's title
	TitleMax  = 80  // a tab's title
	AgentMax  = 40  // an agent's declared name
	URLMax    = 160 // a URL or origin
	TypedMax  = 200 // text an agent wants to type, shown before it is typed
	ClaimMax  = 120 // an agent's own words for a target
	DetailMax = 200 // an error's or refusal's detail
)

// Ellipsis marks text that was cut.
const Ellipsis = "…"

// maxMarks is how many combining marks may follow one base character.
const maxMarks = 3

// Text returns s as one safe line of at most max characters; max <= 0
// means no cap. A character is a rune other than a combining mark: the few
// marks kept ride on the character before them. Invalid UTF-8 becomes U+FFFD. Text(Text(s, n), n) ==
// Text(s, n).
func Text(s string, max int) string {
	var b strings.Builder
	if max > 0 {
		b.Grow(min(len(s), 4*max+4))
	} else {
		b.Grow(len(s))
	}
	space := false // a space is owed before the next visible character
	marks := 0
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r > ' ' && r < 0x7f:
			// printable ASCII, the common case: shown as it is
		case isSpace(r):
			space = n > 0
			marks = 0
			continue
		case hidden(r):
			continue
		case unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r):
			if n == 0 || space || marks >= maxMarks {
				continue
			}
			marks++
			b.WriteRune(r)
			continue
		}
		if space {
			if max > 0 && n+1 >= max {
				return cut(b.String(), n, max)
			}
			b.WriteByte(' ')
			n++
			space = false
		}
		if max > 0 && n >= max {
			return cut(b.String(), n, max)
		}
		b.WriteRune(r)
		n++
		marks = 0
	}
	return b.String()
}

// cut ends text of n characters that more text would take past max with
// the ellipsis, in place of its last character if there is no room.
func cut(s string, n, max int) string {
	trim := func(s string) string {
		return strings.TrimRightFunc(s, func(r rune) bool {
			return r == ' ' || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r)
		})
	}
	if n >= max {
		s = trim(s)
		_, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
	}
	return trim(s) + Ellipsis
}

// isSpace reports whether r separates words: every Unicode space, and the
// line breaks and tabs that are folded into one space.
func isSpace(r rune) bool {
	return unicode.IsSpace(r) || unicode.Is(unicode.Zl, r) || unicode.Is(unicode.Zp, r)
}

// hidden reports whether r is dropped: controls, format characters (bidi
// controls, zero-width characters, soft hyphens, tags), private-use and
// unassigned code points, surrogates and non-characters.
func hidden(r rune) bool {
	switch {
	case r == utf8.RuneError:
		return false // shown, so that broken input is visible as broken
	case unicode.IsControl(r), unicode.Is(unicode.Cf, r), unicode.Is(unicode.Co, r), unicode.Is(unicode.Cs, r):
		return true
	case r >= 0xFDD0 && r <= 0xFDEF, r&0xFFFE == 0xFFFE:
		return true
	case r == 0x115F || r == 0x1160 || r == 0x3164 || r == 0xFFA0: // Hangul fillers: blank but not spaces
		return true
	case r == 0x034F: // combining grapheme joiner
		return true
	case !unicode.Is(unicode.L, r) && !unicode.Is(unicode.M, r) && !unicode.Is(unicode.N, r) &&
		!unicode.Is(unicode.P, r) && !unicode.Is(unicode.S, r) && !unicode.Is(unicode.Z, r):
		return true // unassigned in this Go's Unicode tables
	}
	return false
}

// Quote returns page or agent text as quoted text: “…”, cleaned and capped
// as [Text] does (the quotes not counted). Curly double quotes inside
// become straight ones, so the text cannot seem to end and start another.
func Quote(s string, max int) string {
	return "“" + quoteInner(s, max) + "”"
}

func quoteInner(s string, max int) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '“', '”', '„', '‟', '〝', '〞', '＂':
			return '"'
		}
		return r
	}, Text(s, max))
}

// Process names a connecting program by what the system says it is: the
// executable's base name and its pid, "python3 (pid 999)". The name is
// cleaned but never cut: it is what the person checks.
func Process(exe string, pid int) string {
	if i := strings.LastIndexAny(exe, `/\`); i >= 0 {
		exe = exe[i+1:]
	}
	exe = Text(exe, 0)
	if exe == "" {
		exe = "unknown program"
	}
	if pid == 0 {
		return exe
	}
	return fmt.Sprintf("%s (pid %d)", exe, pid)
}

// Who is how a person reads an agent: the real process first, whole, then
// the name the agent gave, quoted and cut to AgentMax. With no pid known
// (an agent over HTTP from an unknown process) only the declared name is
// shown, marked as the agent's.
func Who(exe string, pid int, declared string) string {
	name := Text(declared, AgentMax)
	switch {
	case pid == 0 && name == "":
		return "an unnamed agent"
	case pid == 0:
		return "agent calling itself " + Quote(name, 0)
	case name == "":
		return Process(exe, pid)
	}
	return Process(exe, pid) + " · " + Quote(name, 0)
}

// Claim labels an agent's own words for what it is acting on, which Reins
// has not checked: the agent says “…”.
func Claim(s string) string {
	s = Text(s, ClaimMax)
	if s == "" {
		return ""
	}
	return "the agent says " + Quote(s, 0)
}

// Field renders a record's value for a line such as `reins audit` prints,
// where the reader must tell one field from the next: cleaned and capped
// like Text, and empty as "-".
func Field(s string, max int) string {
	if s = Text(s, max); s == "" {
		return "-"
	}
	return s
}

// Role renders an element's role, which the page chose: a plain ARIA role
// token (letters and hyphens) as it is, anything else quoted as page text,
// so that no role can pass for Reins' own words.
func Role(r string) string {
	if r == "" {
		return ""
	}
	token := len(r) <= NameMax
	for _, c := range r {
		if (c < 'a' || c > 'z') && c != '-' {
			token = false
			break
		}
	}
	if token {
		return r
	}
	return Quote(r, NameMax)
}

// App names an application on screen the way a person checks it: the
// process (executable and pid) in full, after the application's own name
// when that says something else, as in "Google Chrome · chrome (pid 41)".
func App(name, exe string, pid int) string {
	name = Text(name, NameMax)
	if exe == "" && pid == 0 {
		if name == "" {
			return "an unknown application"
		}
		return name
	}
	if exe == "" {
		exe = name
	}
	proc := Process(exe, pid)
	base, _, _ := strings.Cut(proc, " (pid ")
	if name == "" || strings.EqualFold(name, base) {
		return proc
	}
	return name + " · " + proc
}

// JSON makes JSON text safe to print on a terminal without changing what it
// decodes to: every character [Text] would drop or fold (controls, format
// and bidi characters, line separators, odd spaces) becomes a \u escape.
// encoding/json already escapes C0 controls, but leaves C1 controls and
// U+202E as they are. b must be valid JSON; such characters can only stand
// inside its strings.
func JSON(b []byte) []byte {
	var out []byte
	last := 0
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		// ASCII controls but DEL are either escaped by any encoder or, as
		// \t \n \r, the JSON's own whitespace between values.
		if r < utf8.RuneSelf && r != 0x7f || r == utf8.RuneError || !(hidden(r) || isSpace(r)) {
			i += size
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(b)+16)
		}
		out = append(out, b[last:i]...)
		if r > 0xFFFF {
			r1, r2 := utf16.EncodeRune(r)
			out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
		} else {
			out = fmt.Appendf(out, `\u%04x`, r)
		}
		i += size
		last = i
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// Unsafe reports the first character in s that [Text] would not let
// through: a control, format or bidi character, an invisible code point, or
// any space but U+0020. Front ends' tests use it on everything they show.
func Unsafe(s string) (rune, bool) {
	for _, r := range s {
		if r != ' ' && (hidden(r) || isSpace(r)) {
			return r, true
		}
	}
	return 0, false
}

// LineBreak is how a line break in text an agent wants typed is shown: it
// is an Enter, and no one is to read it as a space.
const LineBreak = "⏎"

// Typed renders text an agent wants typed as [Text] does, with every line
// break ("\n", "\r\n") shown as [LineBreak] rather than folded away: the
// person must see each Enter the text presses. Other breaks and controls
// are never typed (the executor refuses them) and fold as [Text] folds them.
func Typed(s string, max int) string {
	return Text(showBreaks(s), max)
}

// QuoteTyped is [Typed] in quotes, as [Quote] quotes.
func QuoteTyped(s string, max int) string {
	return Quote(showBreaks(s), max)
}

// TypedLines renders text an agent wants typed whole, for a person to read
// before it is typed: one cleaned line per line of the text, uncut, each
// but the last ending in [LineBreak].
func TypedLines(s string) []string {
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = Text(l, 0)
		if i < len(lines)-1 {
			out[i] += LineBreak
		}
	}
	return out
}

func showBreaks(s string) string {
	if !strings.Contains(s, "\n") {
		return s
	}
	// A break between two words shows as the mark alone; the words' own
	// spaces stay.
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", LineBreak)
}
