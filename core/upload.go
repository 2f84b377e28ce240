package core

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/approvals"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/grounding"
	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/vocab"
)

// uploadSeen is how long after the file dialog closed the page is read
// again and again for the file's name: the page hears of the file, and
// shows it, in its own time.
const uploadSeen = 2 * time.Second

// uploadReread is how long apart those reads are: each is a whole
// snapshot of the page.
const uploadReread = 200 * time.Millisecond

// uploadLines is the most lines of the page's snapshot quoted in the
// answer as where it names the file.
const uploadLines = 3

// Upload gives the page of r.Tab a file through its file chooser: the
// agent must control the tab; the file is checked (uploadpath.go) before
// the person is asked, with its resolved path, name, size and folder, and
// the act is always asked on its own. Once allowed and committed, the
// executor clicks r.Ref and types the path into the file dialog the click
// opened (executor.Upload), and the page's next snapshot says whether it
// shows the file.
func (s *Session) Upload(ctx context.Context, r agentdoor.UploadRequest) (*agentdoor.UploadResult, error) {
	en := audit.Entry{Agent: s.agent, Act: vocab.Act{Kind: vocab.Upload}, Target: vocab.Target{Tab: r.Tab, Ref: r.Ref, Claim: r.Element}}
	if len(r.Paths) > 0 {
		en.Act.File.Path = r.Paths[0] // as the agent wrote it, until it is found
	}
	res, err := s.upload(ctx, r, &en)
	if err != nil {
		return nil, s.refuse(ctx, en, err)
	}
	return res, nil
}

func (s *Session) upload(ctx context.Context, r agentdoor.UploadRequest, en *audit.Entry) (*agentdoor.UploadResult, error) {
	e := s.e
	switch {
	case len(r.Paths) == 0:
		return nil, errorf(vocab.CodeBadRequest, "give the absolute path of the file to upload in paths")
	case len(r.Paths) > 1:
		return nil, errorf(vocab.CodeBadRequest, "one upload gives one file, since the file dialog's location field takes one path; nothing was asked: upload the files one call at a time (a file input that takes several keeps only the last)")
	case r.Ref == "":
		return nil, errorf(vocab.CodeBadRequest, "an upload needs the ref of the file input, or of the button that opens the file chooser, from a snapshot")
	}
	raw := r.Paths[0]
	t, info, err := s.controlled(ctx, r.Tab, en)
	if err != nil {
		return nil, err
	}
	origin := approvals.Origin(info.URL)
	if err := e.canInput(vocab.Upload); err != nil {
		return nil, err
	}
	if err := e.personTerminalShown(ctx); err != nil {
		return nil, err
	}
	if !info.Active {
		return nil, errorf(vocab.CodeNotVisible, "tab %s is not the visible tab of its window; bring it to the front first", r.Tab)
	}
	// The file, found only for an agent that controls the tab: what is on
	// disk is not for others to probe.
	rules := uploadRulesFor(e.opts.Audit.Path())
	file, err := checkUploadPath(raw, rules)
	if err != nil {
		return nil, err
	}
	en.Act.File = file.File
	el, snap, err := s.element(agentdoor.ActRequest{Tab: r.Tab, Ref: r.Ref, Snapshot: r.Snapshot})
	if err != nil {
		return nil, err
	}
	en.Target.Role, en.Target.Name = el.Role, el.Name
	if el.FrameOrigin != origin {
		en.Target.FrameOrigin = el.FrameOrigin
	}
	first, err := e.resolve(ctx, t, el)
	if err != nil {
		return nil, err
	}
	if err := e.landsOnScreen(ctx, t, first); err != nil {
		return nil, err
	}

	req := vocab.Request{ID: e.newAskID("a"), Agent: s.agent, Act: en.Act, Target: en.Target}
	req.Picture, req.Box, req.Sketch = e.picture(ctx, t, first, snap, el)
	f := firing{tab: r.Tab, req: req, en: en, input: true}
	f.ready = func(ctx context.Context) (audit.Landing, error) {
		info, err := e.awaitInFront(ctx, r.Tab, vocab.Upload)
		if err != nil {
			return audit.Landing{}, err
		}
		if err := e.checkShare(s.key(), r.Tab, approvals.Origin(info.URL), vocab.Control); err != nil {
			return audit.Landing{}, err
		}
		if err := stillSame(raw, file, rules); err != nil {
			return audit.Landing{}, err
		}
		return e.aimAt(ctx, t, el)
	}
	ef := &effect{}
	f.effect = ef
	f.perform = func(ctx context.Context, ticket audit.Ticket) error {
		watch, err := e.watch(ctx, t, el)
		if err != nil {
			return err
		}
		if err := executor.Upload(executor.WithWitness(ctx, e.witness(t, el, watch)), e.opts.Executor, ticket); err != nil {
			e.unwatch(ctx, t, el, watch)
			return uploadErr(err)
		}
		// Where the click that opened the dialog landed, as the element's
		// frame saw it.
		*ef = e.effects(context.WithoutCancel(ctx), t, el, watch, vocab.Click)
		return nil
	}
	if r.Element != "" {
		f.done = "the agent described the target as " + quoteIf(r.Element)
	}
	res, err := s.decideAndFire(ctx, f)
	if err != nil {
		return nil, err
	}
	out := &agentdoor.UploadResult{Done: res.Done, Audit: res.Audit}
	if res.Effect != "" {
		out.Done += "; " + res.Effect
	}
	out.Received, out.Confirmed = s.uploadReceived(ctx, r.Tab, file.Path)
	return out, nil
}

