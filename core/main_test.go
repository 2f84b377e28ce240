package core_test

import (
	"testing"

	"github.com/reins-app/reins/internal/testrig/testenv"
)

// The tests never see the person's own settings or login items.
func TestMain(m *testing.M) { testenv.Main(m) }
