package deskread

import (
	"context"
	"errors"
	"fmt"
	"image"
	"sync"
	"syscall"
	"unsafe"

	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/internal/macos"
)

// Pictures of the desktop on macOS: the Screen Recording permission
// (CGPreflightScreenCaptureAccess, CGRequestScreenCaptureAccess), and the
// picture itself through ScreenCaptureKit's SCScreenshotManager on macOS
// 14 and later (capture_sck_darwin.go), CGWindowListCreateImage before
// (chooseCapture says why).
//
// CGWindowListCreateImage is deprecated since macOS 14 and marked
// unavailable ("obsoleted") in the macOS 15 SDK; the function is still in
// CoreGraphics at run time, which is all a purego call needs, and Apple's
// 14.4 release notes say it will be removed: then Dlsym fails, and macOS
// 13 and earlier say so instead of the app failing to start. On macOS 14
// and later a capture shows the screen-recording mark in the menu bar for
// a few seconds.

var (
	// bool CGPreflightScreenCaptureAccess(void), bool
	// CGRequestScreenCaptureAccess(void): in the 10.15 SDK, reliably
	// callable from macOS 11; nil where missing.
	cgPreflightScreenCaptureAccess func() bool
	cgRequestScreenCaptureAccess   func() bool
	// CGImageRef CGWindowListCreateImage(CGRect, CGWindowListOption,
	// CGWindowID, CGWindowImageOption); nil where missing.
	cgWindowListCreateImage func(bounds macos.Rect, list uint32, window uint32, options uint32) uintptr

	cgImageGetWidth            func(img uintptr) uint
	cgImageGetHeight           func(img uintptr) uint
	cgImageGetBitsPerComponent func(img uintptr) uint
	cgImageGetBitsPerPixel     func(img uintptr) uint
	cgImageGetBytesPerRow      func(img uintptr) uint
	cgImageGetBitmapInfo       func(img uintptr) uint32
	cgImageGetDataProvider     func(img uintptr) uintptr // borrowed
	cgDataProviderCopyData     func(provider uintptr) uintptr
	// CGDisplayModeRef CGDisplayCopyDisplayMode(CGDirectDisplayID): +1, a
	// CFType; size_t CGDisplayModeGetPixelWidth(CGDisplayModeRef).
	cgDisplayCopyDisplayMode   func(display uint32) uintptr
	cgDisplayModeGetPixelWidth func(mode uintptr) uint
)

// CGWindowImageOption (CGWindow.h).
const (
	cgWindowImageShouldBeOpaque = 1 << 1
	cgWindowImageBestResolution = 1 << 3
)

var (
	captureOnce    sync.Once
	captureErr     error
	screenRecAsked sync.Once
)

func loadCapture() error {
	captureOnce.Do(func() {
		if err := loadMac(); err != nil {
			captureErr = err
			return
		}
		captureErr = bindCapture()
	})
	return captureErr
}

func bindCapture() error {
	var b macos.Binder
	cg := b.Open(macos.CoreGraphics)
	b.Func(cg, "CGImageGetWidth", &cgImageGetWidth)
	b.Func(cg, "CGImageGetHeight", &cgImageGetHeight)
	b.Func(cg, "CGImageGetBitsPerComponent", &cgImageGetBitsPerComponent)
	b.Func(cg, "CGImageGetBitsPerPixel", &cgImageGetBitsPerPixel)
	b.Func(cg, "CGImageGetBytesPerRow", &cgImageGetBytesPerRow)
	b.Func(cg, "CGImageGetBitmapInfo", &cgImageGetBitmapInfo)
	b.Func(cg, "CGImageGetDataProvider", &cgImageGetDataProvider)
	b.Func(cg, "CGDataProviderCopyData", &cgDataProviderCopyData)
	b.Func(cg, "CGDisplayCopyDisplayMode", &cgDisplayCopyDisplayMode)
	b.Func(cg, "CGDisplayModeGetPixelWidth", &cgDisplayModeGetPixelWidth)
	if err := b.Err(); err != nil {
		return err
	}
	macos.BindOptional(cg, "CGPreflightScreenCaptureAccess", &cgPreflightScreenCaptureAccess)
	macos.BindOptional(cg, "CGRequestScreenCaptureAccess", &cgRequestScreenCaptureAccess)
	macos.BindOptional(cg, "CGWindowListCreateImage", &cgWindowListCreateImage)
	return nil
}

