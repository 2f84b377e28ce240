package deskread

import (
	"fmt"
	"time"

	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/internal/macos/ax"
)

var _ executor.SheetFocus = SheetFocus

// SheetFocus reads whether the keyboard focus of the application with
// process id pid is inside a sheet, and the frames of the outermost sheet
// on the way and of its window (sheetfocus_mac.go): what the executor asks
// before it types into macOS's file dialog.
func SheetFocus(pid int) (sheet, window executor.Bounds, ok bool, err error) {
	var none executor.Bounds
	if err := loadMac(); err != nil {
		return none, none, false, fmt.Errorf("%w: %v", executor.ErrUnsupported, err)
	}
	if !ax.IsProcessTrusted() {
		return none, none, false, errAXPermission
	}
	src, err := newAXApp(pid, time.Second)
	if err != nil {
		return none, none, false, err
	}
	defer src.close()
	sheet, window, ok, err = axFocusSheet(src)
	if axCodeOf(err) == ax.APIDisabled {
		err = errAXPermission
	}
	return sheet, window, ok, err
}
