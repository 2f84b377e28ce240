package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/vocab"
)

// The tools' answers: what the agent reads back from a call.

// writeChanges says what changed on the page after an act, or why it could
// not be read.
func writeChanges(b *strings.Builder, ch *agentdoor.ReadResult, err error) {
	switch {
	case err != nil:
		fmt.Fprintf(b, "The tab could not be read afterwards: %s\n", shorten(err.Error(), messageMax))
	case ch.NewPage && ch.First:
		fmt.Fprintf(b, "The tab went to a new page, %s; the refs of the page the act began on are gone (snapshot %s):\n%s", shorten(ch.URL, urlMax), ch.ID, ch.Text)
	case ch.NewPage:
		fmt.Fprintf(b, "The tab went to a new page, %s; the refs of the page the act began on are gone. Changes (snapshot %s; + appeared, - went):\n%s", shorten(ch.URL, urlMax), ch.ID, ch.Text)
	case ch.First:
		fmt.Fprintf(b, "The tab now shows %s (snapshot %s):\n%s", shorten(ch.URL, urlMax), ch.ID, ch.Text)
	case ch.Text == "" && ch.Filled == 1:
		fmt.Fprintf(b, "It now holds the text; no other change near it (snapshot %s).\n", ch.ID)
	case ch.Text == "" && ch.Filled > 1:
		fmt.Fprintf(b, "The %d fields typed into hold the text typed; no other change near them (snapshot %s).\n", ch.Filled, ch.ID)
	case ch.Text == "":
		fmt.Fprintf(b, "Nothing changed on the page yet (snapshot %s).\n", ch.ID)
	case ch.Filled == 1:
		fmt.Fprintf(b, "Changes on the page (snapshot %s; + appeared, - went; the field typed into holds the text typed):\n%s", ch.ID, ch.Text)
	case ch.Filled > 1:
		fmt.Fprintf(b, "Changes on the page (snapshot %s; + appeared, - went; the %d fields typed into hold the text typed):\n%s", ch.ID, ch.Filled, ch.Text)
	default:
		fmt.Fprintf(b, "Changes on the page (snapshot %s; + appeared, - went):\n%s", ch.ID, ch.Text)
	}
	if ch != nil && ch.Hint != "" {
		// The act's answer keeps to agentdoor.ChangesBudget; the rest of
		// the page is read with the tools the hint's words stand for.
		fmt.Fprintf(b, "[%s (with browser_snapshot and browser_find).]\n", strings.TrimSuffix(ch.Hint, "."))
	}
}

func textResult(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

func pngResult(png []byte) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{Data: png, MIMEType: "image/png"}}}
}

// refusal is a tool error: the stable code first, then what to do next.
// The page's title and address, and its words in an error, are the page's
// to choose: long ones are shortened, so that an answer keeps to
// agentdoor.AnswerRoom.
const (
	titleMax   = 200
	urlMax     = 500
	messageMax = 2000
)

// shorten cuts s to at most max characters, the last an ellipsis.
func shorten(s string, max int) string {
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	return string(append(r[:max-1], '…'))
}

func refusal(err error) *sdk.CallToolResult {
	var ce *vocab.Error
	text := ""
	switch {
	case errors.As(err, &ce):
		text = ce.Code + ": " + shorten(ce.Message, messageMax)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		text = vocab.CodeFailed + ": the call was cancelled before it finished; nothing more will happen for it"
	default:
		text = vocab.CodeFailed + ": " + shorten(err.Error(), messageMax)
	}
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: text}}}
}

func badRequest(format string, args ...any) error {
	return &vocab.Error{Code: vocab.CodeBadRequest, Message: fmt.Sprintf(format, args...)}
}

