package ax

import (
	"fmt"
	"sync"

	"github.com/reins-app/reins/internal/macos"
)

// The functions of AXUIElement.h and AXValue.h, as they declare them.
var fn struct {
	// Boolean AXIsProcessTrusted(void)
	isProcessTrusted func() bool
	// Boolean AXIsProcessTrustedWithOptions(CFDictionaryRef options)
	isProcessTrustedWithOptions func(options uintptr) bool
	// AXUIElementRef AXUIElementCreateSystemWide(void)
	createSystemWide func() uintptr
	// AXUIElementRef AXUIElementCreateApplication(pid_t)
	createApplication func(pid int32) uintptr
	// AXError AXUIElementCopyAttributeValue(AXUIElementRef, CFStringRef, CFTypeRef *value)
	copyAttributeValue func(el, attr uintptr, value *uintptr) int32
	// AXError AXUIElementCopyMultipleAttributeValues(AXUIElementRef,
	// CFArrayRef attributes, AXCopyMultipleAttributeOptions, CFArrayRef *values)
	copyMultipleAttributeValues func(el, attrs uintptr, options uint32, values *uintptr) int32
	// AXError AXUIElementCopyElementAtPosition(AXUIElementRef, float x, float y, AXUIElementRef *)
	copyElementAtPosition func(app uintptr, x, y float32, el *uintptr) int32
	// AXError AXUIElementGetPid(AXUIElementRef, pid_t *pid)
	getPid func(el uintptr, pid *int32) int32
	// AXError AXUIElementSetMessagingTimeout(AXUIElementRef, float timeoutInSeconds)
	setMessagingTimeout func(el uintptr, seconds float32) int32
	// CFTypeID AXUIElementGetTypeID(void), AXValueGetTypeID(void)
	elementTypeID func() uint
	valueTypeID   func() uint
	// AXValueType AXValueGetType(AXValueRef)
	valueGetType func(v uintptr) uint32
	// Boolean AXValueGetValue(AXValueRef, AXValueType, void *), bound once
	// per type of the pointer it fills.
	valueGetPoint func(v uintptr, typ uint32, p *macos.Point) bool
	valueGetSize  func(v uintptr, typ uint32, s *macos.Size) bool
	valueGetError func(v uintptr, typ uint32, e *int32) bool

	trustedCheckOptionPrompt uintptr // kAXTrustedCheckOptionPrompt, a CFStringRef
	typeElement, typeValue   uint
}

var (
	loadOnce sync.Once
	loadErr  error
)

// Load binds everything this package calls, once, after macos.Load; every
// other function of the package may be called only after it succeeded.
func Load() error {
	loadOnce.Do(func() { loadErr = load() })
	return loadErr
}

func load() error {
	if err := macos.Load(); err != nil {
		return err
	}
	var b macos.Binder
	as := b.Open(macos.ApplicationServices)
	b.Func(as, "AXIsProcessTrusted", &fn.isProcessTrusted)
	b.Func(as, "AXIsProcessTrustedWithOptions", &fn.isProcessTrustedWithOptions)
	b.Func(as, "AXUIElementCreateSystemWide", &fn.createSystemWide)
	b.Func(as, "AXUIElementCreateApplication", &fn.createApplication)
	b.Func(as, "AXUIElementCopyAttributeValue", &fn.copyAttributeValue)
	b.Func(as, "AXUIElementCopyMultipleAttributeValues", &fn.copyMultipleAttributeValues)
	b.Func(as, "AXUIElementCopyElementAtPosition", &fn.copyElementAtPosition)
	b.Func(as, "AXUIElementGetPid", &fn.getPid)
	b.Func(as, "AXUIElementSetMessagingTimeout", &fn.setMessagingTimeout)
	b.Func(as, "AXUIElementGetTypeID", &fn.elementTypeID)
	b.Func(as, "AXValueGetTypeID", &fn.valueTypeID)
	b.Func(as, "AXValueGetType", &fn.valueGetType)
	b.Func(as, "AXValueGetValue", &fn.valueGetPoint)
	b.Func(as, "AXValueGetValue", &fn.valueGetSize)
	b.Func(as, "AXValueGetValue", &fn.valueGetError)
	b.Global(as, "kAXTrustedCheckOptionPrompt", &fn.trustedCheckOptionPrompt)
	if err := b.Err(); err != nil {
		return err
	}
	fn.typeElement, fn.typeValue = fn.elementTypeID(), fn.valueTypeID()
	return nil
}

// IsProcessTrusted reports whether macOS lets Reins use Accessibility,
// and so post input (AXIsProcessTrusted); it asks the person nothing.
func IsProcessTrusted() bool { return fn.isProcessTrusted() }