// screenRecordingAllowed reports whether macOS lets Reins see other
// applications' windows. Without CGPreflightScreenCaptureAccess it cannot
// tell, and says no: a picture that may hold only the wallpaper must not
// pass for the desktop.
func screenRecordingAllowed() bool {
	return cgPreflightScreenCaptureAccess != nil && cgPreflightScreenCaptureAccess()
}

// ScreenRecordingStatus reports, without asking the person anything,
// whether macOS lets Reins take pictures of other applications' windows
// (CGPreflightScreenCaptureAccess). err says why it cannot be told.
func ScreenRecordingStatus() (allowed bool, err error) {
	if err := loadCapture(); err != nil {
		return false, fmt.Errorf("%w: %v", executor.ErrUnsupported, err)
	}
	if cgPreflightScreenCaptureAccess == nil {
		return false, errors.New("this macOS has no CGPreflightScreenCaptureAccess (macOS 11 or later has)")
	}
	return cgPreflightScreenCaptureAccess(), nil
}

// Capture implements Reader: a picture of the displays at and right of
// and below the main one's top-left corner (global points from (0, 0)),
// every window on screen in it, at the displays' best resolution. Without
// the Screen Recording permission it takes none and returns an error
// wrapping [ErrNoScreenRecording], the first time having macOS ask the
// person for it (CGRequestScreenCaptureAccess, which shows its dialog once
// per application; the grant takes effect when Reins is reopened).
func (m *Mac) Capture(ctx context.Context) (Picture, error) {
	if m.isClosed() {
		return Picture{}, errClosed
	}
	if err := loadCapture(); err != nil {
		return Picture{}, fmt.Errorf("%w: %v", executor.ErrUnsupported, err)
	}
	if !screenRecordingAllowed() {
		screenRecAsked.Do(func() {
			if cgRequestScreenCaptureAccess != nil {
				cgRequestScreenCaptureAccess()
			}
		})
		return Picture{}, ErrNoScreenRecording
	}
	loadSCK()
	version, err := macOSVersion()
	if err != nil {
		return Picture{}, err
	}
	way, err := chooseCapture(version, sck.manager != 0, cgWindowListCreateImage != nil)
	if err != nil {
		return Picture{}, err
	}
	if way == captureWithScreenshotManager {
		displays, err := macDisplays()
		if err != nil {
			return Picture{}, err
		}
		plan, ok := planCapture(displays)
		if !ok {
			return Picture{}, errNoMainQuadrant
		}
		var pic Picture
		macos.WithPool(func() { pic, err = captureWithSCK(ctx, plan) })
		return pic, err
	}
	displays, err := macDisplays()
	if err != nil {
		return Picture{}, err
	}
	area, ok := captureArea(displays)
	if !ok {
		return Picture{}, errNoMainQuadrant
	}
	var pic Picture
	macos.WithPool(func() {
		img := cgWindowListCreateImage(area, cgWindowListOnScreen, 0, cgWindowImageBestResolution|cgWindowImageShouldBeOpaque)
		if img == 0 {
			err = errors.New("macOS gave no picture of the screen; is Reins running in the person's login session?")
			return
		}
		defer macos.CFRelease(img)
		pic, err = pictureOf(img, area)
	})
	return pic, err
}

var errNoMainQuadrant = errors.New("no display lies at the main display's top-left corner, so there is nothing to take a picture of")

