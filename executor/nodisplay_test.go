package executor

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/vocab"
)

func TestNoDisplayRefusesInputSayingWhyAndWhatToDo(t *testing.T) {
	why := fmt.Errorf("%w: DISPLAY is not set; start Reins inside an X11 desktop session", ErrNoDisplay)
	n := NewNoDisplay(why)
	ctx := context.Background()
	const want = "no X display (DISPLAY is not set): Reins can read and share tabs but cannot click or type; start it inside an X11 session to act"
	for _, act := range []vocab.Act{
		{Kind: vocab.Click}, {Kind: vocab.DoubleClick}, {Kind: vocab.RightClick}, {Kind: vocab.Hover},
		{Kind: vocab.Scroll}, {Kind: vocab.Drag}, {Kind: vocab.Type, Text: "hi"}, {Kind: vocab.Key, Keys: "Enter"},
	} {
		err := n.Fire(ctx, audit.TestOnlyTicket(act, audit.Landing{X: 10, Y: 20, Scale: 1}))
		if !errors.Is(err, ErrNoDisplay) || !errors.Is(err, why) || err.Error() != want {
			t.Errorf("Fire(%s) = %v; want %q wrapping ErrNoDisplay", act.Kind, err, want)
		}
	}
	if err := n.Fire(ctx, audit.Ticket{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("an invalid ticket: %v, want ErrInvalid as from every executor", err)
	}
	if err := n.Fire(ctx, audit.TestOnlyTicket(vocab.Act{Kind: vocab.Navigate, URL: "https://example.com"}, audit.Landing{})); !errors.Is(err, ErrUnsupported) {
		t.Errorf("an act that is not input: %v, want ErrUnsupported", err)
	}
	if _, err := n.Frontmost(ctx); !errors.Is(err, ErrNoDisplay) {
		t.Errorf("Frontmost: %v", err)
	}
	if _, err := n.AppAt(ctx, 1, 2); !errors.Is(err, ErrNoDisplay) {
		t.Errorf("AppAt: %v", err)
	}
	if _, err := n.Windows(ctx); !errors.Is(err, ErrNoDisplay) {
		t.Errorf("Windows: %v", err)
	}
	if last, err := n.LastInput(ctx); err != nil || !last.IsZero() {
		t.Errorf("LastInput = %v, %v; want the zero time, so the act reaches Fire and its reason", last, err)
	}
	if err := InputUnavailable(n); err == nil || err.Error() != want {
		t.Errorf("InputUnavailable = %v", err)
	}
	if err := InputUnavailable(&Fake{}); err != nil {
		t.Errorf("InputUnavailable(Fake) = %v, want nil", err)
	}
}

func TestNoDisplayNamesAnUnreachableDisplay(t *testing.T) {
	n := NewNoDisplay(fmt.Errorf("%w: cannot connect to the X display :9: connection refused", ErrNoDisplay))
	if msg := n.Err().Error(); !strings.HasPrefix(msg, "no X display (cannot connect to the X display :9: connection refused): ") {
		t.Errorf("the refusal does not name the display it could not reach: %s", msg)
	}
}
