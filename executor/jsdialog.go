package executor

import "github.com/reins-app/reins/vocab"

// dialogKeys is the input that answers a dialog (vocab.Dialog), as the fire
// sequence knows it: Escape to dismiss; to accept, Enter, or for a prompt
// given text, the field's text replaced by it and then Enter. Any other
// act is returned unchanged.
func dialogKeys(a vocab.Act) vocab.Act {
	if a.Kind != vocab.Dialog {
		return a
	}
	switch {
	case !a.Accept:
		return vocab.Act{Kind: vocab.Key, Keys: "Escape"}
	case a.Text != "":
		return vocab.Act{Kind: vocab.Type, Text: a.Text, Clear: true, Submit: true}
	}
	return vocab.Act{Kind: vocab.Key, Keys: "Enter"}
}
