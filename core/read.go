package core

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"math"
	"strings"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/approvals"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/grounding"
	"github.com/reins-app/reins/vocab"
)

// ListTabs lists open tabs, with titles and addresses only for tabs the
// person shared. It is refused with agent_not_allowed until the person has allowed the agent.
func (s *Session) ListTabs(ctx context.Context) ([]vocab.TabInfo, error) {
	if err := s.admitted(ctx); err != nil {
		return nil, s.refuse(ctx, audit.Entry{Agent: s.agent, Act: vocab.Act{Kind: vocab.Read}, Target: vocab.Target{Name: "tab list"}}, err)
	}
	return s.tabs(ctx), nil
}

// CurrentTab picks the tab an agent means when it names none: the only tab
// it may read, or else the one in front of the focused window among those
// it may read. It names no tab the agent may not read, and no tab of a
// browser whose extension is not connected: such a tab may be gone.
func (s *Session) CurrentTab(ctx context.Context) (string, error) {
	if err := s.admitted(ctx); err != nil {
		return "", s.refuse(ctx, audit.Entry{Agent: s.agent, Act: vocab.Act{Kind: vocab.Read}, Target: vocab.Target{Name: "tab list"}}, err)
	}
	e := s.e
	e.mu.Lock()
	defer e.mu.Unlock()
	var readable, active, focused []string
	gone := 0
	for id, t := range e.tabs {
		if e.shares.Get(id).To(s.key()).Level < vocab.ReadOnly {
			continue
		}
		if !e.connected[t.chrome.profile] {
			gone++
			continue
		}
		readable = append(readable, id)
		if t.info.Active {
			active = append(active, id)
			if t.info.Focused {
				focused = append(focused, id)
			}
		}
	}
	switch {
	case len(readable) == 1:
		return readable[0], nil
	case len(readable) == 0 && gone > 0:
		return "", errorf(vocab.CodeDisconnected, "the Chrome extension of the tabs open to you is not connected, so they may be gone; try again when it reconnects (browser_tabs lists them as gone meanwhile)")
	case len(readable) == 0:
		return "", &vocab.Error{Code: vocab.CodeShareRequired, Message: "no tab is open to agents yet; ask the person to give you a tab from the Reins menu", Err: approvals.ErrNotShared}
	case len(focused) == 1:
		return focused[0], nil
	case len(active) == 1:
		return active[0], nil
	}
	return "", errorf(vocab.CodeBadRequest, "several tabs are open to you; name one by its id (list them with browser_tabs)")
}

// Read takes a fresh snapshot of a tab the agent may read and renders it as
// asked. The snapshot becomes the session's latest, whatever part of it is
// shown.
func (s *Session) Read(ctx context.Context, o agentdoor.ReadOptions) (*agentdoor.ReadResult, error) {
	en := audit.Entry{Agent: s.agent, Act: vocab.Act{Kind: vocab.Read}, Target: vocab.Target{Tab: o.Tab, Ref: o.Root}}
	return audited(ctx, s, en, func(en *audit.Entry) (*agentdoor.ReadResult, func(), error) {
		return s.read(ctx, o, en)
	}, func(res *agentdoor.ReadResult) string { return "snapshot " + res.ID })
}

func (s *Session) read(ctx context.Context, o agentdoor.ReadOptions, en *audit.Entry) (*agentdoor.ReadResult, func(), error) {
	snap, prev, install, err := s.snapshot(ctx, o.Tab, en)
	if err != nil {
		return nil, nil, err
	}
	res := &agentdoor.ReadResult{SnapshotResult: agentdoor.SnapshotResult{ID: snap.ID, Tab: o.Tab, URL: snap.URL, Title: snap.Title}}
	budget := agentdoor.Budget(o.MaxChars)
	if o.Diff {
		res.Diff = true
		res.NewPage = prev != nil && !snap.SamePage(prev)
		if prev != nil && prev.Origin == snap.Origin {
			r := truncateText(snap.Diff(prev), budget)
			res.Text, res.Truncated, res.Hint = r.Text, r.Truncated, r.Hint
			return res, install, nil
		}
		// Nothing to compare with: the page as a snapshot shows it by
		// default, within the same budget.
		res.First = true
		o.Mode, o.Root = "", ""
	}
	r, err := snap.Render(grounding.RenderOptions{Mode: o.Mode, MaxChars: budget, Root: o.Root})
	if err != nil {
		if errors.Is(err, grounding.ErrStaleRef) {
			return nil, nil, err
		}
		return nil, nil, errorf(vocab.CodeBadRequest, "%v", err)
	}
	res.Text, res.Truncated, res.Hint = r.Text, r.Truncated, r.Hint
	return res, install, nil
}

