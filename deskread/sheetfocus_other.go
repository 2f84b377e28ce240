//go:build !darwin

package deskread

import "github.com/reins-app/reins/executor"

var _ executor.SheetFocus = SheetFocus

// SheetFocus is macOS's: elsewhere the file dialog is told apart without
// it, and it returns an error wrapping executor.ErrUnsupported.
func SheetFocus(pid int) (sheet, window executor.Bounds, ok bool, err error) {
	return executor.Bounds{}, executor.Bounds{}, false, executor.ErrUnsupported
}
