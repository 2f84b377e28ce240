package core

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"os"
	"slices"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/denylist"
	"github.com/reins-app/reins/deskread"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/vocab"
)

// DesktopScreenshot is a PNG picture of the screen, or of the window in
// front when window is set, for an agent with the desktop at Read. Every
// window an agent may not see is blacked out in it first (hidden).
func (s *Session) DesktopScreenshot(ctx context.Context, window bool) ([]byte, error) {
	en := audit.Entry{Agent: s.agent, Act: vocab.Act{Kind: vocab.Read}, Target: vocab.Target{Desktop: true, Name: "desktop picture"}}
	return audited(ctx, s, en, func(*audit.Entry) ([]byte, func(), error) {
		pic, err := s.desktopPicture(ctx, window)
		return pic, nil, err
	}, nil)
}

func (s *Session) desktopPicture(ctx context.Context, window bool) ([]byte, error) {
	e := s.e
	if err := s.admitted(ctx); err != nil {
		return nil, err
	}
	if err := e.shares.Check(vocab.DesktopKey, "", vocab.ReadOnly); err != nil {
		return nil, err
	}
	e.refreshOwn() // every Reins' windows, blacked out as they are now
	// The windows first: what cannot be listed cannot be hidden.
	ws, err := e.opts.Executor.Windows(ctx)
	if err != nil {
		return nil, errorf(vocab.CodeFailed, "the windows cannot be listed, so Reins cannot tell which to hide; no picture was taken: %v", err)
	}
	pic, err := e.opts.Reader.Capture(ctx)
	if errors.Is(err, deskread.ErrNoScreenRecording) {
		return nil, &vocab.Error{Code: vocab.CodePermissionRequired, Message: deskread.ErrNoScreenRecording.Error(), Err: err}
	}
	if err != nil {
		return nil, errorf(vocab.CodeFailed, "no picture of the desktop: %s", plain.Text(err.Error(), plain.DetailMax))
	}
	// And again after: a window that came up while the picture was taken
	// is hidden too.
	after, err := e.opts.Executor.Windows(ctx)
	if err != nil {
		return nil, errorf(vocab.CodeFailed, "the windows cannot be listed, so Reins cannot tell which to hide; no picture was taken: %v", err)
	}
	// Only what is known to be shown is: the picture starts black, the
	// windows of applications an agent may see are painted in from the
	// capture, back to front, and every window it may not see is black
	// again on top, where it was before the capture and after. The desktop
	// behind the windows, and windows no list names (menus, tooltips and
	// other pop-ups the window manager does not list) stay black, unless
	// they lie over a window an agent may see.
	deny := e.denyList(e.Settings().DenyAdded)
	img := image.NewRGBA(pic.Image.Bounds())
	draw.Draw(img, img.Bounds(), image.NewUniform(color.Black), image.Point{}, draw.Src)
	for i := len(after) - 1; i >= 0; i-- {
		w := after[i]
		if e.shown(w.App, deny) {
			r := pixels(w, pic.Scale, img.Bounds())
			draw.Draw(img, r, pic.Image, r.Min, draw.Src)
		} else {
			blackOut(img, w, pic.Scale)
		}
	}
	for _, w := range append(ws, after...) {
		if !e.shown(w.App, deny) {
			blackOut(img, w, pic.Scale)
		}
	}
	if window {
		var front *executor.Window
		for i := range after {
			if after[i].Active {
				front = &after[i]
				break
			}
		}
		if front == nil {
			return nil, errorf(vocab.CodeNotVisible, "no window is in front to take a picture of; ask for the whole screen instead")
		}
		img = crop(img, *front, pic.Scale)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return nil, errorf(vocab.CodeFailed, "the picture could not be encoded: %v", err)
	}
	return b.Bytes(), nil
}

// shown reports whether an agent may see a's windows in a picture of the
// desktop: an application Reins can name by its program, and not hidden.
func (e *Engine) shown(a executor.App, deny denylist.List) bool {
	return a.PID > 0 && a.Exe != "" && !e.hidden(a, deny)
}

// hidden reports whether an agent may not see a's windows in a picture of
// the desktop: Reins' own (its popup, the terminal running reins serve), a
// deny-listed application's, and a web browser's, whose tabs are shared
// one by one and pictured with browser_screenshot.
func (e *Engine) hidden(a executor.App, deny denylist.List) bool {
	if a.PID > 0 && (a.PID == os.Getpid() || slices.Contains(e.ownProcesses(), a.PID)) {
		return true
	}
	if _, ok := deny.Match(a); ok {
		return true
	}
	return isBrowser(a)
}

// pixels is w's rectangle in the picture's device pixels, a pixel larger
// every way, within bounds.
func pixels(w executor.Window, scale float64, bounds image.Rectangle) image.Rectangle {
	if scale <= 0 {
		scale = 1
	}
	r := image.Rect(int(math.Floor(w.X*scale))-1, int(math.Floor(w.Y*scale))-1, int(math.Ceil((w.X+w.W)*scale))+1, int(math.Ceil((w.Y+w.H)*scale))+1)
	return r.Intersect(bounds)
}

func blackOut(img *image.RGBA, w executor.Window, scale float64) {
	draw.Draw(img, pixels(w, scale, img.Bounds()), image.NewUniform(color.Black), image.Point{}, draw.Src)
}

func crop(img *image.RGBA, w executor.Window, scale float64) *image.RGBA {
	r := pixels(w, scale, img.Bounds())
	out := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	draw.Draw(out, out.Bounds(), img, r.Min, draw.Src)
	return out
}
