package clocale

import "testing"

func TestFixSpeaksForCLocalesWithACodesetOnly(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string // LANGUAGE after fix
	}{
		{map[string]string{}, ""},
		{map[string]string{"LANG": "C"}, ""},
		{map[string]string{"LANG": "POSIX"}, ""},
		{map[string]string{"LANG": "C.UTF-8"}, "en"},
		{map[string]string{"LANG": "C.utf8"}, "en"},
		{map[string]string{"LANG": "POSIX.UTF-8"}, "en"},
		{map[string]string{"LANG": "C@euro"}, "en"},
		{map[string]string{"LANG": "de_DE.UTF-8"}, ""},
		{map[string]string{"LANG": "Cy_GB.UTF-8"}, ""},
		{map[string]string{"LANG": "de_DE.UTF-8", "LC_ALL": "C.UTF-8"}, "en"},
		{map[string]string{"LANG": "C.UTF-8", "LC_ALL": "de_DE.UTF-8"}, ""},
		{map[string]string{"LANG": "C.UTF-8", "LC_MESSAGES": "fr_FR.UTF-8"}, ""},
		{map[string]string{"LANG": "fr_FR.UTF-8", "LC_MESSAGES": "C.UTF-8"}, "en"},
		{map[string]string{"LANG": "C.UTF-8", "LANGUAGE": "fr"}, "fr"},
	} {
		env := map[string]string{}
		for k, v := range c.env {
			env[k] = v
		}
		fix(func(k string) string { return env[k] }, func(k, v string) error { env[k] = v; return nil })
		if got := env["LANGUAGE"]; got != c.want {
			t.Errorf("%v: LANGUAGE=%q, want %q", c.env, got, c.want)
		}
	}
}
