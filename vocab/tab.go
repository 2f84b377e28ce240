package vocab

// TabInfo is a tab as listed to the person or an agent.
type TabInfo struct {
	ID        string `json:"id"`
	Title     string `json:"title,omitempty"` // only for shared tabs when listed to agents
	URL       string `json:"url,omitempty"`   // likewise
	Origin    string `json:"origin,omitempty"`
	Active    bool   `json:"active"`
	Focused   bool   `json:"focused"` // its window has the keyboard focus
	Level     Level  `json:"-"`
	Agent     string `json:"-"` // the key of the one agent it is shared with; "" for every allowed agent
	Share     string `json:"share"`
	SharedAt  string `json:"sharedOrigin,omitempty"`
	Connected bool   `json:"connected"`
}
