package executor

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/vocab"
)

func TestFakeRecordsActsInOrder(t *testing.T) {
	f := &Fake{}
	ctx := context.Background()
	acts := []struct {
		act     vocab.Act
		landing audit.Landing
	}{
		{vocab.Act{Kind: vocab.Click}, audit.Landing{X: 10, Y: 20, Scale: 2}},
		{vocab.Act{Kind: vocab.Type, Text: "hi", Submit: true}, audit.Landing{X: 30, Y: 40}},
		{vocab.Act{Kind: vocab.Key, Keys: "Control+Shift+K"}, audit.Landing{}},
		{vocab.Act{Kind: vocab.Drag}, audit.Landing{X: 1, Y: 2, X2: 3, Y2: 4}},
	}
	var want []Fired
	for _, a := range acts {
		if err := f.Fire(ctx, audit.TestOnlyTicket(a.act, a.landing)); err != nil {
			t.Fatalf("Fire(%s) = %v", a.act.Kind, err)
		}
		want = append(want, Fired{Seq: -1, Act: a.act, Plan: a.landing})
	}
	if got := f.Fired(); !reflect.DeepEqual(got, want) {
		t.Errorf("Fired = %+v\nwant %+v", got, want)
	}
}

func TestFakeCallsBeforeFireOnlyWhenEveryCheckPassed(t *testing.T) {
	var calls []audit.Ticket
	hookErr := errors.New("the audit row is not there")
	f := &Fake{BeforeFire: func(tk audit.Ticket) error {
		calls = append(calls, tk)
		if tk.Act().Text == "refuse" {
			return hookErr
		}
		return nil
	}}
	f.SetFrontmost(App{Name: "Chromium"})
	f.SetWindows([]Window{{App: App{Name: "1Password"}, X: 0, Y: 0, W: 100, H: 100}})
	ctx := context.Background()

	if err := f.Fire(ctx, audit.Ticket{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("invalid ticket: %v", err)
	}
	if err := f.Fire(ctx, audit.TestOnlyTicket(vocab.Act{Kind: vocab.Click}, audit.Landing{X: 50, Y: 50})); !errors.Is(err, ErrDenyListed) {
		t.Errorf("click on 1Password: %v", err)
	}
	if len(calls) != 0 {
		t.Errorf("BeforeFire called %d times for refused acts", len(calls))
	}
	ok := audit.TestOnlyTicket(vocab.Act{Kind: vocab.Click}, audit.Landing{X: 150, Y: 50})
	if err := f.Fire(ctx, ok); err != nil {
		t.Errorf("click beside 1Password: %v", err)
	}
	refused := audit.TestOnlyTicket(vocab.Act{Kind: vocab.Type, Text: "refuse"}, audit.Landing{X: 150, Y: 50})
	if err := f.Fire(ctx, refused); !errors.Is(err, hookErr) {
		t.Errorf("Fire when BeforeFire fails = %v, want its error", err)
	}
	if len(calls) != 2 || calls[0].Act() != ok.Act() {
		t.Errorf("BeforeFire saw %d tickets, want the two that passed the checks", len(calls))
	}
	if n := len(f.Fired()); n != 1 {
		t.Errorf("%d acts recorded, want 1", n)
	}
}

func TestFakeAppAt(t *testing.T) {
	f := &Fake{}
	ctx := context.Background()
	front := App{Name: "Front"}
	back := App{Name: "Back"}
	f.SetWindows([]Window{{App: front, X: 50, Y: 50, W: 100, H: 100}, {App: back, X: 0, Y: 0, W: 200, H: 200}})
	for _, tc := range []struct {
		x, y float64
		want App
	}{
		{60, 60, front}, {149.9, 149.9, front}, {150, 150, back}, {10, 10, back}, {300, 300, desktop},
	} {
		if got, err := f.AppAt(ctx, tc.x, tc.y); err != nil || got != tc.want {
			t.Errorf("AppAt(%g, %g) = %+v, %v; want %+v", tc.x, tc.y, got, err, tc.want)
		}
	}
	everywhere := App{Name: "Everywhere"}
	f.SetAppAt(everywhere)
	if got, _ := f.AppAt(ctx, 300, 300); got != everywhere {
		t.Errorf("AppAt off every window = %+v, want %+v", got, everywhere)
	}
}

func TestFakeFailureAndClose(t *testing.T) {
	f := &Fake{}
	ctx := context.Background()
	tk := audit.TestOnlyTicket(vocab.Act{Kind: vocab.Click}, audit.Landing{X: 1, Y: 1})
	dropped := errors.New("input dropped")
	f.SetFailure(dropped)
	if err := f.Fire(ctx, tk); !errors.Is(err, dropped) {
		t.Errorf("Fire with a failure set = %v", err)
	}
	f.SetFailure(nil)
	if err := f.Fire(ctx, tk); err != nil {
		t.Errorf("Fire after clearing the failure = %v", err)
	}
	if n := len(f.Fired()); n != 1 {
		t.Errorf("%d acts recorded, want 1", n)
	}
	f.Close()
	if err := f.Fire(ctx, tk); err == nil {
		t.Error("Fire after Close succeeded")
	}
	if _, err := f.Frontmost(ctx); err == nil {
		t.Error("Frontmost after Close succeeded")
	}
}

func TestFakeIsSafeForConcurrentUse(t *testing.T) {
	f := &Fake{}
	ctx := context.Background()
	done := make(chan struct{})
	for i := range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			for j := range 50 {
				f.SetFrontmost(App{Name: "Chromium"})
				_ = f.Fire(ctx, audit.TestOnlyTicket(vocab.Act{Kind: vocab.Click}, audit.Landing{X: float64(i), Y: float64(j)}))
				f.Fired()
			}
		}()
	}
	for range 8 {
		<-done
	}
	if n := len(f.Fired()); n != 400 {
		t.Errorf("%d acts recorded, want 400", n)
	}
}

func TestPersonCheckBoundaries(t *testing.T) {
	since := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) inputAt { return inputAt{early: since.Add(d), late: since.Add(d)} }
	for _, tc := range []struct {
		name string
		in   inputAt
		own  time.Time
		held bool
	}{
		{"input before the quiet moment", at(-time.Second), time.Time{}, false},
		{"input within the clocks' grain after it", at(inputGrain), time.Time{}, false},
		{"input just past the grain", at(inputGrain + time.Millisecond), time.Time{}, true},
		{"input long after", at(time.Second), time.Time{}, true},
		{"the executor's own last event", at(time.Second), since.Add(time.Second - 5*time.Millisecond), false},
		{"its own event's echo", at(time.Second), since.Add(time.Second - ownEcho), false},
		{"the person after its own event", at(time.Second), since.Add(time.Second - ownEcho - time.Millisecond), true},
		{"late reading only past the grain", inputAt{early: since, late: since.Add(time.Second)}, time.Time{}, true},
	} {
		err := personCheck(tc.in, tc.own, since)
		if held := errors.Is(err, ErrPersonActive); held != tc.held {
			t.Errorf("%s: held %v (%v), want %v", tc.name, held, err, tc.held)
		}
	}
}
