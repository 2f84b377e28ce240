package deskread

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	gdesktop "github.com/reins-app/reins/grounding/desktop"
	"github.com/reins-app/reins/internal/testrig/a11ytest"
	"github.com/reins-app/reins/internal/testrig/testenv"
)

// fixtureSecret is what the fixture's password field holds; no read may
// carry it.
const fixtureSecret = a11ytest.Secret

// a11yDesktop is a private X display, session bus, accessibility bus and
// the GTK 3 fixture on them.
type a11yDesktop struct {
	*a11ytest.Desktop
	session string
	pid     int
	stdin   io.Writer
}

// startA11yDesktop starts the accessible desktop with extra buttons.
func startA11yDesktop(t testing.TB, buttons int) *a11yDesktop {
	t.Helper()
	d := a11ytest.Start(t, a11ytest.Options{Buttons: buttons})
	return &a11yDesktop{Desktop: d, session: d.Session, pid: d.PID, stdin: d.Stdin}
}

// next waits for the fixture's next line that starts with prefix.
func (d *a11yDesktop) next(t testing.TB, prefix string) string {
	t.Helper()
	return d.Next(t, prefix)
}

// registered waits until the fixture's window can be read through r.
func (d *a11yDesktop) registered(t testing.TB, r *AccessibleReader) {
	t.Helper()
	var last error
	if !testenv.Eventually(testenv.Patience, func() bool {
		tree, err := r.Read(context.Background(), d.pid)
		last = err
		return err == nil && tree.Find("push button", "Press me") != nil
	}) {
		t.Fatalf("the fixture did not show on the accessibility bus within %v: %v", testenv.Patience, last)
	}
}

