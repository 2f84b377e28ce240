package core

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/grounding"
	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/vocab"
)

// The witness: an act on an element is watched from the element's own
// frame, which sees the trusted pointer and key events that reach it and
// shares none of the arithmetic that placed the act's point on screen.
// Before anything is pressed, the pointer is moved to the point and the
// frame says what it is over: anything but the element refuses the act as
// CodeUnmapped. After the act, the frame says where its events arrived, and
// the answer and the audit say it too.
const (
	// witnessSlack is how far, in DIP, the pointer event the frame saw may
	// lie from where it was sent: device pixels rounding at fractional
	// scales.
	witnessSlack = 2
	// witnessWait is how long the frame may take to see the pointer arrive;
	// past it the pointer is taken to have landed elsewhere. A page busy
	// drawing (a capture for the approval's picture, say) takes its input
	// late; only a miss waits this long.
	witnessWait = 1500 * time.Millisecond
	// effectsWait is how long the frame may take to see an act's last
	// event (the click, the last key) arrive.
	effectsWait = 600 * time.Millisecond
)

// effect is where an act's events arrived, as its target's frame saw them.
type effect struct {
	// words say it, for the answer and the outcome row: "the click reached
	// button “Pay now”".
	words string
	// missed: the events arrived, but not at the target.
	missed bool
	// left: the page began leaving, or was gone, before where the events
	// landed could be read.
	left bool
}

// watch asks el's frame to start watching for the act's events.
func (e *Engine) watch(ctx context.Context, t *tabState, el grounding.Element) (string, error) {
	var res protocol.WatchResult
	err := e.opts.Browser.Call(ctx, t.chrome.profile, protocol.MethodWatch, protocol.WatchParams{
		Tab: t.chrome.id, Frame: el.Frame, Doc: el.Doc, Epoch: el.Epoch, ID: el.ID,
	}, &res)
	if err == nil && res.Watch == "" {
		err = errors.New("the frame named no watch")
	}
	var pe *protocol.Error
	if errors.As(err, &pe) && pe.Code == protocol.CodeStale {
		return "", err // the element or its page went since the act was made ready
	}
	if err != nil && !errors.As(err, &pe) {
		return "", err // the extension went away: classify says so
	}
	if err != nil {
		return "", &vocab.Error{Code: vocab.CodeUnmapped, Err: err,
			Message: fmt.Sprintf("the element's frame could not be asked to watch where the pointer lands (%v), and Reins presses nothing it cannot check; nothing was fired: take a new snapshot and try again", err)}
	}
	return res.Watch, nil
}

// witness is the executor's check, before anything is pressed, that the
// pointer sent to the act's point is over el: its frame must have seen a
// trusted pointer event arrive there, over el or something inside it.
func (e *Engine) witness(t *tabState, el grounding.Element, watch string) executor.Witness {
	return func(ctx context.Context, x, y float64) error {
		cctx, cancel := context.WithTimeout(ctx, witnessWait+4*time.Second)
		defer cancel()
		var res protocol.WitnessResult
		err := e.opts.Browser.Call(cctx, t.chrome.profile, protocol.MethodWitness, protocol.WitnessParams{
			Tab: t.chrome.id, Frame: el.Frame, Watch: watch, X: x, Y: y, Slack: witnessSlack, Within: int(witnessWait.Milliseconds()),
		}, &res)
		switch {
		case err != nil:
			return &vocab.Error{Code: vocab.CodeUnmapped, Err: err,
				Message: fmt.Sprintf("the element's frame could not say where the pointer landed (%v), so nothing was pressed", err)}
		case res.Near && res.At != nil && res.At.On:
			return nil
		case res.Near && res.At != nil:
			return errorf(vocab.CodeUnmapped, "the pointer, sent to the element's point (%.0f, %.0f), is over %s instead, so nothing was pressed: where the element shows on screen was worked out wrong; take a new snapshot and try again", x, y, landedWords(res.At))
		case res.Seen && res.At != nil:
			return errorf(vocab.CodeUnmapped, "the element's frame saw the pointer over %s at (%.0f, %.0f) but never at the element's point (%.0f, %.0f), so nothing was pressed: where the element shows on screen was worked out wrong; take a new snapshot and try again", landedWords(res.At), res.X, res.Y, x, y)
		}
		return errorf(vocab.CodeUnmapped, "the pointer, sent to the element's point (%.0f, %.0f), never arrived in the element's frame within %s, so nothing was pressed: it landed somewhere else (another frame, or a window in front); take a new snapshot and try again", x, y, witnessWait)
	}
}