// uploadErr gives the executor's refusals of the file dialog their code,
// with what the agent can do next.
func uploadErr(err error) error {
	switch {
	case errors.Is(err, executor.ErrNoChooser), errors.Is(err, executor.ErrChooserLost):
		return &vocab.Error{Code: vocab.CodeNoFileDialog, Err: err, Message: err.Error() + "; nothing was uploaded: check that the ref is the file input or the button that opens its chooser, and try again"}
	case errors.Is(err, executor.ErrChooserStayed):
		return &vocab.Error{Code: vocab.CodeFailed, Err: err, Message: err.Error() + "; nothing is known to have been uploaded: read the page to see what it got"}
	}
	return err
}

// uploadReceived reads the tab until its snapshot names the file, for at
// most uploadSeen, and says what it shows: the page's own lines naming the
// file, or that none does. The read the answer comes from is recorded and
// becomes the session's latest snapshot of the tab.
func (s *Session) uploadReceived(ctx context.Context, tab, path string) (string, bool) {
	name := filepath.Base(path)
	en := audit.Entry{Agent: s.agent, Act: vocab.Act{Kind: vocab.Read}, Target: vocab.Target{Tab: tab}}
	var snap *grounding.Snapshot
	var install func()
	var lines []string
	var err error
	deadline := time.Now().Add(uploadSeen)
	for {
		snap, _, install, err = s.snapshot(ctx, tab, &en)
		if err != nil {
			break
		}
		if lines = linesNaming(snap.Text, name); len(lines) > 0 || !time.Now().Before(deadline) {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(uploadReread):
		}
		if ctx.Err() != nil {
			break
		}
	}
	quoted := plain.Quote(name, plain.NameMax)
	if err != nil {
		ce, _ := classify(err)
		return fmt.Sprintf("the page could not be read afterwards (%s), so what it received is not known: read it to check", ce.Message), false
	}
	en.Outcome, en.Detail = vocab.OutcomeRead, "snapshot "+snap.ID+", to see what the upload gave the page"
	if err := s.e.recordRead(ctx, en); err != nil {
		return "the page was read afterwards but the read could not be logged, so it is not given: read the page to check", false
	}
	install()
	if len(lines) == 0 {
		return fmt.Sprintf("the page's snapshot %s does not name %s within %s of the file dialog closing, so Reins cannot confirm what the page received: read the page to check", snap.ID, quoted, uploadSeen), false
	}
	return fmt.Sprintf("the page's snapshot %s names %s (the page's own text, not proof of what it holds):\n%s", snap.ID, quoted, strings.Join(lines, "\n")), true
}

// linesNaming returns the lines of a snapshot's text that hold name, at
// most uploadLines of them.
func linesNaming(text, name string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if name != "" && strings.Contains(l, name) {
			out = append(out, strings.TrimSpace(l))
			if len(out) == uploadLines {
				break
			}
		}
	}
	return out
}