func openReader(t testing.TB, d *a11yDesktop, source AccessibleSource) *AccessibleReader {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := OpenAccessible(ctx, AccessibleOptions{SessionBus: d.session, Source: source})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestReadAccessible(t *testing.T) {
	d := startA11yDesktop(t, 0)
	auto := openReader(t, d, AccessibleAuto)
	d.registered(t, auto)
	screen := gdesktop.Rect{W: 1280, H: 800}

	for _, tc := range []struct {
		name   string
		source AccessibleSource
		want   string
	}{
		{"cache", AccessibleCache, "cache"},
		{"walk", AccessibleWalk, "walk"},
		{"auto prefers the cache", AccessibleAuto, "cache"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := openReader(t, d, tc.source)
			tree, err := r.Read(context.Background(), d.pid)
			if err != nil {
				t.Fatal(err)
			}
			if tree.Source != tc.want || tree.PID != d.pid || tree.Truncated {
				t.Errorf("source %q pid %d truncated %v; want %q %d false", tree.Source, tree.PID, tree.Truncated, tc.want, d.pid)
			}
			win := tree.Root
			if win.Role != "frame" || win.Name != "Reins AT-SPI fixture" {
				t.Errorf("window is %q %q; want the frame \"Reins AT-SPI fixture\"", win.Role, win.Name)
			}
			if win.Box.Empty() || !screen.Contains(win.Box) {
				t.Errorf("window box %+v is not on the %+v screen", win.Box, screen)
			}
			for _, want := range []struct{ role, name string }{
				{"push button", "Press me"},
				{"text", "Name"},
				{"password text", "Password"},
				{"check box", "Remember"},
			} {
				e := tree.Find(want.role, want.name)
				if e == nil {
					t.Errorf("no %s %q in\n%s", want.role, want.name, dump(tree))
					continue
				}
				if e.Box.Empty() || !win.Box.Contains(e.Box) {
					t.Errorf("%s %q box %+v is not inside the window's %+v", want.role, want.name, e.Box, win.Box)
				}
				if !e.State.Enabled || !e.State.Showing || !e.State.Visible {
					t.Errorf("%s %q states %+v; want enabled, showing, visible", want.role, want.name, e.State)
				}
			}
			if e := tree.Find("text", "Name"); e != nil && (e.Value != "Ada" || !e.State.Editable || e.Secret) {
				t.Errorf("the name field reads value %q editable %v secret %v; want \"Ada\" true false", e.Value, e.State.Editable, e.Secret)
			}
			if e := tree.Find("password text", "Password"); e != nil && (!e.Secret || e.Value != "") {
				t.Errorf("the password field reads secret %v value %q; want secret and no value", e.Secret, e.Value)
			}
			if all := fmt.Sprintf("%+v", *tree); strings.Contains(all, fixtureSecret) {
				t.Errorf("the password's text appears in the read: %s", all)
			}
		})
	}

	t.Run("the cache and the walk read the same tree", func(t *testing.T) {
		var trees []*gdesktop.Tree
		for _, source := range []AccessibleSource{AccessibleCache, AccessibleWalk} {
			tree, err := openReader(t, d, source).Read(context.Background(), d.pid)
			if err != nil {
				t.Fatal(err)
			}
			tree.Source = ""
			trees = append(trees, tree)
		}
		if !reflect.DeepEqual(trees[0], trees[1]) {
			t.Errorf("the cache read\n%s\nthe walk read\n%s", dump(trees[0]), dump(trees[1]))
		}
		t.Logf("%d elements:\n%s", trees[0].Count, dump(trees[0]))
	})

	t.Run("a read stops at its bounds and says so", func(t *testing.T) {
		for _, source := range []AccessibleSource{AccessibleCache, AccessibleWalk} {
			for _, opts := range []AccessibleOptions{{MaxElements: 3}, {MaxDepth: 1}} {
				opts.SessionBus, opts.Source = d.session, source
				tree, err := ReadAccessible(context.Background(), d.pid, opts)
				if err != nil {
					t.Fatal(err)
				}
				want := 3 // the window, its panel and one more
				if opts.MaxDepth == 1 {
					want = 2 // the window and its panel
				}
				if !tree.Truncated || tree.Count != want {
					t.Errorf("%s with %+v: truncated %v, %d elements; want truncated, %d", tree.Source, opts, tree.Truncated, tree.Count, want)
				}
			}
		}
	})

	t.Run("a checked box reads checked", func(t *testing.T) {
		for _, source := range []AccessibleSource{AccessibleCache, AccessibleWalk} {
			r := openReader(t, d, source)
			tree, err := r.Read(context.Background(), d.pid)
			if err != nil {
				t.Fatal(err)
			}
			if e := tree.Find("check box", "Remember"); e == nil || e.State.Checked {
				t.Fatalf("before the toggle the check box reads %+v; want unchecked", e)
			}
		}
		fmt.Fprintln(d.stdin, "toggle")
		d.next(t, "toggled Remember on")
		for _, source := range []AccessibleSource{AccessibleCache, AccessibleWalk} {
			r := openReader(t, d, source)
			testenv.WaitFor(t, "the check box to read checked", func() bool {
				tree, err := r.Read(context.Background(), d.pid)
				e := (*gdesktop.Element)(nil)
				if err == nil {
					e = tree.Find("check box", "Remember")
				}
				return e != nil && e.State.Checked
			})
		}
	})

	t.Run("an application not on the bus is said so", func(t *testing.T) {
		_, err := auto.Read(context.Background(), os.Getpid())
		if !errors.Is(err, ErrNoAccessibleApp) {
			t.Fatalf("reading this test process: %v; want ErrNoAccessibleApp", err)
		}
	})

	t.Run("a hung application is named and does not stall the read", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var readers []*AccessibleReader
		for _, source := range []AccessibleSource{AccessibleAuto, AccessibleWalk} {
			r, err := OpenAccessible(ctx, AccessibleOptions{SessionBus: d.session, Source: source, CallTimeout: 300 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			readers = append(readers, r)
		}
		if err := syscall.Kill(d.pid, syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		defer syscall.Kill(d.pid, syscall.SIGCONT)
		for _, r := range readers {
			start := time.Now()
			_, err := r.Read(ctx, d.pid)
			took := time.Since(start)
			if err == nil || !strings.Contains(err.Error(), "pid "+strconv.Itoa(d.pid)) || !strings.Contains(err.Error(), "did not answer") {
				t.Fatalf("reading a stopped application: %v; want an error naming pid %d that says it did not answer", err, d.pid)
			}
			if took > 5*time.Second {
				t.Errorf("the read took %v; the call deadline is 300ms", took)
			}
			t.Logf("after %v: %v", took.Round(time.Millisecond), err)
		}
	})
}

// dump renders a tree an element a line, for failure messages.
func dump(t *gdesktop.Tree) string {
	var b strings.Builder
	t.Walk(func(e *gdesktop.Element, depth int) bool {
		fmt.Fprintf(&b, "%s%s %q %q secret=%v %+v %+v\n", strings.Repeat("  ", depth), e.Role, e.Name, e.Value, e.Secret, e.Box, e.State)
		return true
	})
	return b.String()
}

func BenchmarkReadAccessible(b *testing.B) {
	d := startA11yDesktop(b, 200)
	d.registered(b, openReader(b, d, AccessibleAuto))
	for _, bc := range []struct {
		name   string
		source AccessibleSource
	}{{"cache", AccessibleCache}, {"walk", AccessibleWalk}} {
		b.Run(bc.name, func(b *testing.B) {
			r := openReader(b, d, bc.source)
			var n int
			for b.Loop() {
				tree, err := r.Read(context.Background(), d.pid)
				if err != nil {
					b.Fatal(err)
				}
				n = tree.Count
			}
			b.ReportMetric(float64(n), "elements")
		})
	}
}
