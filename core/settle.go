package core

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/vocab"
)

// How long a page must stay unchanged after an act to count as settled, and
// the longest an act's answer waits for that. A page that reacts at once is
// read settleQuiet after its last change; one that never stops changing (a
// clock, a stream) at the cap.
const (
	settleQuiet = 60 * time.Millisecond
	settleCap   = 1500 * time.Millisecond
	// navigationWait is how long a navigation's new document may take to
	// arrive; it then has settleCap to go quiet.
	navigationWait = 5 * time.Second
	// settleSlack is how much longer than its cap the extension gets to
	// answer a settle before the fixed wait stands in.
	settleSlack = 2 * time.Second
)

// ChangesAfter is [Session.Changes] for the act just done on tab: it waits
// until the page has settled (a navigation's until the new document has),
// reads what changed and says, in note, when the page did not settle within
// the cap. fallback is the fixed wait used when the extension cannot tell.
func (s *Session) ChangesAfter(ctx context.Context, tab string, act vocab.Act, fallback time.Duration) (res *agentdoor.ReadResult, note string, err error) {
	navigation := act.Kind == vocab.Navigate || act.Kind == vocab.Back || act.Kind == vocab.Forward
	settled, err := s.settle(ctx, tab, navigation, fallback)
	if err != nil {
		return nil, "", err
	}
	res, err = s.Read(ctx, agentdoor.ReadOptions{Tab: tab, Diff: true, MaxChars: agentdoor.ChangesBudget})
	if err != nil {
		return nil, "", err
	}
	var churn []protocol.Churn
	if t, _, err := s.e.lookup(tab); err == nil {
		s.e.mu.Lock()
		churn = t.churn
		s.e.mu.Unlock()
	}
	var notes []string
	left := 0
	if res.Diff && !res.First && !res.NewPage {
		target := ""
		if a := s.acted.Load(); a != nil && a.tab == tab && !navigation {
			target = a.ref
		}
		res.Text, left = effectOnly(res.Text, target, churn)
	}
	if len(churn) > 0 {
		notes = append(notes, churnWords(churn, left))
	}
	switch settled {
	case protocol.SettledStayed:
		notes = append(notes, fmt.Sprintf("No new page had arrived %s after the act, so this is the tab as it was then; it may still be loading. Wait for what you expect with browser_wait_for.", navigationWait))
	case protocol.SettledCap:
		notes = append(notes, fmt.Sprintf("The page was still changing %s after it was reached (a clock, an animation or a feed, say), so this is how it stood then and more may change. Wait for what you expect with browser_wait_for.", settleCap))
	}
	return res, strings.Join(notes, " "), nil
}

