package protocol

// MethodSettle asks the extension to answer once a tab's page has settled
// after an act: SettleParams → SettleResult. It reads the tab (it needs
// LevelRead) and changes nothing on the page: each frame's content script
// only watches for mutations, and the worker counts the time.
const MethodSettle = "settle"

// How a settle ended, in [SettleResult].
const (
	SettledQuiet  = "quiet"  // no frame of the tab changed for the quiet time
	SettledCap    = "cap"    // the cap came first: the page was still changing
	SettledStayed = "stayed" // with After: the top frame never left that document in time
)

// SettleParams says how long a tab must stay unchanged to count as settled,
// and the longest to wait for that.
type SettleParams struct {
	Tab int `json:"tab"`
	// Quiet is how long, in milliseconds, no frame of the tab may have
	// changed (a mutation, a load, a scroll, input, a finished transition)
	// for the page to count as settled.
	Quiet int `json:"quiet"`
	// Cap is the most milliseconds the page is given to go quiet, from
	// the request or, with After, from when the top frame left: the answer
	// then says SettledCap.
	Cap int `json:"cap"`
	// After, when set, is the top frame's document and navigation epoch
	// before a navigation the app asked for: the page has settled only once
	// the top frame shows another document or epoch and it then stays
	// quiet. A frame that is leaving its document (a link was followed) is
	// waited for in any case, until its new document is quiet.
	After *SettleAfter `json:"after,omitempty"`
}

// SettleAfter is the document a navigation leaves, and how long it may take
// to leave it.
type SettleAfter struct {
	Doc   string `json:"doc"`
	Epoch int    `json:"epoch"`
	// Within is the most milliseconds to wait for the top frame to leave
	// the document; the answer then says SettledStayed.
	Within int `json:"within"`
}

// SettleResult says how a settle ended.
type SettleResult struct {
	Settled string `json:"settled"` // SettledQuiet, SettledCap or SettledStayed
	Took    int    `json:"took"`    // milliseconds from the request to the answer
}
