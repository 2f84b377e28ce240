package deskread

import (
	"context"
	"errors"
	"fmt"
	"image"
	"sync"
	"time"

	"github.com/ebitengine/purego/objc"
	"github.com/reins-app/reins/internal/macos"
)

// Pictures of the desktop through ScreenCaptureKit (macOS 14 and later),
// with purego's Objective-C blocks for its completion handlers, which
// ScreenCaptureKit calls on a queue of its own:
//
//	+[SCShareableContent getShareableContentWithCompletionHandler:
//	    (void (^)(SCShareableContent *content, NSError *error))]   // 12.3
//	-[SCShareableContent displays] → NSArray<SCDisplay *> *
//	-[SCDisplay displayID] → CGDirectDisplayID
//	-[SCContentFilter initWithDisplay:(SCDisplay *) excludingWindows:(NSArray<SCWindow *> *)]
//	-[SCStreamConfiguration setWidth:(size_t)], setHeight:(size_t),
//	    setShowsCursor:(BOOL), setScalesToFit:(BOOL)                // 14.0
//	+[SCScreenshotManager captureImageWithFilter:(SCContentFilter *)
//	    configuration:(SCStreamConfiguration *)
//	    completionHandler:(void (^)(CGImageRef image, NSError *error))] // 14.0
//
// One picture per display, each at the plan's scale (capture_mac.go), put
// together into one. The CGImage a handler gets is valid only inside it,
// so the handler retains it for the waiting side. Unverified on a Mac;
// among what only a Mac can say: purego gives its blocks the class
// __NSMallocBlock__, which it looks up as its objc package starts and
// which CoreFoundation defines; the Reins app links CoreFoundation from
// its start (cgo, AppKit), a test binary of this package may not.

// screenCaptureKit is where ScreenCaptureKit's classes are.
const screenCaptureKit = "/System/Library/Frameworks/ScreenCaptureKit.framework/ScreenCaptureKit"

var sck struct {
	once sync.Once
	// manager is SCScreenshotManager, 0 on a macOS without it (before 14)
	// or without ScreenCaptureKit.
	manager                          objc.Class
	shareable, filter, config, array objc.Class
}

var (
	selGetShareable    = objc.RegisterName("getShareableContentWithCompletionHandler:")
	selDisplays        = objc.RegisterName("displays")
	selDisplayID       = objc.RegisterName("displayID")
	selCount           = objc.RegisterName("count")
	selObjectAtIndex   = objc.RegisterName("objectAtIndex:")
	selAlloc           = objc.RegisterName("alloc")
	selInit            = objc.RegisterName("init")
	selRelease         = objc.RegisterName("release")
	selArray           = objc.RegisterName("array")
	selInitWithDisplay = objc.RegisterName("initWithDisplay:excludingWindows:")
	selSetWidth        = objc.RegisterName("setWidth:")
	selSetHeight       = objc.RegisterName("setHeight:")
	selSetShowsCursor  = objc.RegisterName("setShowsCursor:")
	selSetScalesToFit  = objc.RegisterName("setScalesToFit:")
	selCaptureImage    = objc.RegisterName("captureImageWithFilter:configuration:completionHandler:")
	selLocalizedDesc   = objc.RegisterName("localizedDescription")
)

// loadSCK finds ScreenCaptureKit's classes, once; sck.manager stays 0 when
// this macOS cannot take pictures with it.
func loadSCK() {
	sck.once.Do(func() {
		if _, err := macos.Open(screenCaptureKit); err != nil {
			return
		}
		sck.shareable = objc.GetClass("SCShareableContent")
		sck.filter = objc.GetClass("SCContentFilter")
		sck.config = objc.GetClass("SCStreamConfiguration")
		sck.array = objc.GetClass("NSArray")
		if sck.shareable != 0 && sck.filter != 0 && sck.config != 0 && sck.array != 0 {
			sck.manager = objc.GetClass("SCScreenshotManager")
		}
	})
}

// sckWaitDefault bounds a wait for ScreenCaptureKit when ctx sets none.
const sckWaitDefault = 10 * time.Second

// sckReply is what one completion handler gave: an object it retained for
// the waiting side (0 when none), or why there is none.
type sckReply struct {
	obj uintptr
	err error
}

// sckCall is one call whose completion handler a goroutine waits on. A
// handler that comes after the wait gave up releases what it got.
type sckCall struct {
	what  string
	mu    sync.Mutex
	gone  bool // guarded by mu: the waiting side left
	reply chan sckReply
}

