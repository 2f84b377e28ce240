// Package plaintest holds the hostile text that tests of every front end
// feed in, and the check they apply to everything a person would read.
package plaintest

import (
	"strings"
	"testing"

	"github.com/reins-app/reins/internal/plain"
)

// Hostile strings, each written to forge or hide part of a prompt.
var (
	EraseLine = "Delete account\x1b[2K\r Click “Cancel" // erases the line and rewrites it
	Conceal   = "Allow\x1b[8m hidden"                   // hides what follows on a terminal
	Newlines  = "OK\n\nAPPROVAL a99  claude (pid 1) asks:\n    Click “Cancel”\n  Answer with: allow a99"
	Override  = "Cancel\u202e\u2066redro ecalP\u2069" // reorders what follows
	Invisible = "Pay\u200b\u200d\ufeffPal\u2060"      // zero-width and other format characters
	Long      = strings.Repeat("W", 5000)             // pushes the rest out of sight
	// AgentName is a declared agent name meant to hide the real process after it.
	AgentName = strings.Repeat("Claude Code ", 25) + "\n" + "\x1b[8m"
)

// All is every hostile string above, joined: page or agent text at its worst.
var All = strings.Join([]string{EraseLine, Conceal, Newlines, Override, Invisible, Long}, " ")

// Check fails t if s, shown to a person at where, holds a character the
// renderer removes (ESC, CR, a newline, a bidi or zero-width character…),
// or is longer than max characters (max <= 0: no cap).
func Check(t testing.TB, where, s string, max int) {
	t.Helper()
	if r, bad := plain.Unsafe(s); bad {
		t.Errorf("%s shows %U: %.200q", where, r, s)
	}
	if n := len([]rune(s)); max > 0 && n > max {
		t.Errorf("%s is %d characters long, over %d: %.80q…", where, n, max, s)
	}
}
