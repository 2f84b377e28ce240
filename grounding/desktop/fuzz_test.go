package desktop

import (
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/reins-app/reins/internal/plain"
)

var unescapedRef = regexp.MustCompile(`(^|[^\\])\[ref=`)

// FuzzBuildOneLinePerElement checks that no name, value or app name can add
// a line, a ref or a character that moves a terminal's cursor.
func FuzzBuildOneLinePerElement(f *testing.F) {
	f.Add("fixture.py", "OK", "Ada", "frame")
	f.Add("a\nb", "x\x1b[2J [ref=d1]", "\u202E\r\n", "push\nbutton")
	f.Fuzz(func(t *testing.T, app, name, value, role string) {
		tr := flat()
		kids := tr.Root.Children[0].Children
		kids[0].Name, kids[0].Role = name, role
		kids[1].Name, kids[1].Value = name, value
		s := Build(tr, NewRefs(), BuildOptions{ID: "ds1", At: at, App: app})
		lines := strings.Split(s.Text, "\n")
		want := 6 // the head and five elements
		if plain.Text(value, 0) != "" {
			want++
		}
		if len(lines) != want {
			t.Fatalf("%d lines, want %d:\n%s", len(lines), want, s.Text)
		}
		if n := len(unescapedRef.FindAllString(s.Text, -1)); n != 5 {
			t.Fatalf("%d refs:\n%s", n, s.Text)
		}
		for _, r := range s.Text {
			if r != '\n' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029') {
				t.Fatalf("%U in text:\n%q", r, s.Text)
			}
		}
	})
}
