package macos

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/ebitengine/purego"
	"github.com/ebitengine/purego/objc"
)

// The CoreFoundation functions, as their headers declare them; CFIndex is
// a long (Go int), CFTypeID an unsigned long (Go uint), Boolean a byte that
// purego reads as a Go bool.
var cf struct {
	release                    func(ref uintptr)              // void CFRelease(CFTypeRef)
	retain                     func(ref uintptr) uintptr      // CFTypeRef CFRetain(CFTypeRef)
	equal                      func(a, b uintptr) bool        // Boolean CFEqual(CFTypeRef, CFTypeRef)
	getTypeID                  func(ref uintptr) uint         // CFTypeID CFGetTypeID(CFTypeRef)
	stringTypeID               func() uint                    // CFTypeID CFStringGetTypeID(void)
	booleanTypeID              func() uint                    // CFTypeID CFBooleanGetTypeID(void)
	numberTypeID               func() uint                    // CFTypeID CFNumberGetTypeID(void)
	arrayTypeID                func() uint                    // CFTypeID CFArrayGetTypeID(void)
	arrayGetCount              func(a uintptr) int            // CFIndex CFArrayGetCount(CFArrayRef)
	arrayGetValueAtIndex       func(a uintptr, i int) uintptr // const void *CFArrayGetValueAtIndex(CFArrayRef, CFIndex)
	dictionaryGetValue         func(d, key uintptr) uintptr   // const void *CFDictionaryGetValue(CFDictionaryRef, const void *)
	stringGetLength            func(s uintptr) int            // CFIndex CFStringGetLength(CFStringRef)
	stringGetMaximumSizeForEnc func(n int, enc uint32) int    // CFIndex CFStringGetMaximumSizeForEncoding(CFIndex, CFStringEncoding)
	dataGetLength              func(d uintptr) int            // CFIndex CFDataGetLength(CFDataRef)
	dataGetBytePtr             func(d uintptr) uintptr        // const UInt8 *CFDataGetBytePtr(CFDataRef)
	booleanGetValue            func(b uintptr) bool           // Boolean CFBooleanGetValue(CFBooleanRef)
	// CFStringRef CFStringCreateWithCString(CFAllocatorRef, const char *, CFStringEncoding)
	stringCreateWithCString func(alloc uintptr, s string, enc uint32) uintptr
	// Boolean CFNumberGetValue(CFNumberRef, CFNumberType, void *): bound once
	// per type of the pointer it fills; CFNumberType is a CFIndex.
	numberGetFloat64 func(n uintptr, typ int, out *float64) bool
	numberGetInt64   func(n uintptr, typ int, out *int64) bool
	// Boolean CFStringGetCString(CFStringRef, char *buffer, CFIndex size, CFStringEncoding)
	stringGetCString func(s uintptr, buf *byte, size int, enc uint32) bool
	// CFArrayRef CFArrayCreate(CFAllocatorRef, const void **values, CFIndex n, const CFArrayCallBacks *)
	arrayCreate func(alloc uintptr, values *uintptr, n int, callbacks uintptr) uintptr
	// CFDictionaryRef CFDictionaryCreate(CFAllocatorRef, const void **keys,
	// const void **values, CFIndex n, const CFDictionaryKeyCallBacks *,
	// const CFDictionaryValueCallBacks *)
	dictionaryCreate func(alloc uintptr, keys, values *uintptr, n int, keyCB, valueCB uintptr) uintptr

	booleanTrue             uintptr // kCFBooleanTrue
	typeArrayCallBacks      uintptr // &kCFTypeArrayCallBacks
	typeDictionaryKeyCBs    uintptr // &kCFTypeDictionaryKeyCallBacks
	typeDictionaryValueCBs  uintptr // &kCFTypeDictionaryValueCallBacks
	typeString, typeBoolean uint
	typeNumber, typeArray   uint
}

// Constants of CFString.h and CFNumber.h.
const (
	utf8        = 0x08000100 // kCFStringEncodingUTF8
	numberInt64 = 4          // kCFNumberSInt64Type
	numberFloat = 6          // kCFNumberFloat64Type
)

// MaxString is the longest CFString GoString copies, in UTF-16 units: a
// longer value (a whole document in a text view) is left out rather than
// copied.
const MaxString = 1 << 22

var (
	loadOnce sync.Once
	loadErr  error
)

// Load binds everything this package calls, once; every other function of
// the package may be called only after it succeeded. A missing symbol is an
// error rather than purego's panic.
func Load() error {
	loadOnce.Do(func() { loadErr = load() })
	return loadErr
}

