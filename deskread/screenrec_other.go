//go:build !darwin

package deskread

// ScreenRecordingStatus: only macOS asks the person before a program may
// take pictures of other applications' windows, so elsewhere Reins may:
// (true, nil).
func ScreenRecordingStatus() (allowed bool, err error) { return true, nil }