func newSCKCall(what string) *sckCall { return &sckCall{what: what, reply: make(chan sckReply, 1)} }

// block is the completion handler, a block taking an object and an
// NSError *: void (^)(id, NSError *). The object is a CGImageRef for a
// picture; a CFType is retained as any object is.
func (c *sckCall) block() objc.Block {
	return objc.NewBlock(func(_ objc.Block, obj, nserr objc.ID) {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.gone {
			return
		}
		switch {
		case nserr != 0:
			c.reply <- sckReply{err: fmt.Errorf("macOS could not %s: %s", c.what, macos.GoString(uintptr(nserr.Send(selLocalizedDesc))))}
		case obj == 0:
			c.reply <- sckReply{err: fmt.Errorf("macOS could not %s, and said nothing of why", c.what)}
		default:
			c.reply <- sckReply{obj: macos.CFRetain(uintptr(obj))}
		}
	})
}

// wait returns the handler's object (+1), or an error when ctx ends first.
func (c *sckCall) wait(ctx context.Context) (uintptr, error) {
	select {
	case r := <-c.reply:
		return r.obj, r.err
	case <-ctx.Done():
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gone = true
	select {
	case r := <-c.reply:
		if r.obj != 0 {
			macos.CFRelease(r.obj)
		}
	default:
	}
	return 0, fmt.Errorf("macOS did not %s in time: %w", c.what, ctx.Err())
}

// send calls sel on target with args and a completion handler, and waits
// for it.
func (c *sckCall) send(ctx context.Context, target objc.ID, sel objc.SEL, args ...any) (uintptr, error) {
	b := c.block()
	// ScreenCaptureKit copies the block it keeps; this reference is ours.
	defer b.Release()
	target.Send(sel, append(args, b)...)
	return c.wait(ctx)
}

// captureWithSCK takes one picture per display of plan and puts them
// together. Call it inside a macos.WithPool.
func captureWithSCK(ctx context.Context, plan capturePlan) (Picture, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, sckWaitDefault)
		defer cancel()
	}
	content, err := newSCKCall("list the displays to take a picture of").send(ctx, objc.ID(sck.shareable), selGetShareable)
	if err != nil {
		return Picture{}, err
	}
	defer macos.CFRelease(content)
	byID := map[uint32]objc.ID{}
	displays := objc.ID(content).Send(selDisplays)
	for i := range objc.Send[uint](displays, selCount) {
		d := displays.Send(selObjectAtIndex, i)
		byID[objc.Send[uint32](d, selDisplayID)] = d
	}
	none := objc.ID(sck.array).Send(selArray)
	pics := make([]*image.RGBA, len(plan.Tiles))
	for i, t := range plan.Tiles {
		d, ok := byID[t.ID]
		if !ok {
			return Picture{}, fmt.Errorf("ScreenCaptureKit does not list display %d; it may have just been disconnected: try again", t.ID)
		}
		pic, err := captureDisplay(ctx, d, none, t)
		if err != nil {
			return Picture{}, err
		}
		pics[i] = pic
	}
	return plan.compose(pics)
}

// captureDisplay takes the picture of one display, every window on it, at
// the tile's size, without the pointer.
func captureDisplay(ctx context.Context, display, noWindows objc.ID, t captureTile) (*image.RGBA, error) {
	filter := objc.ID(sck.filter).Send(selAlloc).Send(selInitWithDisplay, display, noWindows)
	if filter == 0 {
		return nil, errors.New("ScreenCaptureKit made no filter for the display")
	}
	defer filter.Send(selRelease)
	config := objc.ID(sck.config).Send(selAlloc).Send(selInit)
	if config == 0 {
		return nil, errors.New("ScreenCaptureKit made no configuration")
	}
	defer config.Send(selRelease)
	config.Send(selSetWidth, uint(t.W))
	config.Send(selSetHeight, uint(t.H))
	config.Send(selSetShowsCursor, false)
	config.Send(selSetScalesToFit, true)
	img, err := newSCKCall(fmt.Sprintf("take a picture of display %d", t.ID)).send(ctx, objc.ID(sck.manager), selCaptureImage, filter, config)
	if err != nil {
		return nil, err
	}
	defer macos.CFRelease(img)
	return rgbaOfImage(img)
}