// churnWords says in one line what kept changing on its own and was not
// waited for, and how many of its changes the answer left out. The words
// are the page's: quoted as every agent-read line quotes them.
func churnWords(churn []protocol.Churn, left int) string {
	var spots []string
	for _, c := range churn {
		w := plain.Quote(c.Text, plain.NameMax)
		if c.Every > 0 {
			w += fmt.Sprintf(" (about every %d ms)", c.Every)
		}
		spots = append(spots, w)
	}
	line := "Not waited for, since it keeps changing on its own: " + strings.Join(spots, ", ")
	if left > 0 {
		line += fmt.Sprintf("; %d %s of it not listed (browser_snapshot shows the page as it stands)", left, plural(left, "change", "changes"))
	}
	return line + "."
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// effectOnly keeps of an act's diff what the act did, and counts the
// changes of what keeps changing on its own (churn), which it leaves out.
// Focus moving onto the act's target (target, its ref; "" when unknown)
// and off the element that had it is bookkeeping and goes unsaid; focus
// arriving anywhere else stays, as do the target's new state and every
// other change. A churn change is a line that went and one that appeared
// alike but for their figures, where one of churn's words stand.
func effectOnly(diff, target string, churn []protocol.Churn) (kept string, left int) {
	if diff == "" {
		return "", 0
	}
	type line struct {
		text, norm string
		gone, drop bool
	}
	var lines []line
	for _, l := range strings.Split(strings.TrimSuffix(diff, "\n"), "\n") {
		gone := strings.HasPrefix(l, "- ")
		norm := l[min(2, len(l)):]
		if gone || (target != "" && refOf(norm) == target) {
			norm = strings.Replace(norm, " [active]", "", 1)
		}
		if !gone && target != "" && refOf(norm) == target {
			l = "+ " + norm // the focus arriving where the act was goes unsaid
		}
		lines = append(lines, line{text: l, norm: norm, gone: gone})
	}
	// A line that went and one that appeared alike, once focus is set
	// aside, are no change.
	for i := range lines {
		if !lines[i].gone || lines[i].drop {
			continue
		}
		for j := range lines {
			if !lines[j].gone && !lines[j].drop && lines[j].norm == lines[i].norm {
				lines[i].drop, lines[j].drop = true, true
				break
			}
		}
	}
	var shapes []string
	for _, c := range churn {
		if sh := figureless(c.Text); len(sh) >= 4 {
			shapes = append(shapes, sh)
		}
	}
	isChurn := func(norm string) bool {
		sh := figureless(norm)
		for _, c := range shapes {
			if strings.Contains(sh, c) {
				return true
			}
		}
		return false
	}
	for i := range lines {
		if !lines[i].gone || lines[i].drop || !isChurn(lines[i].norm) {
			continue
		}
		for j := range lines {
			if !lines[j].gone && !lines[j].drop && figureless(lines[j].norm) == figureless(lines[i].norm) {
				lines[i].drop, lines[j].drop = true, true
				left++
				break
			}
		}
	}
	var b strings.Builder
	for _, l := range lines {
		if !l.drop {
			b.WriteString(l.text + "\n")
		}
	}
	return b.String(), left
}

// refOf is the ref a rendered line gives its element, or "". Page text
// cannot forge one: a snapshot escapes a bracket that opens a marker.
func refOf(l string) string {
	i := strings.LastIndex(l, "[ref=")
	if i < 0 {
		return ""
	}
	j := strings.IndexByte(l[i:], ']')
	if j < 0 {
		return ""
	}
	return l[i+len("[ref=") : i+j]
}

// figureless is text with its runs of figures folded and its spaces
// closed up, as the extension tells churn apart from news.
func figureless(s string) string {
	var b strings.Builder
	digits, space := false, false
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			if !digits {
				b.WriteByte('0')
			}
			digits, space = true, false
			continue
		case r == ' ' || r == '\t' || r == '\n':
			if !space {
				b.WriteByte(' ')
			}
			digits, space = false, true
			continue
		}
		digits, space = false, false
		b.WriteRune(r)
	}
	return b.String()
}

// settle waits until tab's page has settled after an act, as the extension
// tells, and reports how the wait ended: protocol.SettledQuiet, SettledCap
// or SettledStayed, or "" when the extension could not tell and fallback was
// waited instead. A tab that is gone or not shared is not waited for: the
// read that follows says so.
func (s *Session) settle(ctx context.Context, tab string, navigation bool, fallback time.Duration) (string, error) {
	t, _, err := s.e.lookup(tab)
	if err != nil {
		return "", nil
	}
	p := protocol.SettleParams{Tab: t.chrome.id, Quiet: int(settleQuiet.Milliseconds()), Cap: int(settleCap.Milliseconds())}
	limit := settleCap + settleSlack
	if navigation {
		if p.After = s.e.settleAfter(t, s.agent.Session); p.After != nil {
			p.After.Within = int(navigationWait.Milliseconds())
			limit += navigationWait
		}
	}
	cctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var res protocol.SettleResult
	err = s.e.opts.Browser.Call(cctx, t.chrome.profile, protocol.MethodSettle, p, &res)
	var pe *protocol.Error
	switch {
	case err == nil && (res.Settled == protocol.SettledQuiet || res.Settled == protocol.SettledCap || res.Settled == protocol.SettledStayed):
		return res.Settled, nil
	case ctx.Err() != nil:
		return "", ctx.Err()
	case errors.As(err, &pe) && (pe.Code == protocol.CodeNoTab || pe.Code == protocol.CodeNotShared):
		return "", nil
	}
	// An extension from before settles, or one that did not answer in time.
	select {
	case <-time.After(fallback):
		return "", nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// settleAfter is the top frame's document and epoch a navigation leaves:
// those of the session's latest snapshot of the tab, the one the agent
// acted on, or else the last the tab reported; nil when neither is known.
func (e *Engine) settleAfter(t *tabState, session string) *protocol.SettleAfter {
	e.mu.Lock()
	defer e.mu.Unlock()
	if snap := t.session[session]; snap != nil {
		if st, ok := snap.Frames()[0]; ok && st.Doc != "" {
			return &protocol.SettleAfter{Doc: st.Doc, Epoch: st.Epoch}
		}
	}
	if st, ok := t.frames[0]; ok && st.Doc != "" {
		return &protocol.SettleAfter{Doc: st.Doc, Epoch: st.Epoch}
	}
	return nil
}
