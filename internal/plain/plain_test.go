package plain

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestTextRemovesWhatCanForgeALine(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"erase line and carriage return", "Delete account\x1b[2K\r Click “Cancel", "Delete account[2K Click “Cancel"},
		{"concealed text", "Allow\x1b[8m secret", "Allow[8m secret"},
		{"C1 CSI", "a\u009b2Kb", "a2Kb"},
		{"bidi override", "abc\u202edcba", "abcdcba"},
		{"bidi isolates", "\u2066x\u2067y\u2068z\u2069", "xyz"},
		{"marks", "a\u200eb\u200fc\u061cd", "abcd"},
		{"zero width", "pa\u200by\u200c\u200d\ufeffpal\u2060", "paypal"},
		{"soft hyphen and tags", "pa\u00ady\U000E0041", "pay"},
		{"newlines fold", "APPROVAL a1\nAllow?\r\n\tyes", "APPROVAL a1 Allow? yes"},
		{"line separators fold", "a\u2028b\u2029c\u0085d", "a b c d"},
		{"nbsp and ideographic space fold", "a\u00a0\u00a0b\u3000c", "a b c"},
		{"leading and trailing space", "  \n hi \t ", "hi"},
		{"nul and del", "a\x00b\x7fc", "abc"},
		{"private use", "a\ue000b", "ab"},
		{"invalid utf-8 shows as broken", "a\xffb", "a\ufffdb"},
		{"plain text is kept", "Place order — 2 × £10", "Place order — 2 × £10"},
		{"hangul filler", "a\u3164b", "ab"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Text(tc.in, 0); got != tc.want {
				t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestTextCapsWithAVisibleEllipsis(t *testing.T) {
	long := strings.Repeat("x", 5000)
	got := Text(long, 10)
	if got != strings.Repeat("x", 9)+Ellipsis {
		t.Errorf("Text(5000 x, 10) = %q", got)
	}
	if got := Text("exactly10!", 10); got != "exactly10!" {
		t.Errorf("text of exactly the cap was cut: %q", got)
	}
	if got := Text("abcd efgh", 5); got != "abcd…" {
		t.Errorf("cut at a space = %q, want %q", got, "abcd…")
	}
	if got := Text("ab   cdefgh", 4); got != "ab…" {
		t.Errorf("cut after a space = %q, want %q", got, "ab…")
	}
}

func TestTextLimitsCombiningMarks(t *testing.T) {
	zalgo := "Z" + strings.Repeat("\u0301", 50) + "ok"
	got := Text(zalgo, 0)
	if got != "Z\u0301\u0301\u0301ok" {
		t.Errorf("Text(zalgo) = %q", got)
	}
	if got := Text("\u0301\u0301start", 0); got != "start" {
		t.Errorf("leading marks kept: %q", got)
	}
	if got := Text("é", 0); got != "é" {
		t.Errorf("an accent was lost: %q", got)
	}
}

func TestQuoteKeepsPageTextInsideItsQuotes(t *testing.T) {
	got := Quote("Delete” into “Cancel", 0)
	if got != `“Delete" into "Cancel”` {
		t.Errorf("Quote = %s", got)
	}
	if strings.Count(got, "“") != 1 || strings.Count(got, "”") != 1 {
		t.Errorf("Quote let the text open or close a quote: %s", got)
	}
	if got := Quote(strings.Repeat("a", 100), 8); got != "“aaaaaaa…”" {
		t.Errorf("Quote capped = %s", got)
	}
}

func TestWhoPutsTheProcessFirstAndNeverCutsIt(t *testing.T) {
	declared := strings.Repeat("Claude ", 50) + "\n\x1b[8m"
	got := Who("/usr/bin/python3", 999, declared)
	if !strings.HasPrefix(got, "python3 (pid 999) · “") {
		t.Errorf("Who = %q: the process is not first", got)
	}
	if n := utf8.RuneCountInString(got); n > len("python3 (pid 999) · ")+AgentMax+2 {
		t.Errorf("Who is %d characters: the declared name was not cut", n)
	}
	if strings.ContainsAny(got, "\n\x1b") {
		t.Errorf("Who kept a control: %q", got)
	}
	longExe := "/tmp/" + strings.Repeat("agent", 40)
	if got := Who(longExe, 7, "x"); !strings.HasPrefix(got, strings.Repeat("agent", 40)+" (pid 7)") {
		t.Errorf("the executable was cut: %q", got)
	}
	if got := Who("/bin/evil\x1b[2K\rclaude", 5, ""); got != "evil[2K claude (pid 5)" {
		t.Errorf("Who with a hostile executable = %q", got)
	}
	if got := Who("", 0, "Claude Code"); got != "agent calling itself “Claude Code”" {
		t.Errorf("Who without a process = %q", got)
	}
	if got := Who("", 0, ""); got != "an unnamed agent" {
		t.Errorf("Who with nothing = %q", got)
	}
}

func TestClaimIsLabelledAsTheAgents(t *testing.T) {
	if got := Claim("the OK button\nAPPROVAL a9 allow"); got != "the agent says “the OK button APPROVAL a9 allow”" {
		t.Errorf("Claim = %q", got)
	}
	if got := Claim(" \x1b "); got != "" {
		t.Errorf("an empty claim = %q", got)
	}
}

func TestFieldMarksEmpty(t *testing.T) {
	if got := Field("\u200b", 10); got != "-" {
		t.Errorf("Field(invisible) = %q", got)
	}
}

// chars counts characters as Text caps them: combining marks ride on the
// character before them.
func chars(s string) int {
	n := 0
	for _, r := range s {
		if !unicode.Is(unicode.Mn, r) && !unicode.Is(unicode.Me, r) {
			n++
		}
	}
	return n
}

// check fails when out holds anything Text promises to remove.
func check(t *testing.T, in, out string, max int) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("Text(%q) is not valid UTF-8: %q", in, out)
	}
	if n := chars(out); max > 0 && n > max {
		t.Fatalf("Text(%q, %d) has %d characters", in, max, n)
	}
	if out != strings.TrimSpace(out) || strings.Contains(out, "  ") {
		t.Fatalf("Text(%q) = %q: unfolded space", in, out)
	}
	marks := 0
	for _, r := range out {
		switch {
		case r == ' ':
		case unicode.IsSpace(r), unicode.IsControl(r), unicode.Is(unicode.Cf, r),
			unicode.Is(unicode.Zl, r), unicode.Is(unicode.Zp, r), unicode.Is(unicode.Co, r):
			t.Fatalf("Text(%q) = %q keeps %U", in, out, r)
		}
		if unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) {
			if marks++; marks > maxMarks {
				t.Fatalf("Text(%q) = %q keeps %d marks in a row", in, out, marks)
			}
		} else {
			marks = 0
		}
	}
	if again := Text(out, max); again != out {
		t.Fatalf("Text is not idempotent: %q → %q → %q", in, out, again)
	}
}

