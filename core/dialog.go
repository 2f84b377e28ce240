package core

import (
	"context"
	"errors"
	"fmt"
	neturl "net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/approvals"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/bridge"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/deskread"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/vocab"
)

// A page that calls alert, confirm or prompt, or asks "Leave site?" from a
// beforeunload handler, stops: its frames cannot answer the extension until
// the dialog is answered, so every read and act of the tab would time out.
// The dialog is the browser's own (a window on Linux, a tab-modal view of
// its focused window on macOS), which Reins reads without the debugger
// from the browser's accessibility tree (deskread.JSDialog), on both under
// the same rules below. A
// tab's request that failed because its page did not answer is refused
// dialog_open when the tab's window shows a dialog; browser_handle_dialog
// answers it with real keys (vocab.Dialog), asked, logged and checked at
// fire time like any input.

// dialogRead bounds reading the browser's dialog.
const dialogRead = 3 * time.Second

// shownDialog is a JavaScript dialog up in front of a tab.
type shownDialog struct {
	front executor.App // the browser showing it
	d     deskread.JSDialog
	kind  string // vocab.DialogConfirm…
}

// errNoDialog: the tab's window shows no JavaScript dialog.
var errNoDialog = errors.New("no JavaScript dialog is up in front of the tab")

// dialogOn returns the dialog in front of the tab info describes: the tab
// is the visible tab of the one focused browser window Reins knows of, a
// browser is in front, and its active window is the tab's page's dialog —
// one whose title names the tab's site ("example.com says"), or the
// browser's own "Leave site?" question. Any other window of the browser
// (a sign-in, an external-protocol question) is not taken for one. It
// returns an error wrapping errNoDialog when there is none, and another
// error when it cannot be told.
func (e *Engine) dialogOn(ctx context.Context, info protocol.Tab) (*shownDialog, error) {
	if !info.Active || !info.Focused {
		return nil, fmt.Errorf("%w: the tab is not the visible tab of the focused browser window", errNoDialog)
	}
	if !e.onlyFocusedTab(info) {
		return nil, fmt.Errorf("%w: more than one browser window reports the focus, so Reins cannot tell whose dialog is in front", errNoDialog)
	}
	ctx, cancel := context.WithTimeout(ctx, dialogRead)
	defer cancel()
	front, err := e.opts.Executor.Frontmost(ctx)
	if err != nil {
		return nil, fmt.Errorf("the application in front cannot be told: %w", err)
	}
	if front.PID <= 0 || !isBrowser(front) {
		return nil, fmt.Errorf("%w: the application in front is not a browser", errNoDialog)
	}
	d, err := e.opts.Reader.JSDialog(ctx, front.PID)
	if errors.Is(err, deskread.ErrNoDialog) {
		return nil, fmt.Errorf("%w: %v", errNoDialog, err)
	}
	if err != nil {
		return nil, fmt.Errorf("the browser's accessibility tree cannot be read: %w", err)
	}
	kind, ok := dialogKind(d, info.URL)
	if !ok {
		return nil, fmt.Errorf("%w: the browser's window in front is not a JavaScript dialog of the tab's page", errNoDialog)
	}
	return &shownDialog{front: front, d: d, kind: kind}, nil
}

// onlyFocusedTab reports whether info's tab is the only tab Reins knows of,
// among connected browsers, that is the visible tab of a focused window.
func (e *Engine) onlyFocusedTab(info protocol.Tab) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	n, mine := 0, false
	for _, t := range e.tabs {
		if e.connected[t.chrome.profile] && t.info.Active && t.info.Focused {
			n++
			mine = mine || t.info.ID == info.ID
		}
	}
	return n == 1 && mine
}

// namesSite reports whether a dialog's title names the host (and port) of
// url, as a page's dialog does: "example.com says".
func namesSite(title, url string) bool {
	u, err := neturl.Parse(url)
	if err != nil || u.Host == "" {
		return false
	}
	return title == u.Host+" says"
}

// Chromium's titles of its beforeunload question.
var leaveTitles = []string{"Leave site?", "Reload site?"}

// dialogKind tells which call raised d, a dialog of the page at url, from
// what it shows, and whether it is one at all: a page's dialog is titled
// with its site; an alert has one button, a confirm two, a prompt a text
// field (and no password field, which is the browser's own sign-in). The
// kind is "" for a page's dialog whose insides Reins cannot read.
func dialogKind(d deskread.JSDialog, url string) (string, bool) {
	if slices.Contains(leaveTitles, d.Title) {
		return vocab.DialogLeave, !d.Field
	}
	if !namesSite(d.Title, url) || d.Secret {
		return "", false
	}
	switch {
	case d.TitleOnly:
		return "", true
	case d.Field:
		return vocab.DialogPrompt, len(d.Buttons) == 2
	case len(d.Buttons) == 1:
		return vocab.DialogAlert, true
	case len(d.Buttons) == 2:
		return vocab.DialogConfirm, true
	}
	return "", false
}

