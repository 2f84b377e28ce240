package deskread

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/reins-app/reins/executor"
	gdesktop "github.com/reins-app/reins/grounding/desktop"
	"github.com/reins-app/reins/internal/macos"
)

// The accessibility reader's macOS half: [axSource] over AXUIElement and
// CoreFoundation through purego (internal/macos). What it reads becomes a tree in axmap.go.
//
// Ownership follows the CoreFoundation rule: what a Create or Copy
// function returns is the caller's (+1) and is released with CFRelease;
// what a Get function returns is borrowed. Every element this file hands
// out is retained first and counted in axLive until released, so a test
// can tell that a read left nothing behind.

var (
	// AXUIElementRef AXUIElementCreateApplication(pid_t)
	axUIElementCreateApplication func(pid int32) uintptr
	// AXError AXUIElementCopyMultipleAttributeValues(AXUIElementRef,
	// CFArrayRef attributes, AXCopyMultipleAttributeOptions, CFArrayRef *values)
	axUIElementCopyMultipleAttributeValues func(el, attrs uintptr, options uint32, values *uintptr) int32
	// AXError AXUIElementCopyElementAtPosition(AXUIElementRef, float x, float y, AXUIElementRef *)
	axUIElementCopyElementAtPosition func(app uintptr, x, y float32, el *uintptr) int32
	// CFTypeID AXUIElementGetTypeID(void), AXValueGetTypeID(void)
	axUIElementGetTypeID func() uint
	axValueGetTypeID     func() uint
	// AXValueType AXValueGetType(AXValueRef)
	axValueGetType func(v uintptr) uint32
	// Boolean AXValueGetValue(AXValueRef, AXValueType, void *), bound once
	// per type of the pointer it fills.
	axValueGetPoint func(v uintptr, typ uint32, p *cgPoint) bool
	axValueGetSize  func(v uintptr, typ uint32, s *cgSize) bool
	axValueGetError func(v uintptr, typ uint32, e *int32) bool

	// Type IDs, read once.
	typeAXElement, typeAXValue, typeCFString, typeCFBoolean, typeCFNumber, typeCFArray uint
)

// AXValueType constants (AXValue.h).
const (
	axValueCGPointType = 1
	axValueCGSizeType  = 2
	axValueAXErrorType = 5
)

var (
	axReadOnce sync.Once
	axReadErr  error
	// axLive counts the element references this file has handed out and
	// not yet released.
	axLive atomic.Int64
)

// loadAXRead binds the reader's functions, once, after loadMac.
func loadAXRead() error {
	axReadOnce.Do(func() {
		if err := loadMac(); err != nil {
			axReadErr = err
			return
		}
		axReadErr = bindAXRead()
	})
	return axReadErr
}

func bindAXRead() error {
	var b macos.Binder
	as := b.Open(macos.ApplicationServices)
	b.Func(as, "AXUIElementCreateApplication", &axUIElementCreateApplication)
	b.Func(as, "AXUIElementCopyMultipleAttributeValues", &axUIElementCopyMultipleAttributeValues)
	b.Func(as, "AXUIElementCopyElementAtPosition", &axUIElementCopyElementAtPosition)
	b.Func(as, "AXUIElementGetTypeID", &axUIElementGetTypeID)
	b.Func(as, "AXValueGetTypeID", &axValueGetTypeID)
	b.Func(as, "AXValueGetType", &axValueGetType)
	b.Func(as, "AXValueGetValue", &axValueGetPoint)
	b.Func(as, "AXValueGetValue", &axValueGetSize)
	b.Func(as, "AXValueGetValue", &axValueGetError)
	if err := b.Err(); err != nil {
		return err
	}
	typeAXElement, typeAXValue = axUIElementGetTypeID(), axValueGetTypeID()
	typeCFString, typeCFBoolean = macos.CFStringGetTypeID(), macos.CFBooleanGetTypeID()
	typeCFNumber, typeCFArray = macos.CFNumberGetTypeID(), macos.CFArrayGetTypeID()
	return nil
}

// axCode lets axmap.go tell AXErrors apart.
func (e axError) axCode() int32 { return int32(e) }

var (
	attrArraysMu sync.Mutex
	attrArrays   = map[string]uintptr{} // guarded by attrArraysMu; CFArrays of attribute names, kept for the process
)

