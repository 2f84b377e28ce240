package clocale_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"fyne.io/fyne/v2/lang"

	_ "github.com/reins-app/reins/app/cmd/reins/internal/clocale"
)

// With REINS_CLOCALE_HELPER set, the test binary only prints the locale
// fyne found: by then both inits have run, in the order the binary has.
func TestMain(m *testing.M) {
	if os.Getenv("REINS_CLOCALE_HELPER") != "" {
		fmt.Println(lang.SystemLocale())
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestFyneFindsThePersonsLocaleQuietly runs fyne's own locale lookup under
// each environment, as every mode of the reins binary does at start.
func TestFyneFindsThePersonsLocaleQuietly(t *testing.T) {
	for _, c := range []struct {
		env  []string
		want string
	}{
		{nil, "en"},
		{[]string{"LANG=C"}, "en"},
		{[]string{"LANG=C.UTF-8"}, "en"},
		{[]string{"LC_ALL=C.UTF-8", "LANG=de_DE.UTF-8"}, "en"},
		{[]string{"LANG=de_DE.UTF-8"}, "de-DE"},
		{[]string{"LANG=pt_BR.UTF-8"}, "pt-BR"},
		{[]string{"LANG=C.UTF-8", "LANGUAGE=fr"}, "fr"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append([]string{"REINS_CLOCALE_HELPER=1", "PATH=" + os.Getenv("PATH")}, c.env...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%v: %v\n%s", c.env, err, stderr.String())
		}
		if got := strings.TrimSpace(string(out)); got != c.want {
			t.Errorf("%v: fyne's locale is %q, want %q", c.env, got, c.want)
		}
		if strings.Contains(stderr.String(), "Fyne") {
			t.Errorf("%v: fyne complained:\n%s", c.env, stderr.String())
		}
	}
}