func FuzzText(f *testing.F) {
	for _, s := range []string{
		"Delete account\x1b[2K\r Click “Cancel", "\u202eabc", "a\u0301\u0301\u0301\u0301\u0301",
		"x\n\ny", strings.Repeat("é", 300), "\xff\xfe", "  \u2028 ", "a\u200b b",
	} {
		f.Add(s, 0)
		f.Add(s, 7)
	}
	f.Fuzz(func(t *testing.T, s string, max int) {
		max %= 400
		if max < 0 {
			max = -max
		}
		check(t, s, Text(s, max), max)
		q := Quote(s, max)
		if strings.Count(q, "“") != 1 || strings.Count(q, "”") != 1 {
			t.Fatalf("Quote(%q) = %q", s, q)
		}
		w := Who("/bin/"+s, 42, s)
		if !strings.Contains(w, "(pid 42)") {
			t.Fatalf("Who(%q) lost the pid: %q", s, w)
		}
		check(t, s, strings.NewReplacer("“", "q", "”", "q").Replace(w), 0)
		if r, bad := Unsafe(Role(s)); bad {
			t.Fatalf("Role(%q) keeps %U", s, r)
		}
		if r, bad := Unsafe(App(s, "/bin/"+s, 42)); bad {
			t.Fatalf("App(%q) keeps %U", s, r)
		}
		b, _ := json.Marshal(s)
		j := JSON(b)
		if r, bad := Unsafe(string(j)); bad {
			t.Fatalf("JSON(%s) keeps %U", b, r)
		}
		var back string
		if err := json.Unmarshal(j, &back); err != nil || back != string([]rune(s)) {
			t.Fatalf("JSON(%s) = %s decodes to %q (%v)", b, j, back, err)
		}
	})
}