// attrArray is a CFArray of the CFStrings names, made once per list.
func attrArray(names []string) (uintptr, error) {
	key := strings.Join(names, ",")
	attrArraysMu.Lock()
	defer attrArraysMu.Unlock()
	if a, ok := attrArrays[key]; ok {
		return a, nil
	}
	refs := make([]uintptr, len(names))
	for i, n := range names {
		s, err := cfConst(n)
		if err != nil {
			return 0, err
		}
		refs[i] = s
	}
	a := macos.NewCFArray(refs)
	if a == 0 {
		return 0, errors.New("cannot make a CFArray of attribute names")
	}
	attrArrays[key] = a
	return a, nil
}

// axApp is the [axSource] of one running application.
type axApp struct {
	el      uintptr // AXUIElementCreateApplication's, released by close
	timeout float32 // seconds, set on every element handed out
}

var _ axSource = (*axApp)(nil)

// newAXApp makes the application element of pid, with the messaging
// timeout: setting it on one element sets it for that element only, so
// every element handed out gets it too.
func newAXApp(pid int, timeout time.Duration) (*axApp, error) {
	el := axUIElementCreateApplication(int32(pid))
	if el == 0 {
		return nil, fmt.Errorf("%w (pid %d): macOS gave no Accessibility element for it", ErrNoAccessibleApp, pid)
	}
	a := &axApp{el: el, timeout: float32(timeout.Seconds())}
	axUIElementSetMessagingTimeout(el, a.timeout)
	return a, nil
}

func (a *axApp) close() { macos.CFRelease(a.el) }

func (a *axApp) app() axRef { return axRef(a.el) }

// hold retains a borrowed element for the caller.
func (a *axApp) hold(el uintptr) axRef {
	macos.CFRetain(el)
	axLive.Add(1)
	axUIElementSetMessagingTimeout(el, a.timeout)
	return axRef(el)
}

func (a *axApp) release(el axRef) {
	if el != 0 {
		macos.CFRelease(uintptr(el))
		axLive.Add(-1)
	}
}

func (a *axApp) equal(x, y axRef) bool { return x == y || macos.CFEqual(uintptr(x), uintptr(y)) }

func (a *axApp) attrs(el axRef, names []string) ([]axVal, error) {
	arr, err := attrArray(names)
	if err != nil {
		return nil, err
	}
	var vals uintptr
	if err := axErr(axUIElementCopyMultipleAttributeValues(uintptr(el), arr, 0, &vals)); err != nil {
		return nil, err
	}
	if vals == 0 {
		return nil, axError(axCodeNoValue)
	}
	defer macos.CFRelease(vals)
	out := make([]axVal, len(names))
	n := min(macos.CFArrayGetCount(vals), len(names))
	for i := range n {
		out[i] = a.convert(macos.CFArrayGetValueAtIndex(vals, i))
	}
	return out, nil
}

func (a *axApp) attr(el axRef, name string) (axVal, error) {
	attr, err := cfConst(name)
	if err != nil {
		return axVal{}, err
	}
	var v uintptr
	if err := axErr(axUIElementCopyAttributeValue(uintptr(el), attr, &v)); err != nil {
		return axVal{}, err
	}
	if v == 0 {
		return axVal{}, nil
	}
	defer macos.CFRelease(v)
	return a.convert(v), nil
}

func (a *axApp) at(x, y float64) (axRef, error) {
	var el uintptr
	if err := axErr(axUIElementCopyElementAtPosition(a.el, float32(x), float32(y), &el)); err != nil {
		return 0, err
	}
	if el == 0 {
		return 0, axError(axCodeNoValue)
	}
	// Copied, so already the caller's: counted, not retained again.
	axLive.Add(1)
	axUIElementSetMessagingTimeout(el, a.timeout)
	return axRef(el), nil
}

func (a *axApp) pid(el axRef) (int, error) {
	var p int32
	if err := axErr(axUIElementGetPid(uintptr(el), &p)); err != nil {
		return 0, fmt.Errorf("cannot read the element's process: %w", err)
	}
	return int(p), nil
}

