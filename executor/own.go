package executor

import (
	"fmt"
	"slices"

	"github.com/reins-app/reins/denylist"
)

// ErrOwnWindow is wrapped by a refusal because the act would land on one of
// Reins' own windows: its popup and windows, or the terminal that runs
// `reins serve` — this Reins' or any other's on the desktop. An agent that
// could click or type there could answer an approval. It wraps
// ErrDenyListed: Reins' windows are on the deny list.
var ErrOwnWindow = fmt.Errorf("%w: it is one of Reins' own windows", ErrDenyListed)

// OwnLabel is how the rule of Reins' own windows is shown in the deny list.
const OwnLabel = "Reins itself, every other Reins, and the terminals that started them"

// OwnRule is the deny rule of Reins' own windows: those of the processes in
// pids ([peercred.Ancestry], [peercred.ReinsProcesses]), found by process, never by name.
func OwnRule(pids []int) denylist.Rule {
	return denylist.Rule{Label: OwnLabel, PIDs: slices.Clone(pids)}
}
