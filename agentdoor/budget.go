package agentdoor

// DefaultBudget is the most characters of page text a read gives when the
// agent sets no budget of its own ([ReadOptions.MaxChars] 0): about 10,000
// tokens. MCP clients refuse larger tool results (Claude Code refuses one
// over 25,000 tokens), and an agent that has read 10,000 tokens of a page
// without finding what it looks for does better with find or a subtree
// than with more of the same. A cut text says what was left out and how to
// read it.
const DefaultBudget = 40_000

// NoBudget, as [ReadOptions.MaxChars], asks for the whole text however long
// it is. Any other negative value means the same.
const NoBudget = -1

// ChangesBudget is the budget of what [Session.Changes] returns after an
// act: what changed is usually a few lines, and a longer change (a new
// page) is better read with a snapshot of its own, which the cut text says.
const ChangesBudget = 4_000

// Budget is the number of characters a [ReadOptions.MaxChars] of maxChars
// allows: DefaultBudget for 0, and 0, for no limit, when it is negative.
func Budget(maxChars int) int {
	switch {
	case maxChars == 0:
		return DefaultBudget
	case maxChars < 0:
		return 0
	}
	return maxChars
}

// AnswerRoom is what a front end keeps of an answer's budget for what it
// writes around the page's text: the tab, its title and address, the
// snapshot's id, and the hint that says what was left out.
const AnswerRoom = 3_000

// TextBudget is the [ReadOptions.MaxChars] that keeps a front end's whole
// answer within the budget an agent's maxChars asks for (0 for
// DefaultBudget, negative for no limit): the budget less AnswerRoom, or
// half of a small budget.
func TextBudget(maxChars int) int {
	b := Budget(maxChars)
	switch {
	case b == 0:
		return NoBudget
	case b > 2*AnswerRoom:
		return b - AnswerRoom
	}
	return max(b/2, 1)
}
