package quote

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/reins-app/reins/internal/plain"
)

func TestText(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{`say "hi"`, 0, `"say \"hi\""`},
		{"a\r\n\tb", 0, `"a\r\n\tb"`},
		{"a\u0085b\u009bc\u2028", 0, `"a\u0085b\u009bc\u2028"`},
		{"Pay [ref=e2] [note]", 0, `"Pay \[ref=e2] [note]"`},
		// A mark either view writes is escaped in both.
		{"[secret][level=2][scroll-x=1/2][cursor=pointer]", 0, `"\[secret]\[level=2]\[scroll-x=1/2]\[cursor=pointer]"`},
		{"abcdef", 4, `"abc…"`},
		{"abcd", 4, `"abcd"`},
		{"ab[ref=e1]", 3, `"ab…"`},
		{"aaaa[ref=e1]", 6, `"aaaa[…"`},
		{"aaaa[ref=e1]", 11, `"aaaa\[ref=e…"`},
	} {
		if got := Text(c.in, c.max); got != c.want {
			t.Errorf("Text(%q, %d) = %s, want %s", c.in, c.max, got, c.want)
		}
	}
}

// FuzzEscape holds the escaper to its one promise, for the tab's seeds
// (testdata/fuzz) and the desktop's: whatever the text and the cap, the
// quoted string is one line, nothing in it parses as a ref or a mark, it
// closes only at its end, and uncapped it reads back as the text. The
// desktop's path, cleaning with plain.Text before quoting, holds it too.
func FuzzEscape(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string, cap int) {
		cap %= 1000
		for i, q := range []string{Text(s, cap), Text(plain.Text(s, cap), 0)} {
			back, err := check(q)
			if err != nil {
				t.Fatalf("Text(%q, %d) = %s: %v", s, cap, q, err)
			}
			// plain.Text caps characters, not runes: a combining mark
			// rides on the character before it.
			if i == 0 && cap > 0 && utf8.RuneCountInString(back) > cap {
				t.Fatalf("Text(%q, %d) = %s: %d runes, over the cap", s, cap, q, utf8.RuneCountInString(back))
			}
		}
		if back, _ := check(Text(s, 0)); back != asRead(s) {
			t.Fatalf("Text(%q, 0) reads back as %q", s, back)
		}
	})
}

// check reads q as an agent-side reader would and returns the text it
// carries: q must open and close with a quote and hold no raw quote, line
// break, control character or unescaped bracket that opens a mark between.
func check(q string) (string, error) {
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return "", errors.New("not one quoted string")
	}
	in := q[1 : len(q)-1]
	var b strings.Builder
	for i := 0; i < len(in); {
		r, size := utf8.DecodeRuneInString(in[i:])
		switch {
		case r == '"':
			return "", fmt.Errorf("raw quote at byte %d", i+1)
		case r == '[' && OpensMark(in[i+1:]):
			return "", fmt.Errorf("a mark opens at byte %d", i+1)
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029':
			return "", fmt.Errorf("raw %U at byte %d", r, i+1)
		case r == '\\':
			if i+1 >= len(in) {
				return "", errors.New("dangling backslash")
			}
			switch e := in[i+1]; e {
			case '"', '\\', '[':
				b.WriteByte(e)
				i += 2
			case 'n', 'r', 't':
				b.WriteByte(map[byte]byte{'n': '\n', 'r': '\r', 't': '\t'}[e])
				i += 2
			case 'u':
				if i+6 > len(in) {
					return "", errors.New(`short \u escape`)
				}
				v, err := strconv.ParseUint(in[i+2:i+6], 16, 32)
				if err != nil {
					return "", fmt.Errorf(`bad \u escape %q`, in[i:i+6])
				}
				b.WriteRune(rune(v))
				i += 6
			default:
				return "", fmt.Errorf("unknown escape \\%c", e)
			}
			continue
		}
		b.WriteRune(r)
		i += size
	}
	return b.String(), nil
}

// asRead is s as Go reads it: invalid UTF-8 as one U+FFFD per bad byte.
func asRead(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r)
	}
	return b.String()
}
