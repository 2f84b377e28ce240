package macos

import (
	"os"
	"testing"
)

// These run on a Mac only (the macOS workflow): they call the real
// frameworks.

func TestLoadBindsEverything(t *testing.T) {
	if err := Load(); err != nil {
		t.Fatal(err)
	}
}

func TestCFStringRoundTrip(t *testing.T) {
	if err := Load(); err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"", "aq@é€", "Reins — approval"} {
		s := NewCFString(text)
		if s == 0 {
			t.Fatalf("NewCFString(%q) = 0", text)
		}
		if CFGetTypeID(s) != CFStringGetTypeID() {
			t.Errorf("NewCFString(%q) is no CFString", text)
		}
		if got := GoString(s); got != text {
			t.Errorf("GoString(NewCFString(%q)) = %q", text, got)
		}
		CFRelease(s)
	}
	if got := GoString(0); got != "" {
		t.Errorf("GoString(0) = %q", got)
	}
}

func TestCFArrayAndDictionary(t *testing.T) {
	if err := Load(); err != nil {
		t.Fatal(err)
	}
	a, b := NewCFString("a"), NewCFString("b")
	defer CFRelease(a)
	defer CFRelease(b)
	arr := NewCFArray([]uintptr{a, b})
	if arr == 0 {
		t.Fatal("NewCFArray = 0")
	}
	defer CFRelease(arr)
	if n := CFArrayGetCount(arr); n != 2 {
		t.Errorf("CFArrayGetCount = %d; want 2", n)
	}
	if !CFEqual(CFArrayGetValueAtIndex(arr, 1), b) {
		t.Error("the array's second value is not b")
	}
	d := NewCFDictionary([]uintptr{a}, []uintptr{CFBooleanTrue()})
	if d == 0 {
		t.Fatal("NewCFDictionary = 0")
	}
	defer CFRelease(d)
	if got := NumberInt(CFDictionaryGetValue(d, a)); got != 1 {
		t.Errorf("NumberInt(kCFBooleanTrue) = %d; want 1", got)
	}
	if got := CFDictionaryGetValue(d, b); got != 0 {
		t.Errorf("a missing key gave %#x", got)
	}
}

func TestOwnApplication(t *testing.T) {
	if err := Load(); err != nil {
		t.Fatal(err)
	}
	WithPool(func() {
		// A test binary is a process, not always an application: when
		// NSRunningApplication knows it, it must know it by its pid.
		if app := AppWithPID(os.Getpid()); app != 0 && app.PID() != os.Getpid() {
			t.Errorf("AppWithPID(%d).PID() = %d", os.Getpid(), app.PID())
		}
		if app := AppWithPID(-1); app != 0 {
			t.Errorf("AppWithPID(-1) = %#x; want 0", uintptr(app))
		}
	})
}

func TestAppKitStrings(t *testing.T) {
	if err := Load(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"NSWorkspaceDidActivateApplicationNotification", "NSWorkspaceApplicationKey"} {
		s, err := AppKitString(name)
		if err != nil || s == "" {
			t.Errorf("AppKitString(%s) = %q, %v", name, s, err)
		}
	}
	if _, err := AppKitString("NSNoSuchConstantInAppKit"); err == nil {
		t.Error("a missing constant gave no error")
	}
}
