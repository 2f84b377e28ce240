package executor

import (
	"fmt"
	"os"
	"slices"

	"github.com/reins-app/reins/internal/peercred"
)

// ErrOwnWindow is wrapped by a refusal because the act would land on one of
// Reins' own windows: its popup and windows, or the terminal that runs
// `reins serve`. An agent that could click or type there could answer its
// own approval. It wraps ErrDenyListed: Reins' windows are on the deny list.
var ErrOwnWindow = fmt.Errorf("%w: it is one of Reins' own windows", ErrDenyListed)

// OwnLabel is how the rule of Reins' own windows is shown in the deny list.
const OwnLabel = "Reins itself, and the terminal that started it"

// Ancestry is this process and every process it descends from, nearest
// first, without init: the processes whose windows are Reins' own. A
// terminal running `reins serve` is one of them, and so is a renamed copy
// of Reins, whatever its windows are called. A process it cannot read ends
// the walk.
func Ancestry() []int {
	var out []int
	for pid := os.Getpid(); pid > 1 && !slices.Contains(out, pid) && len(out) < 64; {
		out = append(out, pid)
		parent, err := peercred.Parent(pid)
		if err != nil {
			break
		}
		pid = parent
	}
	return out
}

// OwnRule is the deny rule of Reins' own windows: those of the processes in
// pids ([Ancestry]), found by process, never by name.
func OwnRule(pids []int) Rule {
	return Rule{Label: OwnLabel, PIDs: slices.Clone(pids)}
}
