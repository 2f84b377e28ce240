package core

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/reins-app/reins/bridge"
	"github.com/reins-app/reins/denylist"
	"github.com/reins-app/reins/deskread"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/executor/hand"
	"github.com/reins-app/reins/extension"
	gdesktop "github.com/reins-app/reins/grounding/desktop"
	"github.com/reins-app/reins/internal/atomicfile"
	"github.com/reins-app/reins/internal/peercred"
	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/internal/trayhost"
)

// The self-test's checks that only read.

func (s *selfTest) readingChecks(ctx context.Context) {
	s.permissionChecks()
	s.trayCheck()
	s.accessibilityCheck(ctx)
	s.denyRunningCheck(ctx)
	s.pairingHelpersCheck(ctx)
	s.pairingCheck(ctx)
}

func (s *selfTest) permissionChecks() {
	t0 := time.Now()
	if runtime.GOOS != "darwin" {
		s.pass(CheckPermissions, t0, "X11 asks for none: input goes through XTEST, pictures through the X server, the watch on the person's hand through XInput 2")
		return
	}
	for _, c := range []struct {
		name  string
		check Check
	}{
		{CheckAXPermission, accessibilityCheck(executor.AccessibilityStatus())},
		{CheckScreenRec, screenRecordingCheck(deskread.ScreenRecordingStatus())},
		{CheckInputMonitor, inputMonitoringCheck(hand.InputMonitoringStatus())},
	} {
		saw := c.check.What
		if c.check.Fix != "" && !c.check.OK {
			saw += " — " + c.check.Fix
		}
		s.passIf(c.check.OK, c.name, t0, "%s", saw)
		t0 = time.Now()
	}
}

// trayCheck is the front end's account of its tray item, with the tray
// host's own list on Linux.
func (s *selfTest) trayCheck() {
	t0 := time.Now()
	if s.o.Tray == nil {
		s.skip(CheckTray, t0, "no tray: this Reins answers on its terminal (reins serve)")
		return
	}
	c := s.o.Tray()
	saw := c.Saw
	ok := c.Result == "pass"
	if runtime.GOOS != "darwin" {
		h, err := trayhost.Lookup(os.Getpid())
		switch {
		case err != nil:
			saw += "; the session bus cannot be asked: " + err.Error()
		case h.PID == 0:
			saw += "; no tray host is on the session bus"
		case h.Listed:
			saw += "; the tray host " + processWords(h.PID) + " lists Reins' item"
		default:
			saw += "; the tray host " + processWords(h.PID) + " does not list Reins' item"
			ok = false
		}
	}
	s.passIf(ok, CheckTray, t0, "%s", saw)
}

// processWords names a process by its program and pid.
func processWords(pid int) string {
	exe, _ := peercred.Exe(pid)
	return plain.App(filepath.Base(exe), exe, pid)
}

// accessibilityCheck reads, without acting, an application that is always
// there: the tray host's panel on Linux, the Finder on macOS.
func (s *selfTest) accessibilityCheck(ctx context.Context) {
	t0 := time.Now()
	apps, err := alwaysThere()
	if err != nil {
		s.skip(CheckAccessibility, t0, "%v", err)
		return
	}
	rctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	var t *gdesktop.Tree
	var tried []string
	var app readable
	for _, app = range apps {
		if t, err = s.rd.Accessible(rctx, app.pid); err == nil {
			break
		}
		tried = append(tried, fmt.Sprintf("%s, pid %d: %v", app.what, app.pid, err))
	}
	if err != nil {
		s.fail(CheckAccessibility, t0, "could not be read: %s", strings.Join(tried, "; "))
		return
	}
	pid, what := app.pid, app.what
	roles := map[string]int{}
	var order []string
	t.Walk(func(e *gdesktop.Element, _ int) bool {
		if roles[e.Role] == 0 {
			order = append(order, e.Role)
		}
		roles[e.Role]++
		return true
	})
	if len(order) > 8 {
		order = append(order[:8], "…")
	}
	s.passIf(t.Count > 1, CheckAccessibility, t0, "%s, pid %d, read only (%s): %d elements, roles %s%s",
		what, pid, t.Source, t.Count, strings.Join(order, ", "), map[bool]string{true: "; cut at the reader's bound"}[t.Truncated])
}

// readable is an application the accessibility check may read.
type readable struct {
	pid  int
	what string
}

