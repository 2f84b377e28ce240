// Package clocale lets fyne read the C locale quietly. Its only effect is
// its init, which must run before fyne.io/fyne/v2/lang's: the main package
// imports it for that side effect.
//
// fyne asks github.com/jeandeaual/go-locale for the person's languages when
// its lang package is initialised, in every mode of the binary, windows or
// not. That library takes the first of LC_ALL, LC_MESSAGES and LANG that is
// set; it understands "C" and "POSIX" (no language at all), but a C locale
// with a codeset ("C.UTF-8", Debian's default on servers and in CI) reaches
// fyne as the language "C", and fyne logs three lines of "Fyne error: Error
// parsing user locale C" on stderr: into an agent's log from `reins mcp`,
// into Chrome's from the pairing helper.
//
// A C locale means untranslated messages, which are English; so when the
// locale in force is a C locale with a codeset and LANGUAGE is not set,
// LANGUAGE=en says that in the words the library reads (programs Reins
// starts inherit it, which changes nothing for them: under a C locale their
// messages were untranslated English already). Every other locale
// is left as the person set it (de_DE.UTF-8 stays German), and a locale
// that really is malformed is still reported by fyne.
//
// Go initialises, one at a time, the package first in import-path order
// whose imports are all initialised. This one needs only os and strings;
// fyne's lang needs text/template and golang.org/x/text/language too, which
// sort after this path and need os themselves, so this init runs before
// theirs and therefore before lang's. The tests check it with fyne's own
// lookup, and on the binary.
package clocale

import (
	"os"
	"strings"
)

func init() { fix(os.Getenv, os.Setenv) }

// fix sets LANGUAGE=en when the locale in force is a C locale with a
// codeset or modifier and LANGUAGE is empty.
func fix(getenv func(string) string, setenv func(string, string) error) {
	if getenv("LANGUAGE") != "" {
		return // the library reads it instead, unless the locale is plain C
	}
	for _, name := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		v := getenv(name)
		if v == "" {
			continue
		}
		if isCWithSuffix(v) {
			setenv("LANGUAGE", "en")
		}
		return
	}
}

// isCWithSuffix reports whether v names the C (or POSIX) locale with a
// codeset or modifier after it, such as "C.UTF-8" or "POSIX@euro"; plain
// "C" and "POSIX" are already understood.
func isCWithSuffix(v string) bool {
	base, _, _ := strings.Cut(v, "@")
	base, _, _ = strings.Cut(base, ".")
	return (base == "C" || base == "POSIX") && base != v
}