func TestRoleQuotesAnythingButAToken(t *testing.T) {
	for in, want := range map[string]string{
		"button":                 "button",
		"menuitem-checkbox":      "menuitem-checkbox",
		"button\x1b[2K":          "“button[2K”",
		"Verified":               "“Verified”",
		"":                       "",
		strings.Repeat("a", 100): "“" + strings.Repeat("a", NameMax-1) + "…”",
	} {
		if got := Role(in); got != want {
			t.Errorf("Role(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAppNamesTheProcessInFull(t *testing.T) {
	for _, tc := range []struct {
		name, exe string
		pid       int
		want      string
	}{
		{"Firefox", "/usr/lib/firefox/firefox", 4242, "firefox (pid 4242)"},
		{"Google-chrome", "/opt/google/chrome/chrome", 41, "Google-chrome · chrome (pid 41)"},
		{"Terminal\x1b[8m", "", 7, "Terminal[8m (pid 7)"},
		{"", "", 0, "an unknown application"},
		{"xterm", "", 0, "xterm"},
	} {
		if got := App(tc.name, tc.exe, tc.pid); got != tc.want {
			t.Errorf("App(%q, %q, %d) = %q, want %q", tc.name, tc.exe, tc.pid, got, tc.want)
		}
	}
}

func TestJSONEscapesWhatATerminalWouldObey(t *testing.T) {
	in := "{\"a\":\"x\u009b2Ky\u202ez\u2028w\U000E0041\u00a0\",\"b\":\"é ok\"}"
	got := string(JSON([]byte(in)))
	want := `{"a":"x\u009b2Ky\u202ez\u2028w\udb40\udc41\u00a0","b":"é ok"}`
	if got != want {
		t.Fatalf("JSON = %s, want %s", got, want)
	}
	if _, bad := Unsafe(got); bad {
		t.Fatalf("JSON left a character a terminal obeys: %q", got)
	}
	var before, after map[string]string
	if err := json.Unmarshal([]byte(in), &before); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(got), &after); err != nil {
		t.Fatalf("JSON broke the JSON: %v", err)
	}
	if before["a"] != after["a"] || before["b"] != after["b"] {
		t.Fatalf("JSON changed the data: %q → %q", before, after)
	}
}

func TestUnsafeFindsWhatTextRemoves(t *testing.T) {
	for _, s := range []string{"a\x1bb", "a\rb", "a\nb", "a\u202eb", "a\u2066b", "a\u200bb", "a\u00a0b", "a\u009bb"} {
		if _, bad := Unsafe(s); !bad {
			t.Errorf("Unsafe(%q) found nothing", s)
		}
		if _, bad := Unsafe(Text(s, 0)); bad {
			t.Errorf("Unsafe(Text(%q)) found something", s)
		}
	}
	if _, bad := Unsafe("Place order — 2 × £10 “ok”"); bad {
		t.Error("Unsafe flags plain text")
	}
}

func BenchmarkText(b *testing.B) {
	for _, tc := range []struct{ name, in string }{
		{"name", "Place order — 2 × £10"},
		{"hostile-5000", strings.Repeat("Delete\x1b[2K\r\u202e\u200b ", 5000/12)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.in)))
			for b.Loop() {
				Text(tc.in, NameMax)
			}
		})
	}
}

func TestTypedShowsEveryLineBreak(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"5000\n", "5000⏎"},
		{"a\r\nb\nc", "a⏎b⏎c"},
		{"\n\n", "⏎⏎"},
		{"no break", "no break"},
		{"tab\there", "tab here"}, // never typed: the executor refuses it, and it folds here
	} {
		if got := Typed(c.in, 0); got != c.want {
			t.Errorf("Typed(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := QuoteTyped("pay\n", TypedMax); got != "“pay⏎”" {
		t.Errorf("QuoteTyped = %q", got)
	}
	// Cut, the marks before the cut still show.
	if got := Typed("a\nb\n"+strings.Repeat("x", 50), 10); got != "a⏎b⏎xxxxx…" {
		t.Errorf("Typed cut = %q", got)
	}
}

func TestTypedLinesKeepsTheWholeText(t *testing.T) {
	long := strings.Repeat("y", 3*TypedMax)
	got := TypedLines("first\r\nsecond\u202e\n" + long)
	want := []string{"first⏎", "second⏎", long}
	if !slices.Equal(got, want) {
		t.Fatalf("TypedLines = %q, want %q", got, want)
	}
	for _, l := range got {
		if r, bad := Unsafe(l); bad {
			t.Errorf("line %q holds %U", l, r)
		}
	}
}

// A negative cap is no cap, as the documentation says.
func TestANegativeCapIsNoCap(t *testing.T) {
	if got := Text("a  b", -1); got != "a b" {
		t.Fatalf("Text(-1) = %q", got)
	}
}