// focusWitness asks el's frame, after the click that focuses a field,
// whether the keyboard focus is in el, waiting for it at most within.
func (e *Engine) focusWitness(t *tabState, el grounding.Element, watch string) executor.FocusWitness {
	return func(ctx context.Context, within time.Duration) (bool, error) {
		cctx, cancel := context.WithTimeout(ctx, within+4*time.Second)
		defer cancel()
		var res protocol.WitnessResult
		err := e.opts.Browser.Call(cctx, t.chrome.profile, protocol.MethodWitness, protocol.WitnessParams{
			Tab: t.chrome.id, Frame: el.Frame, Watch: watch, Focus: true, Within: int(within.Milliseconds()),
		}, &res)
		return res.Focused, err
	}
}

// effects asks el's frame where the act's events arrived, and ends the
// watch. A frame whose document went away meanwhile cannot say: the act
// left the page.
func (e *Engine) effects(ctx context.Context, t *tabState, el grounding.Element, watch string, kind vocab.ActKind) effect {
	cctx, cancel := context.WithTimeout(ctx, effectsWait+4*time.Second)
	defer cancel()
	var res protocol.EffectsResult
	err := e.opts.Browser.Call(cctx, t.chrome.profile, protocol.MethodEffects, protocol.EffectsParams{
		Tab: t.chrome.id, Frame: el.Frame, Watch: watch, Kind: string(kind), Within: int(effectsWait.Milliseconds()),
	}, &res)
	if err != nil {
		var pe *protocol.Error
		if errors.As(err, &pe) && (pe.Code == protocol.CodeNoFrame || pe.Code == protocol.CodeStale || pe.Code == protocol.CodeNoTab) && e.frameLeft(t, el) {
			return effect{left: true, words: "the element's page went away before where the " + noun(kind) + " landed could be read"}
		}
		return effect{words: fmt.Sprintf("where the %s landed could not be read (%v)", noun(kind), err)}
	}
	ef := effectOf(kind, el, &res)
	if res.Left {
		ef.left = true
		ef.words = joinDetail(ef.words, "the page then began to leave for another")
	}
	return ef
}

// frameLeft reports whether el's frame no longer shows the document el was
// read in, or is gone, as the tab last reported.
func (e *Engine) frameLeft(t *tabState, el grounding.Element) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	st, ok := t.frames[el.Frame]
	return !ok || st.Doc != el.Doc || st.Epoch != el.Epoch
}

// unwatch ends a watch whose act did not fire, so that the frame stops
// noting events for it; best effort.
func (e *Engine) unwatch(ctx context.Context, t *tabState, el grounding.Element, watch string) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	_ = e.opts.Browser.Call(cctx, t.chrome.profile, protocol.MethodEffects, protocol.EffectsParams{
		Tab: t.chrome.id, Frame: el.Frame, Watch: watch, Kind: string(vocab.Hover),
	}, nil)
}

// noun is what an act of kind is called in the effect's words.
func noun(kind vocab.ActKind) string {
	switch kind {
	case vocab.DoubleClick:
		return "double click"
	case vocab.RightClick:
		return "right click"
	case vocab.Scroll:
		return "wheel"
	case vocab.Drag:
		return "drag"
	case vocab.Hover:
		return "pointer"
	case vocab.Type:
		return "typing"
	}
	return "click"
}

// effectOf says where an act of kind arrived, from what el's frame saw.
func effectOf(kind vocab.ActKind, el grounding.Element, r *protocol.EffectsResult) effect {
	target := landedWords(&protocol.Landed{Role: el.Role, Name: el.Name})
	n := noun(kind)
	var at *protocol.Landed
	switch kind {
	case vocab.Hover:
		return effect{} // nothing is pressed: there is nothing to say arrived
	case vocab.Type:
		return typedEffect(target, r)
	case vocab.Key:
		return keyEffect(target, r)
	case vocab.Scroll:
		at = r.Wheel
	case vocab.Drag:
		if r.Down != nil && r.Down.On {
			if r.Up != nil {
				return effect{words: fmt.Sprintf("the drag began on %s and was let go over %s", target, landedWords(r.Up))}
			}
			return effect{words: fmt.Sprintf("the drag began on %s; where it was let go, the element's frame did not see", target)}
		}
		at = r.Down
	default:
		at = r.Click
		if at == nil {
			at = r.Down
		}
	}
	switch {
	case at == nil && r.Down == nil:
		return effect{missed: true, words: fmt.Sprintf("the %s fired but never arrived in the element's frame: it may have landed in another frame, or on something that came in front; the page may not have reacted", n)}
	case at == nil:
		return effect{missed: true, words: fmt.Sprintf("the %s fired and the button went down on %s, but the %s itself never arrived: the page may have moved things under the pointer", n, landedWords(r.Down), n)}
	case !at.On:
		return effect{missed: true, words: fmt.Sprintf("the %s fired but landed on %s, not on %s: the page may not have reacted", n, landedWords(at), target)}
	}
	return effect{words: fmt.Sprintf("the %s reached %s", n, target)}
}

