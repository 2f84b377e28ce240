package macos

import (
	"fmt"
	"unsafe"

	"github.com/ebitengine/purego"
)

// The frameworks and libraries Reins binds. Since macOS 11 they live only
// in the dyld shared cache, not on disk, and dlopen of these paths still
// finds them: never test for the files.
const (
	AppKit              = "/System/Library/Frameworks/AppKit.framework/AppKit"
	ApplicationServices = "/System/Library/Frameworks/ApplicationServices.framework/ApplicationServices"
	Carbon              = "/System/Library/Frameworks/Carbon.framework/Carbon"
	CoreFoundation      = "/System/Library/Frameworks/CoreFoundation.framework/CoreFoundation"
	CoreGraphics        = "/System/Library/Frameworks/CoreGraphics.framework/CoreGraphics"
	CoreServices        = "/System/Library/Frameworks/CoreServices.framework/CoreServices"
	LibSystem           = "/usr/lib/libSystem.B.dylib"
)

// Open loads a framework or library, or says which one it could not.
func Open(path string) (uintptr, error) {
	h, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return 0, fmt.Errorf("cannot load %s: %w", path, err)
	}
	return h, nil
}

// Binder binds symbols one after another and keeps the first failure, so
// that a list of bindings reads as one block with one check at its end: a
// missing symbol is an error that names it, rather than purego's panic.
// Once one has failed, the later calls do nothing.
type Binder struct{ err error }

// Err is the first failure, or nil.
func (b *Binder) Err() error { return b.err }

// Open loads a framework or library; 0 once anything failed.
func (b *Binder) Open(path string) uintptr {
	if b.err != nil {
		return 0
	}
	h, err := Open(path)
	b.err = err
	return h
}

// Func binds the C function name of lib to *fn, a pointer to a Go
// function variable of its signature.
func (b *Binder) Func(lib uintptr, name string, fn any) {
	if sym := b.lookup(lib, name); sym != 0 {
		purego.RegisterFunc(fn, sym)
	}
}

// Global reads the global pointer variable name of lib (a CFStringRef
// constant, say) into *val. Going through &sym keeps vet's uintptr rule
// satisfied; the memory is the framework's, never moved by Go.
func (b *Binder) Global(lib uintptr, name string, val *uintptr) {
	if sym := b.lookup(lib, name); sym != 0 {
		*val = **(**uintptr)(unsafe.Pointer(&sym))
	}
}

// Symbol puts the address of the global name of lib in *addr, for one that
// is a struct (kCFTypeArrayCallBacks) or a queue (_dispatch_main_q) rather
// than a pointer.
func (b *Binder) Symbol(lib uintptr, name string, addr *uintptr) {
	if sym := b.lookup(lib, name); sym != 0 {
		*addr = sym
	}
}

func (b *Binder) lookup(lib uintptr, name string) uintptr {
	if b.err != nil {
		return 0
	}
	sym, err := purego.Dlsym(lib, name)
	if err != nil {
		b.err = fmt.Errorf("cannot find %s: %w", name, err)
		return 0
	}
	return sym
}

// BindOptional binds a function only some versions of macOS have, and
// reports whether this one has it; fn stays nil when it does not.
func BindOptional(lib uintptr, name string, fn any) bool {
	sym, err := purego.Dlsym(lib, name)
	if err != nil {
		return false
	}
	purego.RegisterFunc(fn, sym)
	return true
}