// denyRunningCheck names the applications running now that the deny list
// keeps every act off, reading only.
func (s *selfTest) denyRunningCheck(ctx context.Context) {
	t0 := time.Now()
	if err := s.r.InputUnavailable(); err != nil {
		s.skip(CheckDenyRunning, t0, "no display to list windows on")
		return
	}
	ws, err := s.x.Windows(ctx)
	if err != nil {
		s.fail(CheckDenyRunning, t0, "the windows cannot be listed: %v", err)
		return
	}
	deny := s.e.denyList(s.e.Settings().DenyAdded)
	var found []string
	for _, w := range ws {
		rule, ok := deny.Match(w.App)
		if !ok || rule == executor.OwnLabel || (s.win != nil && w.App.PID == s.win.pid()) {
			continue
		}
		line := fmt.Sprintf("%s by the rule %s", plain.App(w.App.Name, w.App.Exe, w.App.PID), plain.Quote(rule, plain.NameMax))
		if !slices.Contains(found, line) {
			found = append(found, line)
		}
	}
	if len(found) == 0 {
		s.skip(CheckDenyRunning, t0, "no application on the deny list has a window open; the refusal itself was shown on the test window (%s)", CheckDenyAtFire)
		return
	}
	s.pass(CheckDenyRunning, t0, "every act on these is refused before anyone is asked and again right before firing; none was touched: %s", strings.Join(found, "; "))
}

// pairingHelpersCheck runs each installed Chrome-family browser's pairing
// helper as the browser would, and checks that it answers with this Reins'
// port. The secret it hands over is not kept.
func (s *selfTest) pairingHelpersCheck(ctx context.Context) {
	t0 := time.Now()
	dirs, err := NativeHostDirs()
	if err != nil {
		s.fail(CheckPairingHelpers, t0, "%v", err)
		return
	}
	home, _ := os.UserHomeDir()
	var lines []string
	ok := true
	for _, dir := range dirs {
		browser := filepath.Dir(dir)
		if _, err := os.Stat(browser); err != nil {
			continue // not installed for this user
		}
		name := browser
		if rel, err := filepath.Rel(home, browser); err == nil && !strings.HasPrefix(rel, "..") {
			name = "~/" + rel
		}
		if err := s.pairingHelper(ctx, filepath.Join(dir, extension.NativeHost+".json")); err != nil {
			ok = false
			lines = append(lines, name+": "+err.Error())
			continue
		}
		lines = append(lines, name+": answers with port "+fmt.Sprint(s.r.Port()))
	}
	if len(lines) == 0 {
		s.skip(CheckPairingHelpers, t0, "no Chrome-family browser has a folder for this user")
		return
	}
	s.passIf(ok, CheckPairingHelpers, t0, "%s", strings.Join(lines, "; "))
}

// pairingHelper checks one manifest and runs the program it names.
func (s *selfTest) pairingHelper(ctx context.Context, manifest string) error {
	b, err := os.ReadFile(manifest)
	if err != nil {
		return errors.New("no pairing helper installed (Reins installs it as it starts; or run reins extension)")
	}
	var m bridge.HostManifest
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("its manifest cannot be read: %v", err)
	}
	origin := strings.TrimSuffix(extension.Origin, "/") + "/"
	if !slices.ContainsFunc(m.AllowedOrigins, func(o string) bool { return strings.TrimSuffix(o, "/")+"/" == origin }) {
		return fmt.Errorf("its manifest does not name the Reins extension (%s)", plain.Text(strings.Join(m.AllowedOrigins, ", "), plain.DetailMax))
	}
	hctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	// As Chrome starts it: the caller's origin, with its slash, first.
	cmd := exec.CommandContext(hctx, m.Path, origin)
	var req bytes.Buffer
	body := []byte(`{"type":"pair"}`)
	binary.Write(&req, binary.NativeEndian, uint32(len(body)))
	req.Write(body)
	cmd.Stdin = &req
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("%s did not answer as Chrome starts it: %v", plain.Text(m.Path, plain.URLMax), err)
	}
	r := bytes.NewReader(out)
	var n uint32
	if binary.Read(r, binary.NativeEndian, &n) != nil || int(n) > r.Len() {
		return fmt.Errorf("%s answered something that is not a native message", plain.Text(m.Path, plain.URLMax))
	}
	var reply struct {
		Port  int    `json:"port"`
		Error string `json:"error"`
	}
	if err := json.NewDecoder(io.LimitReader(r, int64(n))).Decode(&reply); err != nil {
		return fmt.Errorf("%s answered something that is not JSON", plain.Text(m.Path, plain.URLMax))
	}
	switch {
	case reply.Error != "":
		return fmt.Errorf("%s answered: %s", plain.Text(m.Path, plain.URLMax), plain.Text(reply.Error, plain.DetailMax))
	case reply.Port != s.r.Port():
		return fmt.Errorf("%s answered port %d, not this Reins' %d: it reads another data folder", plain.Text(m.Path, plain.URLMax), reply.Port, s.r.Port())
	}
	return nil
}