func load() error {
	var b Binder
	lib, sys, cg := b.Open(CoreFoundation), b.Open(LibSystem), b.Open(CoreGraphics)
	appKit = b.Open(AppKit) // the Objective-C classes below are in it, or load with it
	b.Func(lib, "CFRelease", &cf.release)
	b.Func(lib, "CFRetain", &cf.retain)
	b.Func(lib, "CFEqual", &cf.equal)
	b.Func(lib, "CFGetTypeID", &cf.getTypeID)
	b.Func(lib, "CFStringGetTypeID", &cf.stringTypeID)
	b.Func(lib, "CFBooleanGetTypeID", &cf.booleanTypeID)
	b.Func(lib, "CFNumberGetTypeID", &cf.numberTypeID)
	b.Func(lib, "CFArrayGetTypeID", &cf.arrayTypeID)
	b.Func(lib, "CFArrayGetCount", &cf.arrayGetCount)
	b.Func(lib, "CFArrayGetValueAtIndex", &cf.arrayGetValueAtIndex)
	b.Func(lib, "CFArrayCreate", &cf.arrayCreate)
	b.Func(lib, "CFDictionaryGetValue", &cf.dictionaryGetValue)
	b.Func(lib, "CFDictionaryCreate", &cf.dictionaryCreate)
	b.Func(lib, "CFStringCreateWithCString", &cf.stringCreateWithCString)
	b.Func(lib, "CFStringGetLength", &cf.stringGetLength)
	b.Func(lib, "CFStringGetMaximumSizeForEncoding", &cf.stringGetMaximumSizeForEnc)
	b.Func(lib, "CFStringGetCString", &cf.stringGetCString)
	b.Func(lib, "CFDataGetLength", &cf.dataGetLength)
	b.Func(lib, "CFDataGetBytePtr", &cf.dataGetBytePtr)
	b.Func(lib, "CFBooleanGetValue", &cf.booleanGetValue)
	bindRunLoop(&b, lib)
	bindDisplays(&b, cg)
	// One C function, bound once per type of the pointer it fills.
	b.Func(lib, "CFNumberGetValue", &cf.numberGetFloat64)
	b.Func(lib, "CFNumberGetValue", &cf.numberGetInt64)
	b.Global(lib, "kCFBooleanTrue", &cf.booleanTrue)
	b.Symbol(lib, "kCFTypeArrayCallBacks", &cf.typeArrayCallBacks)
	b.Symbol(lib, "kCFTypeDictionaryKeyCallBacks", &cf.typeDictionaryKeyCBs)
	b.Symbol(lib, "kCFTypeDictionaryValueCallBacks", &cf.typeDictionaryValueCBs)
	b.Func(sys, "dispatch_async_f", &dispatch.asyncF)
	b.Func(sys, "pthread_main_np", &dispatch.pthreadMainNP)
	// dispatch_get_main_queue() is a macro for &_dispatch_main_q: the
	// symbol's address is the queue itself.
	b.Symbol(sys, "_dispatch_main_q", &dispatch.mainQueue)
	if err := b.Err(); err != nil {
		return err
	}
	cf.typeString, cf.typeBoolean = cf.stringTypeID(), cf.booleanTypeID()
	cf.typeNumber, cf.typeArray = cf.numberTypeID(), cf.arrayTypeID()
	for _, c := range []struct {
		name string
		cls  *objc.Class
	}{
		{"NSAutoreleasePool", &cls.autoreleasePool},
		{"NSWorkspace", &cls.workspace},
		{"NSRunningApplication", &cls.runningApplication},
		{"NSApplication", &cls.application},
	} {
		if *c.cls = objc.GetClass(c.name); *c.cls == 0 {
			return fmt.Errorf("cannot find the Objective-C class %s", c.name)
		}
	}
	dispatch.work = purego.NewCallback(runMainWork) // made once: callbacks are never freed
	return nil
}

// CFRelease releases a CoreFoundation object the caller owns.
func CFRelease(ref uintptr) { cf.release(ref) }

// CFRetain retains ref for the caller and returns it.
func CFRetain(ref uintptr) uintptr { return cf.retain(ref) }

// CFEqual reports whether a and b are equal objects.
func CFEqual(a, b uintptr) bool { return cf.equal(a, b) }

// CFGetTypeID is the type of ref, to compare with the type IDs below.
func CFGetTypeID(ref uintptr) uint { return cf.getTypeID(ref) }

// CFStringGetTypeID is the type ID of CFString.
func CFStringGetTypeID() uint { return cf.typeString }

// CFBooleanGetTypeID is the type ID of CFBoolean.
func CFBooleanGetTypeID() uint { return cf.typeBoolean }

// CFNumberGetTypeID is the type ID of CFNumber.
func CFNumberGetTypeID() uint { return cf.typeNumber }

// CFArrayGetTypeID is the type ID of CFArray.
func CFArrayGetTypeID() uint { return cf.typeArray }