// words says the dialog to an agent: its kind, the page's message quoted,
// or that the message could not be read.
func (sd *shownDialog) words() string {
	s := "a JavaScript " + sd.kind + " dialog"
	switch sd.kind {
	case "":
		s = "a JavaScript dialog"
	case vocab.DialogLeave:
		s = "the browser's “Leave site?” question (the page's beforeunload handler)"
	}
	if sd.d.Message == "" {
		return s + "; Reins could not read its message"
	}
	return s + "; the page's message says " + plain.Quote(sd.d.Message, plain.TypedMax)
}

// notAnswering reports whether err says the tab's page did not answer: what
// a page stopped by a dialog gives.
func notAnswering(err error) bool {
	if errors.Is(err, bridge.ErrTimeout) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var re *protocol.Error
	if errors.As(err, &re) {
		return strings.Contains(re.Message, "did not answer") || re.Code == protocol.CodeNoFrame
	}
	var ce *vocab.Error
	if errors.As(err, &ce) && ce.Code == vocab.CodeFailed {
		return strings.Contains(ce.Message, "did not answer")
	}
	return false
}

// blockedByDialog returns the refusal for a read or act of tab that failed
// with err: dialog_open when the page did not answer because the tab's
// window shows a JavaScript dialog, else err. The dialog's message is told
// only to an agent that may read the tab.
func (s *Session) blockedByDialog(ctx context.Context, tab string, err error) error {
	if tab == "" || !notAnswering(err) {
		return err
	}
	e := s.e
	_, info, lerr := e.lookup(tab)
	if lerr != nil || e.checkShare(s.key(), tab, approvals.Origin(info.URL), vocab.ReadOnly) != nil {
		return err
	}
	// The agent's request may have run out of time waiting for the page;
	// the look at the dialog has its own bound.
	sd, derr := e.dialogOn(context.WithoutCancel(ctx), info)
	if derr != nil {
		return err
	}
	return &vocab.Error{Code: vocab.CodeDialogOpen, Err: err, Message: fmt.Sprintf(
		"tab %s's page is stopped by %s; the page cannot answer until it is answered: call browser_handle_dialog on tab %s (accept true or false, and text for a prompt), then try again",
		tab, sd.words(), tab)}
}