// pairingCheck says whether the extension is paired, when a Chrome-family
// browser runs.
func (s *selfTest) pairingCheck(ctx context.Context) {
	t0 := time.Now()
	if s.e.Connected() {
		s.pass(CheckPairing, t0, "the extension is paired and connected on port %d", s.r.Port())
		return
	}
	ws, err := s.x.Windows(ctx)
	if err != nil {
		s.skip(CheckPairing, t0, "the windows cannot be listed to look for Chrome: %v", err)
		return
	}
	for _, w := range ws {
		if chromium(w.App) {
			s.fail(CheckPairing, t0, "%s runs, but no Reins extension has paired: load it (Reins menu › Getting started), and check that it is on", plain.App(w.App.Name, w.App.Exe, w.App.PID))
			return
		}
	}
	s.skip(CheckPairing, t0, "no Chrome-family browser is running")
}

// chromium reports whether a is a Chrome-family browser, which runs the
// extension.
func chromium(a executor.App) bool {
	if _, ok := denylist.Browsers.Match(a); !ok {
		return false
	}
	id := strings.ToLower(a.Name + " " + filepath.Base(a.Exe) + " " + a.ID + " " + a.Class)
	for _, n := range []string{"chrom", "brave", "edge", "vivaldi", "thebrowser", "opera", "thorium", "cromite"} {
		if strings.Contains(id, n) {
			return true
		}
	}
	return false
}

// pictureCheck takes a picture of the screen, finds the test window in
// it by its marker, blacks out its password field and keeps the window's
// part in the data folder for the person to send.
func (s *selfTest) pictureCheck(ctx context.Context) {
	t0 := time.Now()
	pic, err := s.rd.Capture(ctx)
	switch {
	case errors.Is(err, executor.ErrUnsupported):
		s.skip(CheckPicture, t0, "this desktop takes no pictures: %v", err)
		return
	case err != nil:
		s.fail(CheckPicture, t0, "%v", err)
		return
	}
	scale := pic.Scale
	if scale <= 0 {
		scale = 1
	}
	b := pic.Image.Bounds()
	mx, my := s.place.centre(s.win.ready.Areas[AreaMarker])
	got := averageAt(pic.Image, int(mx*scale), int(my*scale))
	want := TestWindowMarker
	markerOK := near(got, want, 40)

	sb := s.win.ready.Areas[AreaSecret]
	sx, sy := s.place.at(sb.X, sb.Y)
	field := executor.Window{X: sx, Y: sy, W: sb.W * s.place.k, H: sb.H * s.place.k}
	shown := lit(pic.Image, pixels(field, scale, b))
	img := image.NewRGBA(b)
	draw.Draw(img, b, pic.Image, b.Min, draw.Src)
	blackOut(img, field, scale)
	hidden := lit(img, pixels(field, scale, b)) == 0
	window := crop(img, s.place.window, scale)
	kept := ""
	var out bytes.Buffer
	if err := png.Encode(&out, window); err == nil {
		path := filepath.Join(s.r.DataDir, SelfTestPictureFile)
		if atomicfile.Write(path, out.Bytes(), 0o600) == nil {
			kept = "; the window's picture, its secret blacked out, is in " + path
		}
	}
	s.passIf(markerOK && shown > 0 && hidden, CheckPicture, t0,
		"%dx%d pixels at %g per DIP: the marker's colour at its place: %t (saw #%02x%02x%02x); the password field showed %d lit pixels, and %s after it was blacked out%s",
		b.Dx(), b.Dy(), scale, markerOK, got[0], got[1], got[2], shown, map[bool]string{true: "none", false: "some still"}[hidden], kept)
}

// averageAt is the mean colour of the 3×3 pixels around (x, y).
func averageAt(img *image.RGBA, x, y int) [3]uint8 {
	var sum [3]int
	n := 0
	for dy := -1; dy <= 1; dy++ {
		for dx := -1; dx <= 1; dx++ {
			p := image.Pt(x+dx, y+dy)
			if !p.In(img.Bounds()) {
				continue
			}
			c := img.RGBAAt(p.X, p.Y)
			sum[0], sum[1], sum[2] = sum[0]+int(c.R), sum[1]+int(c.G), sum[2]+int(c.B)
			n++
		}
	}
	if n == 0 {
		return [3]uint8{}
	}
	return [3]uint8{uint8(sum[0] / n), uint8(sum[1] / n), uint8(sum[2] / n)}
}

func near(a, b [3]uint8, tol int) bool {
	for i := range a {
		d := int(a[i]) - int(b[i])
		if d < -tol || d > tol {
			return false
		}
	}
	return true
}

// lit counts the pixels in r that are not black.
func lit(img *image.RGBA, r image.Rectangle) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := img.RGBAAt(x, y)
			if c.R > 8 || c.G > 8 || c.B > 8 {
				n++
			}
		}
	}
	return n
}