// CFArrayGetCount is the number of values in a CFArray.
func CFArrayGetCount(a uintptr) int { return cf.arrayGetCount(a) }

// CFArrayGetValueAtIndex is the value at i in a CFArray, borrowed.
func CFArrayGetValueAtIndex(a uintptr, i int) uintptr { return cf.arrayGetValueAtIndex(a, i) }

// CFDictionaryGetValue is the value of key in a CFDictionary, borrowed; 0
// when it has none.
func CFDictionaryGetValue(d, key uintptr) uintptr { return cf.dictionaryGetValue(d, key) }

// CFDataGetLength is the number of bytes in a CFData.
func CFDataGetLength(d uintptr) int { return cf.dataGetLength(d) }

// CFDataGetBytePtr is the address of a CFData's bytes, valid while the
// CFData lives.
func CFDataGetBytePtr(d uintptr) uintptr { return cf.dataGetBytePtr(d) }

// CFBooleanGetValue reads a CFBoolean.
func CFBooleanGetValue(b uintptr) bool { return cf.booleanGetValue(b) }

// CFBooleanTrue is kCFBooleanTrue.
func CFBooleanTrue() uintptr { return cf.booleanTrue }

// NewCFArray makes a CFArray (+1) that retains each of refs, or returns 0.
func NewCFArray(refs []uintptr) uintptr {
	if len(refs) == 0 {
		return cf.arrayCreate(0, nil, 0, cf.typeArrayCallBacks)
	}
	return cf.arrayCreate(0, &refs[0], len(refs), cf.typeArrayCallBacks)
}

// NewCFDictionary makes a CFDictionary (+1) of keys to vals, retaining
// both, or returns 0. keys and vals must be as long as each other.
func NewCFDictionary(keys, vals []uintptr) uintptr {
	if len(keys) != len(vals) {
		panic("macos: NewCFDictionary with keys and values of different lengths")
	}
	if len(keys) == 0 {
		return cf.dictionaryCreate(0, nil, nil, 0, cf.typeDictionaryKeyCBs, cf.typeDictionaryValueCBs)
	}
	return cf.dictionaryCreate(0, &keys[0], &vals[0], len(keys), cf.typeDictionaryKeyCBs, cf.typeDictionaryValueCBs)
}

// NewCFString makes a CFString (+1) of s, or returns 0.
func NewCFString(s string) uintptr { return cf.stringCreateWithCString(0, s, utf8) }

var constStrings struct {
	mu sync.Mutex
	m  map[string]uintptr // guarded by mu; kept for the process
}

// ConstString is a CFString of name, made once and kept for the process:
// for a constant the headers define as a CFSTR macro rather than export
// as a symbol, such as the kAX…Attribute names or the session
// dictionary's keys. Never release it.
func ConstString(name string) (uintptr, error) {
	constStrings.mu.Lock()
	defer constStrings.mu.Unlock()
	if s, ok := constStrings.m[name]; ok {
		return s, nil
	}
	s := NewCFString(name)
	if s == 0 {
		return 0, fmt.Errorf("cannot make the CFString %q", name)
	}
	if constStrings.m == nil {
		constStrings.m = map[string]uintptr{}
	}
	constStrings.m[name] = s
	return s, nil
}

// GoString copies a CFString, or a toll-free bridged NSString; "" for nil,
// or for one longer than MaxString.
func GoString(s uintptr) string {
	if s == 0 {
		return ""
	}
	n := cf.stringGetLength(s)
	if n <= 0 || n > MaxString {
		return ""
	}
	size := cf.stringGetMaximumSizeForEnc(n, utf8) + 1
	buf := make([]byte, size)
	if !cf.stringGetCString(s, &buf[0], size, utf8) {
		return ""
	}
	if i := bytes.IndexByte(buf, 0); i >= 0 {
		buf = buf[:i]
	}
	return string(buf)
}

// NumberInt reads a CFNumber as an integer, or a CFBoolean as 0 or 1; 0
// for nil or anything else. A fraction is cut off.
func NumberInt(ref uintptr) int64 {
	if ref == 0 {
		return 0
	}
	switch cf.getTypeID(ref) {
	case cf.typeBoolean:
		if cf.booleanGetValue(ref) {
			return 1
		}
	case cf.typeNumber:
		var n int64
		cf.numberGetInt64(ref, numberInt64, &n) // false only when the value was rounded
		return n
	}
	return 0
}

// NumberFloat reads a CFNumber as a double, and reports whether ref is a
// CFNumber whose value a double holds exactly.
func NumberFloat(ref uintptr) (float64, bool) {
	if ref == 0 || cf.getTypeID(ref) != cf.typeNumber {
		return 0, false
	}
	var f float64
	ok := cf.numberGetFloat64(ref, numberFloat, &f)
	return f, ok
}
