package persondoor

import "github.com/reins-app/reins/vocab"

// AgentInfo is an agent as the person's door lists it: who it says it is
// beside the process really behind its connection.
type AgentInfo struct {
	Key      string `json:"key"`     // what AllowAgent and ForgetAgent take
	Name     string `json:"name"`    // self-declared
	Version  string `json:"version"` // self-declared
	PID      int    `json:"pid"`     // the process that connected most recently
	Exe      string `json:"exe"`
	Allowed  bool   `json:"allowed"`  // the person allowed it, for the life of this Reins
	Asking   bool   `json:"asking"`   // its first-connection request waits for the person
	Sessions int    `json:"sessions"` // connections open now
}

// AgentKey is the key under which an agent is allowed: its declared name and
// its executable. A new program calling itself "Claude Code" is a new agent,
// and so is a known program under a new name.
func AgentKey(a vocab.Agent) string { return a.Name + " · " + a.Exe }