// typedEffect says whether the typed text went into the field.
func typedEffect(target string, r *protocol.EffectsResult) effect {
	switch {
	case r.Inputs > 0:
		return effect{words: "the text went into " + target}
	case r.Keys == 0:
		return effect{missed: true, words: "the keys were pressed but none arrived in the element's frame: they may have gone to another frame or window"}
	case r.KeysOn == 0:
		return effect{missed: true, words: fmt.Sprintf("the keys arrived while %s did not have the focus, so they went elsewhere", target)}
	case r.Input != nil:
		return effect{missed: true, words: fmt.Sprintf("the keys reached %s, but the input went to %s", target, landedWords(r.Input))}
	}
	return effect{missed: true, words: fmt.Sprintf("the keys reached %s, but it took in no input (it may be read-only, or the page may have kept the keys)", target)}
}

// keyEffect says whether a key press reached the element: it had the focus
// when the key went down.
func keyEffect(target string, r *protocol.EffectsResult) effect {
	switch {
	case r.Keys == 0:
		return effect{missed: true, words: "the key was pressed but never arrived in the element's frame: it may have gone to another frame or window"}
	case r.KeysOn == 0:
		return effect{missed: true, words: fmt.Sprintf("the key arrived while %s did not have the focus, so it went elsewhere", target)}
	}
	return effect{words: "the key reached " + target}
}

// landedWords names an element an event arrived at, for an agent and a
// person: its role and name, quoted, or its tag.
func landedWords(l *protocol.Landed) string {
	role := plain.Text(l.Role, plain.NameMax)
	switch {
	case role != "" && role != "generic" && plain.Text(l.Name, plain.NameMax) != "":
		return role + " " + plain.Quote(l.Name, plain.NameMax)
	case l.Tag != "" && role != "" && role != "generic":
		return role + " (" + plain.Text(l.Tag, plain.NameMax) + ")"
	case l.Tag != "":
		return plain.Text(l.Tag, plain.NameMax)
	case role != "":
		return role
	}
	return "an element with no name"
}

// fireWatched fires ticket's act at el under the witness (fire does the
// firing, with the context it is given) and says where its events arrived.
// A hover is watched but never held back: it presses nothing.
func (e *Engine) fireWatched(ctx context.Context, t *tabState, el grounding.Element, ticket audit.Ticket, fire func(ctx context.Context) error) (effect, error) {
	watch, err := e.watch(ctx, t, el)
	if err != nil {
		return effect{}, err
	}
	kind := ticket.Act().Kind
	fctx := executor.WithWitness(ctx, e.witness(t, el, watch))
	if kind == vocab.Type {
		fctx = executor.WithFocusWitness(fctx, e.focusWitness(t, el, watch))
	}
	if err := fire(fctx); err != nil {
		e.unwatch(ctx, t, el, watch)
		var ce *vocab.Error
		if errors.Is(err, executor.ErrPointerNotBack) && errors.As(err, &ce) {
			// Said where the person reads it: their pointer is not where they left it.
			return effect{}, &vocab.Error{Code: ce.Code, Message: ce.Message + "; and the pointer could not be put back where the person had it", Err: err}
		}
		return effect{}, err
	}
	return e.effects(context.WithoutCancel(ctx), t, el, watch, kind), nil
}

// misplaced is pt moved as Options.TestOnlyMisplace says, when set and
// only in a test binary: a release never aims anywhere but where the page
// says.
func (e *Engine) misplaced(pt grounding.ScreenPoint) grounding.ScreenPoint {
	if e.opts.TestOnlyMisplace != nil && testing.Testing() {
		pt.X, pt.Y = e.opts.TestOnlyMisplace(pt.X, pt.Y)
	}
	return pt
}
