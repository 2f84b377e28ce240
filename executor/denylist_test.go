package executor

import (
	"testing"

	"github.com/reins-app/reins/denylist"
)

func TestAnEmptyDenyListMeansTheDefault(t *testing.T) {
	if _, ok := orDefault(nil).Match(App{Name: "KeePassXC"}); !ok {
		t.Error("an empty deny list lets KeePassXC through")
	}
}

// The system's prompts that macOS shows above other windows are denied by
// the built-in list, whatever else the executor knows of them.
func TestMacSystemPromptsAreDenied(t *testing.T) {
	for _, owner := range macSystemUI {
		if _, ok := denylist.DefaultFor("darwin").Match(App{Name: owner}); !ok {
			t.Errorf("the macOS deny list lets the system prompt %s through", owner)
		}
	}
}