// truncateText cuts a diff at a line boundary before max characters. Its
// hint sends the agent to the page as it is now: the snapshot the diff was
// taken from is the session's latest, so a second diff would be empty.
//
// What appeared comes before what went when the diff is cut: after a
// navigation most of a diff is the old page going, and the agent needs to
// see the new one.
func truncateText(text string, max int) grounding.Rendered {
	if max > 0 && len(text) > max {
		var appeared, went strings.Builder
		for l := range strings.Lines(text) {
			if strings.HasPrefix(l, "+ ") {
				appeared.WriteString(l)
			} else {
				went.WriteString(l)
			}
		}
		text = appeared.String() + went.String()
	}
	s := grounding.Snapshot{Text: text}
	r, _ := s.Render(grounding.RenderOptions{MaxChars: max})
	if r.Truncated {
		r.Hint = fmt.Sprintf("what changed is %d characters, so it was cut at %d, what appeared first; %d more changed lines were left out. Read the page as it is now with a snapshot: a subtree by ref, find, mode %q, or a larger max_chars (-1 for no limit)", r.Size, len(r.Text), r.Left, grounding.ModeViewport)
	}
	return r
}

// Find takes a fresh snapshot and returns its lines whose text contains query
// (any case) and, when role is set, whose role is role, the best matches
// first (see [grounding.Snapshot.Ranked]): all of them, for the front end to
// fit to its budget.
func (s *Session) Find(ctx context.Context, tab, query, role string) (*agentdoor.FindResult, error) {
	en := audit.Entry{Agent: s.agent, Act: vocab.Act{Kind: vocab.Read}, Target: vocab.Target{Tab: tab, Name: "find " + query}}
	return audited(ctx, s, en, func(en *audit.Entry) (*agentdoor.FindResult, func(), error) {
		snap, _, install, err := s.snapshot(ctx, tab, en)
		if err != nil {
			return nil, nil, err
		}
		return &agentdoor.FindResult{ID: snap.ID, Tab: tab, Lines: snap.Ranked(query, role)}, install, nil
	}, func(res *agentdoor.FindResult) string { return "snapshot " + res.ID })
}

// Changes is what an agent sees after an act: it waits until the page has
// settled (see [Session.ChangesAfter]; settle is the fixed wait used when
// the extension cannot tell), takes a fresh snapshot and returns what
// changed since the session's previous one. An act that took the tab off
// the site it was given on ends the agent's access; that is reported as
// such, not as a failure.
func (s *Session) Changes(ctx context.Context, tab string, settle time.Duration) (*agentdoor.ReadResult, error) {
	res, _, err := s.ChangesAfter(ctx, tab, vocab.Act{}, settle)
	return res, err
}

// ScreenshotOf is [Session.Screenshot] cropped to an element when ref is set:
// the box the extension reports for it now, within the visible area.
func (s *Session) ScreenshotOf(ctx context.Context, tab, ref, snapshot string) ([]byte, error) {
	if ref == "" {
		return s.Screenshot(ctx, tab)
	}
	en := audit.Entry{Agent: s.agent, Act: vocab.Act{Kind: vocab.Read}, Target: vocab.Target{Tab: tab, Ref: ref, Name: "screenshot"}}
	return audited(ctx, s, en, func(en *audit.Entry) ([]byte, func(), error) {
		pic, err := s.cropped(ctx, tab, ref, snapshot, en)
		return pic, nil, err
	}, nil)
}

func (s *Session) cropped(ctx context.Context, tab, ref, snapshot string, en *audit.Entry) ([]byte, error) {
	full, err := s.screenshot(ctx, tab, en)
	if err != nil {
		return nil, err
	}
	el, _, err := s.element(agentdoor.ActRequest{Tab: tab, Ref: ref, Snapshot: snapshot})
	if err != nil {
		return nil, err
	}
	en.Target.Role, en.Target.Name = el.Role, el.Name
	t, _, err := s.e.lookup(tab)
	if err != nil {
		return nil, err
	}
	r, err := s.e.resolve(ctx, t, el)
	if err != nil {
		return nil, err
	}
	img, err := png.Decode(bytes.NewReader(full))
	if err != nil {
		return nil, errorf(vocab.CodeFailed, "the browser's picture could not be read: %v", err)
	}
	px := r.Window.DPR
	if px <= 0 {
		px = 1
	}
	b := r.TopBox
	box := image.Rect(int(math.Floor(b.X*px)), int(math.Floor(b.Y*px)), int(math.Ceil((b.X+b.W)*px)), int(math.Ceil((b.Y+b.H)*px))).Intersect(img.Bounds())
	if box.Empty() {
		return nil, errorf(vocab.CodeNotVisible, "%s is not in the visible part of the tab; scroll it into view first", ref)
	}
	sub, ok := img.(interface {
		SubImage(image.Rectangle) image.Image
	})
	if !ok {
		return full, nil
	}
	var out bytes.Buffer
	if err := png.Encode(&out, sub.SubImage(box)); err != nil {
		return nil, errorf(vocab.CodeFailed, "%v", err)
	}
	return out.Bytes(), nil
}