// convert reads a borrowed CFTypeRef into an axVal; elements in it are
// retained for the caller.
func (a *axApp) convert(v uintptr) axVal {
	if v == 0 {
		return axVal{}
	}
	switch macos.CFGetTypeID(v) {
	case typeCFString:
		return axVal{Kind: axkString, Str: macos.GoString(v)}
	case typeCFBoolean:
		if macos.CFBooleanGetValue(v) {
			return axVal{Kind: axkBool, Num: 1}
		}
		return axVal{Kind: axkBool}
	case typeCFNumber:
		if f, ok := macos.NumberFloat(v); ok {
			return axVal{Kind: axkNumber, Num: f}
		}
		return axVal{Kind: axkOther}
	case typeAXValue:
		switch axValueGetType(v) {
		case axValueCGPointType:
			var p cgPoint
			if axValueGetPoint(v, axValueCGPointType, &p) {
				return axVal{Kind: axkPoint, X: p.X, Y: p.Y}
			}
		case axValueCGSizeType:
			var s cgSize
			if axValueGetSize(v, axValueCGSizeType, &s) {
				return axVal{Kind: axkSize, X: s.W, Y: s.H}
			}
		case axValueAXErrorType:
			// The slot of an attribute the element lacks, in a
			// CopyMultipleAttributeValues answer.
			var code int32
			axValueGetError(v, axValueAXErrorType, &code)
			return axVal{Code: code}
		}
		return axVal{Kind: axkOther}
	case typeAXElement:
		return axVal{Kind: axkElements, Elems: []axRef{a.hold(v)}}
	case typeCFArray:
		n := macos.CFArrayGetCount(v)
		out := axVal{Kind: axkElements, Elems: make([]axRef, 0, n)}
		for i := range n {
			if e := macos.CFArrayGetValueAtIndex(v, i); e != 0 && macos.CFGetTypeID(e) == typeAXElement {
				out.Elems = append(out.Elems, a.hold(e))
			}
		}
		return out
	}
	return axVal{Kind: axkOther} // CFNull among them
}

// axOpts are the bounds of a read whose context ends at ctx's deadline:
// no call waits past it.
func axOpts(ctx context.Context) axReadOptions {
	var o axReadOptions
	o.defaults()
	if d, ok := ctx.Deadline(); ok {
		if left := time.Until(d); left < o.CallTimeout {
			o.CallTimeout = max(left, 50*time.Millisecond)
		}
	}
	return o
}

// axTargetOf names the application of pid, or says it is not running.
func axTargetOf(pid int) (axTarget, error) {
	if pid <= 0 {
		return axTarget{}, fmt.Errorf("%w (pid %d)", ErrNoAccessibleApp, pid)
	}
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return axTarget{}, fmt.Errorf("%w (pid %d): no such process is running", ErrNoAccessibleApp, pid)
	}
	return axTarget{Name: appName(pid), PID: pid}, nil
}

// axBegin checks what every read needs, and opens the application.
func (m *Mac) axBegin(ctx context.Context, pid int) (*axApp, axTarget, axReadOptions, error) {
	var none axReadOptions
	if m.isClosed() {
		return nil, axTarget{}, none, errClosed
	}
	if err := loadAXRead(); err != nil {
		return nil, axTarget{}, none, fmt.Errorf("%w: %v", executor.ErrUnsupported, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, axTarget{}, none, err
	}
	if !axIsProcessTrusted() {
		return nil, axTarget{}, none, errAXPermission
	}
	target, err := axTargetOf(pid)
	if err != nil {
		return nil, axTarget{}, none, err
	}
	opts := axOpts(ctx)
	src, err := newAXApp(pid, opts.CallTimeout)
	if err != nil {
		return nil, axTarget{}, none, err
	}
	return src, target, opts, nil
}

// Accessible implements Reader: the AXUIElements of the focused (else
// main, else first) window of the application with process id pid, in
// global points (DIP). A password field (subrole AXSecureTextField) is
// marked Secret and its value never asked for. Each call to the
// application has a deadline (AXUIElementSetMessagingTimeout); one it does
// not answer in time fails the read with an error that names it.
func (m *Mac) Accessible(ctx context.Context, pid int) (*gdesktop.Tree, error) {
	src, target, opts, err := m.axBegin(ctx, pid)
	if err != nil {
		return nil, err
	}
	defer src.close()
	return readAXTree(ctx, src, target, opts)
}

// AccessibleAt implements Reader: the element the application with
// process id pid says is at (x, y) in global points
// (AXUIElementCopyElementAtPosition), named as Accessible names it; ""
// when none of its windows' elements is there.
func (m *Mac) AccessibleAt(ctx context.Context, pid int, window string, x, y float64) (string, error) {
	src, target, opts, err := m.axBegin(ctx, pid)
	if err != nil {
		return "", err
	}
	defer src.close()
	return axElementAt(ctx, src, target, x, y, opts)
}