func formatTabs(tabs []vocab.TabInfo) string {
	if len(tabs) == 0 {
		return "No tabs: Chrome with the Reins extension is not connected, or has no tabs open.\n"
	}
	var b strings.Builder
	for _, t := range tabs {
		front := ""
		if t.Active {
			front = " (in front)"
		}
		if !t.Connected {
			// Its browser's extension is not connected: the tab may be
			// gone, and nothing can be read or done on it now.
			front = " (gone: its browser is not connected)"
		}
		if t.Title == "" && t.URL == "" {
			fmt.Fprintf(&b, "- tab %s: %s%s\n", t.ID, t.Share, front)
			continue
		}
		fmt.Fprintf(&b, "- tab %s: %s%s — %s <%s>\n", t.ID, t.Share, front, quoteLine(shorten(t.Title, titleMax)), shorten(t.URL, urlMax))
	}
	return b.String()
}

// quoteLine keeps a page's title on one line, as JSON quoting does.
func quoteLine(s string) string {
	q, _ := json.Marshal(s)
	return string(q)
}

func formatRead(r *agentdoor.ReadResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Tab %s — %s <%s>\nSnapshot %s", r.Tab, quoteLine(shorten(r.Title, titleMax)), shorten(r.URL, urlMax), r.ID)
	switch {
	case r.Diff && r.First:
		b.WriteString(" (nothing earlier to compare with; the page follows)")
	case r.Diff && r.Text == "":
		b.WriteString(": nothing changed since your previous snapshot.\n")
		return b.String()
	case r.Diff:
		b.WriteString(" (+ appeared, - went since your previous snapshot)")
	}
	b.WriteString(":\n")
	b.WriteString(r.Text)
	if r.Hint != "" {
		b.WriteString("[" + r.Hint + "]\n")
	}
	return b.String()
}

func formatWait(o agentdoor.WaitOptions, r *agentdoor.WaitResult) string {
	waited := r.Waited.Round(10 * time.Millisecond)
	switch {
	case o.Text == "" && o.Gone == "" && o.Ref == "" && o.Role == "" && !o.Loaded:
		return fmt.Sprintf("Waited %s.\n", waited)
	case r.Met && o.Loaded:
		return fmt.Sprintf("The page had finished loading after %s (snapshot %s).\n", waited, r.ID)
	case r.Met && o.Ref != "":
		return fmt.Sprintf("%s is %s after %s (snapshot %s).\n", o.Ref, o.State, waited, r.ID)
	case r.Met && r.Matched != "":
		return fmt.Sprintf("Found after %s (snapshot %s): %s\n", waited, r.ID, r.Matched)
	case r.Met:
		return fmt.Sprintf("Gone after %s (snapshot %s).\n", waited, r.ID)
	}
	return fmt.Sprintf("Not met after %s (snapshot %s); look again with browser_snapshot.\n", waited, r.ID)
}

func formatDesktop(v *agentdoor.DesktopView) string {
	var b strings.Builder
	fmt.Fprintf(&b, "In front: %s", v.Frontmost.Name)
	if v.Frontmost.Exe != "" {
		fmt.Fprintf(&b, " (%s, pid %d)", v.Frontmost.Exe, v.Frontmost.PID)
	}
	b.WriteString("\nWindows, front to back:\n")
	for _, w := range v.Windows {
		mark := ""
		if w.Active {
			mark = " [active]"
		}
		fmt.Fprintf(&b, "- %s — %s at %.0f,%.0f size %.0f×%.0f%s\n", quoteLine(w.Title), w.App.Name, w.X, w.Y, w.W, w.H, mark)
	}
	switch {
	case v.Elements != "" && v.Snapshot != "":
		fmt.Fprintf(&b, "Elements of the window in front (desktop snapshot %s):\n%s", v.Snapshot, v.Elements)
	case v.Elements != "":
		fmt.Fprintf(&b, "Elements of the window in front: %s\n", v.Elements)
	case v.Note != "":
		fmt.Fprintf(&b, "[%s]\n", v.Note)
	}
	b.WriteString(v.Tabs)
	var stale []string
	for _, a := range v.Ages {
		if a.Stale {
			stale = append(stale, fmt.Sprintf("%s (%.1f s)", a.Part, a.Age.Seconds()))
		}
	}
	if len(stale) > 0 {
		fmt.Fprintf(&b, "[Read more than 2 s before this answer, so it may have changed: %s. Look again with desktop_observe before acting on it.]\n", strings.Join(stale, ", "))
	}
	return b.String()
}
