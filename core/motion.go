package core

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/vocab"
)

// What an act sets in motion beyond its element (where a link or a submit
// control leads, what a form submits, what Enter presses), carried from the
// extension's answers into the target the person is asked about and the
// risk table judges.

// withMotion fills t with m: where the element leads and what its form
// submits, as its frame said.
func withMotion(t *vocab.Target, m *protocol.Motion) {
	t.Leads, t.Form = "", nil
	if m == nil {
		return
	}
	t.Leads = m.Leads
	if f := m.Form; f != nil {
		t.Form = &vocab.Form{Action: f.Action, Method: f.Method, Submit: f.Submit, Control: f.Control, Beside: f.Beside,
			Fields: slices.Clone(f.Fields), Payment: f.Payment}
	}
}

// motionOf is what the element a resolve answered sets in motion: res's, or,
// for an element scrolled out of view, what the refusal err carries.
func motionOf(res *protocol.ResolveResult, err error) *protocol.Motion {
	if res != nil {
		return res.Motion
	}
	var re *protocol.Error
	if errors.As(err, &re) && re.Now != nil {
		return re.Now.Motion
	}
	return nil
}

// enterTarget fills t, the target of a key act that presses Enter, with what
// has the keyboard focus in the tab and what Enter there sets in motion:
// the focused link's address, the focused button's form, or the form (or
// the button beside) of the focused field.
func (e *Engine) enterTarget(ctx context.Context, tab *tabState, t *vocab.Target) error {
	var f protocol.FocusResult
	if err := e.opts.Browser.Call(ctx, tab.chrome.profile, protocol.MethodFocus, protocol.FocusParams{Tab: tab.chrome.id}, &f); err != nil {
		return err
	}
	if f.Focused {
		withMotion(t, f.Motion)
	}
	return nil
}

// activatesFocus reports whether a key act sets off what the focused
// element does: Enter, and Space, which presses a focused button.
func activatesFocus(a vocab.Act) bool {
	if vocab.PressesEnter(a) {
		return true
	}
	k := strings.ToLower(strings.TrimSpace(a.Keys))
	return k == "space" || k == " "
}

// sameMotion refuses an act whose element, found again just before it
// fires, no longer leads where, or submits what, the person was shown.
func sameMotion(asked vocab.Target, m *protocol.Motion) error {
	var now vocab.Target
	withMotion(&now, m)
	if !now.SameMotion(asked) {
		return errorf(vocab.CodeChanged, "the element now leads elsewhere or submits something else than the person was asked about; nothing was done. Take a new snapshot")
	}
	return nil
}