// IsProcessTrustedWithOptions is AXIsProcessTrustedWithOptions: with
// TrustedCheckOptionPrompt set true in options, macOS asks the person.
func IsProcessTrustedWithOptions(options uintptr) bool {
	return fn.isProcessTrustedWithOptions(options)
}

// TrustedCheckOptionPrompt is kAXTrustedCheckOptionPrompt.
func TrustedCheckOptionPrompt() uintptr { return fn.trustedCheckOptionPrompt }

// Element is an AXUIElementRef. One a Create or Copy function returned is
// the caller's, released with [Element.Release].
type Element uintptr

// SystemWide is the system-wide element (+1), or 0.
func SystemWide() Element { return Element(fn.createSystemWide()) }

// Application is the element of the application with process id pid
// (+1), or 0.
func Application(pid int) Element { return Element(fn.createApplication(int32(pid))) }

// ElementTypeID is the CFTypeID of AXUIElement.
func ElementTypeID() uint { return fn.typeElement }

// Release releases an element the caller owns; 0 is left alone.
func (e Element) Release() {
	if e != 0 {
		macos.CFRelease(uintptr(e))
	}
}

// SetMessagingTimeout bounds each call to this element's application, a
// synchronous IPC which by default may block for seconds. Set on the
// system-wide element, it applies to every element.
func (e Element) SetMessagingTimeout(seconds float32) {
	fn.setMessagingTimeout(uintptr(e), seconds)
}

// CopyAttribute is the value of the attribute name (+1), or 0 when it has
// none; the caller releases it with CFRelease.
func (e Element) CopyAttribute(name string) (uintptr, error) {
	attr, err := macos.ConstString(name)
	if err != nil {
		return 0, err
	}
	var v uintptr
	if err := Err(fn.copyAttributeValue(uintptr(e), attr, &v)); err != nil {
		return 0, err
	}
	return v, nil
}

// CopyElement is an attribute whose value is an element, such as
// AXFocusedApplication; the caller releases it.
func (e Element) CopyElement(name string) (Element, error) {
	v, err := e.CopyAttribute(name)
	if err == nil && v == 0 {
		err = NoValue
	}
	if err != nil {
		return 0, fmt.Errorf("cannot read %s: %w", name, err)
	}
	return Element(v), nil
}

// CopyAttributes is a CFArray (+1) of the values of the attributes named
// in attrs, a CFArray of CFStrings, in their order; a slot of an
// attribute the element lacks holds an AXValue of its Error. 0 when there
// is none.
func (e Element) CopyAttributes(attrs uintptr) (uintptr, error) {
	var vals uintptr
	if err := Err(fn.copyMultipleAttributeValues(uintptr(e), attrs, 0, &vals)); err != nil {
		return 0, err
	}
	return vals, nil
}

// CopyElementAt is the element the application e says is at (x, y) in
// global points (+1), or 0.
func (e Element) CopyElementAt(x, y float64) (Element, error) {
	var el uintptr
	if err := Err(fn.copyElementAtPosition(uintptr(e), float32(x), float32(y), &el)); err != nil {
		return 0, err
	}
	return Element(el), nil
}

// PID is the process that owns the element.
func (e Element) PID() (int, error) {
	var p int32
	if err := Err(fn.getPid(uintptr(e), &p)); err != nil {
		return 0, fmt.Errorf("cannot read the element's process: %w", err)
	}
	return int(p), nil
}

// AXValueType values (AXValue.h).
const (
	valuePoint = 1 // kAXValueCGPointType
	valueSize  = 2 // kAXValueCGSizeType
	valueError = 5 // kAXValueAXErrorType
)

// ValueTypeID is the CFTypeID of AXValue.
func ValueTypeID() uint { return fn.typeValue }

// ValuePoint reads an AXValue that holds a CGPoint.
func ValuePoint(v uintptr) (macos.Point, bool) {
	var p macos.Point
	ok := fn.valueGetType(v) == valuePoint && fn.valueGetPoint(v, valuePoint, &p)
	return p, ok
}

// ValueSize reads an AXValue that holds a CGSize.
func ValueSize(v uintptr) (macos.Size, bool) {
	var s macos.Size
	ok := fn.valueGetType(v) == valueSize && fn.valueGetSize(v, valueSize, &s)
	return s, ok
}

// ValueError reads an AXValue that holds an AXError: the slot of an
// attribute the element lacks in a [Element.CopyAttributes] answer.
func ValueError(v uintptr) (Error, bool) {
	if fn.valueGetType(v) != valueError {
		return 0, false
	}
	var code int32
	fn.valueGetError(v, valueError, &code)
	return Error(code), true
}
