package ax

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestErrNamesTheAXErrorAndIsNilOnSuccess(t *testing.T) {
	if err := Err(0); err != nil {
		t.Fatalf("Err(0) = %v, want nil", err)
	}
	err := fmt.Errorf("cannot read AXRole: %w", Err(-25204))
	var e Error
	if !errors.As(err, &e) || e != CannotComplete {
		t.Fatalf("errors.As(%v) = %v, want CannotComplete", err, e)
	}
	if !strings.Contains(err.Error(), "kAXErrorCannotComplete") {
		t.Errorf("%q does not name the AXError", err)
	}
	if got := Err(-1).Error(); got != "AXError -1" {
		t.Errorf("an unknown code reads %q", got)
	}
}
