package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fixture is a module of its own, so that its mistakes stay out of
// Reins' packages: each package but clean holds one mistake, on a line
// marked with the words the checker must say about it.
var fixture = filepath.Join("testdata", "fixture")

var wantMark = regexp.MustCompile(`// want "(.*)"$`)

// planted reads the marked lines: file:line → the words expected there.
func planted(t *testing.T) map[string]string {
	t.Helper()
	want := map[string]string{}
	err := filepath.WalkDir(fixture, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for line := 1; sc.Scan(); line++ {
			if m := wantMark.FindStringSubmatch(sc.Text()); m != nil {
				want[fmt.Sprintf("%s:%d", path, line)] = m[1]
			}
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return want
}

// errorLine is one line the checker prints for an error.
var errorLine = regexp.MustCompile(`^(\S+\.go):(\d+):\d+: (.*)$`)

func TestReportsEachPlantedMistake(t *testing.T) {
	want := planted(t)
	// One of each kind: a method darwinkit does not have, a wrong argument
	// to a darwinkit method, a wrong type in a darwin && cgo file, and one
	// in a macOS test file.
	if len(want) != 4 {
		t.Fatalf("the fixture marks %d mistakes; want 4", len(want))
	}
	var out, errOut bytes.Buffer
	code := run([]string{"-C", fixture, "-test", "./..."}, &out, &errOut)
	if code != 1 {
		t.Fatalf("exit status %d; want 1\nstdout:\n%s\nstderr:\n%s", code, &out, &errOut)
	}
	got := map[string]string{}
	for _, line := range strings.Split(out.String(), "\n") {
		if m := errorLine.FindStringSubmatch(line); m != nil {
			got[m[1]+":"+m[2]] = m[3]
		}
	}
	for at, words := range want {
		msg, ok := got[at]
		switch {
		case !ok:
			t.Errorf("%s: no error reported; want one saying %q", at, words)
		case !strings.Contains(msg, words):
			t.Errorf("%s: reported %q; want it to say %q", at, msg, words)
		}
	}
	for at, msg := range got {
		if _, ok := want[at]; !ok {
			t.Errorf("%s: unexpected error %q", at, msg)
		}
	}
	if !strings.Contains(out.String(), ": 4 errors,") {
		t.Errorf("the summary does not count 4 errors:\n%s", &out)
	}
}

func TestCleanCodePasses(t *testing.T) {
	for _, arch := range []string{"arm64", "amd64"} {
		verbose := arch == "arm64"
		args := []string{"-C", fixture, "-arch", arch, "-test"}
		if verbose {
			args = append(args, "-v")
		}
		args = append(args, "./clean")
		var out, errOut bytes.Buffer
		if code := run(args, &out, &errOut); code != 0 {
			t.Errorf("%s: exit status %d; want 0\nstdout:\n%s\nstderr:\n%s", arch, code, &out, &errOut)
			continue
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		summary := lines[len(lines)-1]
		if !strings.HasPrefix(summary, "darwincheck darwin/"+arch+": ") {
			t.Errorf("%s: the last line is no summary: %s", arch, summary)
		}
		// The conversion of a C-typed field is counted, not reported; -v
		// shows it.
		if !strings.Contains(summary, ": 0 errors, 1 message about operands of invalid type dropped") {
			t.Errorf("%s: want no error and one dropped message counted; got %s", arch, summary)
		}
		if !verbose {
			if len(lines) != 1 {
				t.Errorf("%s: want one summary line; got\n%s", arch, &out)
			}
			continue
		}
		at := filepath.Join(fixture, "clean", "clean_darwin.go")
		if len(lines) != 2 || !regexp.MustCompile("^"+regexp.QuoteMeta(at)+`:\d+:\d+: cannot convert b\.p \(variable with invalid type\).* \(dropped\)$`).MatchString(lines[0]) {
			t.Errorf("-v does not show the dropped conversion alone:\n%s", &out)
		}
	}
}

func TestRefusesAnUnknownArchitecture(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"-arch", "pdp11", "./..."}, &out, &errOut); code != 2 {
		t.Errorf("exit status %d; want 2", code)
	}
	if !strings.Contains(errOut.String(), "pdp11") {
		t.Errorf("the error does not name the architecture: %s", &errOut)
	}
}

func TestInvalidOperand(t *testing.T) {
	for msg, want := range map[string]bool{
		"cannot convert w.data (variable with invalid type) to type unsafe.Pointer": true,
		"invalid operation: x + 1 (mismatched types int and string)":                false,
		"cannot use level (variable of type string) as appkit.WindowLevel value":    false,
		"invalid recursive type T": false,
	} {
		if got := invalidOperand(msg); got != want {
			t.Errorf("invalidOperand(%q) = %v; want %v", msg, got, want)
		}
	}
}
