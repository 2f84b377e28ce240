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
	"github.com/reins-app/reins/internal/macos/ax"
)

// The accessibility reader's macOS half: [axSource] over AXUIElement and
// CoreFoundation, through the bindings of internal/macos/ax and
// internal/macos. What it reads becomes a tree in axmap.go.
//
// Ownership follows the CoreFoundation rule: what a Create or Copy
// function returns is the caller's (+1) and is released with CFRelease;
// what a Get function returns is borrowed. Every element this file hands
// out is retained first and counted in axLive until released, so a test
// can tell that a read left nothing behind.

// axLive counts the element references this file has handed out and not
// yet released.
var axLive atomic.Int64

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
		s, err := macos.ConstString(n)
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
	el      ax.Element // the application's, released by close
	timeout float32    // seconds, set on every element handed out
}

var _ axSource = (*axApp)(nil)

// newAXApp makes the application element of pid, with the messaging
// timeout: setting it on one element sets it for that element only, so
// every element handed out gets it too.
func newAXApp(pid int, timeout time.Duration) (*axApp, error) {
	el := ax.Application(pid)
	if el == 0 {
		return nil, fmt.Errorf("%w (pid %d): macOS gave no Accessibility element for it", ErrNoAccessibleApp, pid)
	}
	a := &axApp{el: el, timeout: float32(timeout.Seconds())}
	el.SetMessagingTimeout(a.timeout)
	return a, nil
}

func (a *axApp) close() { a.el.Release() }

func (a *axApp) app() axRef { return axRef(a.el) }

// hold retains a borrowed element for the caller.
func (a *axApp) hold(el uintptr) axRef {
	macos.CFRetain(el)
	axLive.Add(1)
	ax.Element(el).SetMessagingTimeout(a.timeout)
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
	vals, err := ax.Element(el).CopyAttributes(arr)
	if err != nil {
		return nil, err
	}
	if vals == 0 {
		return nil, ax.NoValue
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
	v, err := ax.Element(el).CopyAttribute(name)
	if err != nil {
		return axVal{}, err
	}
	if v == 0 {
		return axVal{}, nil
	}
	defer macos.CFRelease(v)
	return a.convert(v), nil
}

func (a *axApp) at(x, y float64) (axRef, error) {
	el, err := a.el.CopyElementAt(x, y)
	if err != nil {
		return 0, err
	}
	if el == 0 {
		return 0, ax.NoValue
	}
	// Copied, so already the caller's: counted, not retained again.
	axLive.Add(1)
	el.SetMessagingTimeout(a.timeout)
	return axRef(el), nil
}

func (a *axApp) pid(el axRef) (int, error) { return ax.Element(el).PID() }

// convert reads a borrowed CFTypeRef into an axVal; elements in it are
// retained for the caller.
func (a *axApp) convert(v uintptr) axVal {
	if v == 0 {
		return axVal{}
	}
	switch macos.CFGetTypeID(v) {
	case macos.CFStringGetTypeID():
		return axVal{Kind: axkString, Str: macos.GoString(v)}
	case macos.CFBooleanGetTypeID():
		if macos.CFBooleanGetValue(v) {
			return axVal{Kind: axkBool, Num: 1}
		}
		return axVal{Kind: axkBool}
	case macos.CFNumberGetTypeID():
		if f, ok := macos.NumberFloat(v); ok {
			return axVal{Kind: axkNumber, Num: f}
		}
		return axVal{Kind: axkOther}
	case ax.ValueTypeID():
		if p, ok := ax.ValuePoint(v); ok {
			return axVal{Kind: axkPoint, X: p.X, Y: p.Y}
		}
		if s, ok := ax.ValueSize(v); ok {
			return axVal{Kind: axkSize, X: s.W, Y: s.H}
		}
		// The slot of an attribute the element lacks, in a
		// CopyAttributes answer.
		if code, ok := ax.ValueError(v); ok {
			return axVal{Code: code}
		}
		return axVal{Kind: axkOther}
	case ax.ElementTypeID():
		return axVal{Kind: axkElements, Elems: []axRef{a.hold(v)}}
	case macos.CFArrayGetTypeID():
		n := macos.CFArrayGetCount(v)
		out := axVal{Kind: axkElements, Elems: make([]axRef, 0, n)}
		for i := range n {
			if e := macos.CFArrayGetValueAtIndex(v, i); e != 0 && macos.CFGetTypeID(e) == ax.ElementTypeID() {
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
	if err := loadMac(); err != nil {
		return nil, axTarget{}, none, fmt.Errorf("%w: %v", executor.ErrUnsupported, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, axTarget{}, none, err
	}
	if !ax.IsProcessTrusted() {
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