// handleDialog answers the JavaScript dialog in front of r.Tab with keys,
// once the person allows it: Enter or Escape, and for a prompt the text
// first. It needs the tab at Control, and the dialog to be up, in front and
// holding the keyboard focus when asked and again right before the keys.
func (s *Session) handleDialog(ctx context.Context, r agentdoor.ActRequest, en *audit.Entry) (*agentdoor.ActResult, error) {
	e := s.e
	en.Act = vocab.Act{Kind: vocab.Dialog, Accept: r.Act.Accept, Text: r.Act.Text}
	en.Target = vocab.Target{Tab: r.Tab}
	if n := utf8.RuneCountInString(r.Act.Text); n > agentdoor.MaxTypedText {
		en.Act.Text, en.Act.Overlong = "", n
		return nil, errorf(vocab.CodeTextTooLong, "the answer is %d characters, and one act types at most %d; nothing was asked or typed", n, agentdoor.MaxTypedText)
	}
	if r.Act.Text != "" && !r.Act.Accept {
		return nil, errorf(vocab.CodeBadRequest, "text answers a prompt that is accepted; a dismissed dialog takes none")
	}
	if strings.Contains(r.Act.Text, "\n") {
		return nil, errorf(vocab.CodeHiddenKey, "a prompt's answer is one line, and a line break in it would press OK early; Reins presses OK itself once the answer is typed: leave the line break out; nothing was asked or typed")
	}
	if err := textRefused(r.Act.Text, false); err != nil {
		return nil, err
	}
	_, info, err := s.controlled(ctx, r.Tab, en)
	if err != nil {
		return nil, err
	}
	if err := e.canInput(vocab.Dialog); err != nil {
		return nil, err
	}
	if err := e.personTerminalShown(ctx); err != nil {
		return nil, err
	}
	sd, err := e.dialogUp(ctx, r.Tab, info, r.Act.Text != "")
	if err != nil {
		return nil, err
	}
	if r.Act.Text != "" && sd.kind != vocab.DialogPrompt {
		return nil, errorf(vocab.CodeBadRequest, "the dialog on tab %s is %s, which takes no text; nothing was asked or done: answer it without text", r.Tab, sd.words())
	}
	en.Act.Dialog = sd.kind
	en.Target.Role = "dialog"
	if sd.kind != vocab.DialogLeave {
		en.Target.Name = sd.d.Message // the page's text, kept as an element's name is
	}
	req := vocab.Request{ID: e.newAskID("a"), Agent: s.agent, Act: en.Act, Target: en.Target}
	f := firing{tab: r.Tab, req: req, en: en, input: true}
	// stillUp: the dialog the person was asked about is up, in front of
	// the tab as the tab is now, and holds the focus.
	stillUp := func(ctx context.Context) error {
		_, info, err := e.lookup(r.Tab)
		if err != nil {
			return err
		}
		now, err := e.dialogUp(ctx, r.Tab, info, r.Act.Text != "")
		if err != nil {
			return err
		}
		return sameDialog(sd, now)
	}
	f.ready = func(ctx context.Context) (audit.Landing, error) {
		_, info, err := e.lookup(r.Tab)
		if err != nil {
			return audit.Landing{}, err
		}
		if err := e.checkShare(s.key(), r.Tab, approvals.Origin(info.URL), vocab.Control); err != nil {
			return audit.Landing{}, err
		}
		if err := stillUp(ctx); err != nil {
			return audit.Landing{}, err
		}
		// No point: the keys go to the dialog, which holds the focus.
		return audit.Landing{Scale: 1}, nil
	}
	f.perform = func(ctx context.Context, ticket audit.Ticket) error {
		// Once more after the row, right before the keys.
		if err := stillUp(ctx); err != nil {
			return err
		}
		return e.opts.Executor.Fire(ctx, ticket)
	}
	return s.decideAndFire(ctx, f)
}

// dialogUp is dialogOn for an answer: a dialog must be up and hold the
// keyboard focus, in its text field when the answer is typing, or the
// keys could land elsewhere; anything less is a refusal that says what is
// missing.
func (e *Engine) dialogUp(ctx context.Context, tab string, info protocol.Tab, typing bool) (*shownDialog, error) {
	sd, err := e.dialogOn(ctx, info)
	switch {
	case errors.Is(err, errNoDialog):
		return nil, &vocab.Error{Code: vocab.CodeBadRequest, Err: err, Message: fmt.Sprintf("%v: no JavaScript dialog is up in front of tab %s, so nothing was asked or pressed; bring the tab to the front if its page waits on one", err, tab)}
	case err != nil:
		return nil, &vocab.Error{Code: vocab.CodeFailed, Err: err, Message: fmt.Sprintf("whether a JavaScript dialog is up in front of tab %s cannot be told (%v), so nothing was asked or pressed; ask the person to answer it", tab, err)}
	case sd.d.TitleOnly:
		return nil, errorf(vocab.CodeNotVisible, "Reins sees a dialog in front of tab %s but cannot read what is in it, so it cannot tell that the dialog holds the keyboard focus; nothing was pressed: ask the person to answer it (Chromium shows its dialogs to Reins while its accessibility is on)", tab)
	case !sd.d.Focused:
		return nil, errorf(vocab.CodeNotVisible, "the dialog in front of tab %s does not hold the keyboard focus, so the keys could land elsewhere; nothing was pressed: ask the person to click into the dialog or answer it", tab)
	case typing && sd.kind == vocab.DialogPrompt && !sd.d.FieldFocused:
		// The answer is typed into the field with the focus, and only
		// there.
		return nil, errorf(vocab.CodeNotVisible, "the prompt in front of tab %s does not have the keyboard focus in its text field, so the answer could land elsewhere; nothing was pressed: ask the person to click into the field or answer it", tab)
	}
	return sd, nil
}

// sameDialog refuses an answer when the dialog up at fire time is not the
// one the person was asked about: another browser in front, another dialog
// (a new one has a new ID), or other words in it.
func sameDialog(asked, now *shownDialog) error {
	if asked.front.PID != now.front.PID || asked.d.ID != now.d.ID || asked.d.Message != now.d.Message || asked.kind != now.kind {
		return errorf(vocab.CodeChanged, "the dialog up now is not the one the person was asked about, so nothing was pressed; call browser_handle_dialog again to see the one up now")
	}
	return nil
}
