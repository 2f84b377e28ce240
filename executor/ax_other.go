//go:build !darwin

package executor

// RequestAccessibility: only macOS asks the person before a program may
// post input, so elsewhere Reins may: (true, nil).
func RequestAccessibility() (trusted bool, err error) { return true, nil }

// AccessibilityStatus: only macOS asks the person before a program may post
// input, so elsewhere Reins may, and a bare binary is no concern:
// (true, false, nil).
func AccessibilityStatus() (trusted, bareBinary bool, err error) { return true, false, nil }