// macOSVersion is the version of macOS running (the kern.osproductversion
// sysctl).
func macOSVersion() (macVersion, error) {
	s, err := syscall.Sysctl("kern.osproductversion")
	if err != nil {
		return macVersion{}, fmt.Errorf("cannot tell which macOS this is: %w", err)
	}
	return parseMacVersion(s)
}

// macDisplays lists the active displays with their IDs, bounds in global
// points and widths in pixels.
func macDisplays() ([]macDisplay, error) {
	ids, err := macos.ActiveDisplays()
	if err != nil {
		return nil, err
	}
	out := make([]macDisplay, 0, len(ids))
	for _, id := range ids {
		b := macos.DisplayBounds(id)
		d := macDisplay{ID: id, Bounds: executor.Screen{X: b.Origin.X, Y: b.Origin.Y, W: b.Size.W, H: b.Size.H}}
		if mode := cgDisplayCopyDisplayMode(id); mode != 0 {
			d.PixelWidth = int(cgDisplayModeGetPixelWidth(mode))
			macos.CFRelease(mode)
		}
		out = append(out, d)
	}
	return out, nil
}

// captureArea is the part of the displays in the main display's quadrant:
// from global (0, 0) to the farthest right and bottom edges. A display left
// of or above the main one has negative coordinates, which a picture whose
// origin is DIP (0, 0) cannot hold; it is left out.
func captureArea(displays []macDisplay) (macos.Rect, bool) {
	var w, h float64
	for _, d := range displays {
		s := d.Bounds
		if s.X+s.W > 0 && s.Y+s.H > 0 {
			w, h = max(w, s.X+s.W), max(h, s.Y+s.H)
		}
	}
	return macos.Rect{Size: macos.Size{W: w, H: h}}, w > 0 && h > 0
}

// pictureOf copies a CGImage of area into a Picture.
func pictureOf(img uintptr, area macos.Rect) (Picture, error) {
	rgba, err := rgbaOfImage(img)
	if err != nil {
		return Picture{}, err
	}
	w, h := rgba.Bounds().Dx(), rgba.Bounds().Dy()
	scale := float64(w) / area.Size.W
	if sy := float64(h) / area.Size.H; sy < scale-0.01 || sy > scale+0.01 {
		return Picture{}, fmt.Errorf("macOS's picture of the screen is %d×%d pixels for %g×%g points: not one scale both ways", w, h, area.Size.W, area.Size.H)
	}
	return Picture{Image: rgba, Scale: scale}, nil
}

// rgbaOfImage copies a CGImage's pixels.
func rgbaOfImage(img uintptr) (*image.RGBA, error) {
	l := bitmapLayout{
		Width:            int(cgImageGetWidth(img)),
		Height:           int(cgImageGetHeight(img)),
		BitsPerComponent: int(cgImageGetBitsPerComponent(img)),
		BitsPerPixel:     int(cgImageGetBitsPerPixel(img)),
		BytesPerRow:      int(cgImageGetBytesPerRow(img)),
		BitmapInfo:       cgImageGetBitmapInfo(img),
	}
	provider := cgImageGetDataProvider(img)
	if provider == 0 {
		return nil, errors.New("macOS's picture of the screen has no pixels to read")
	}
	data := cgDataProviderCopyData(provider)
	if data == 0 {
		return nil, errors.New("macOS's picture of the screen could not be copied")
	}
	defer macos.CFRelease(data)
	n, p := macos.CFDataGetLength(data), macos.CFDataGetBytePtr(data)
	if n <= 0 || p == 0 {
		return nil, errors.New("macOS's picture of the screen is empty")
	}
	// The bytes are CoreFoundation's, alive until data is released, and
	// read only before then.
	buf := unsafe.Slice(*(**byte)(unsafe.Pointer(&p)), n)
	return rgbaFromBitmap(buf, l)
}
