package ui

import (
	"context"
	"strings"
	"testing"

	"github.com/reins-app/reins/persondoor"
)

// selfTesting is an engine that runs a self-test: it says one check as it
// goes and returns a report with a failure.
type selfTesting struct {
	*FakeEngine
	asked chan persondoor.SelfTestOptions
}

func (s selfTesting) SelfTest(ctx context.Context, o persondoor.SelfTestOptions) (persondoor.SelfTestReport, error) {
	s.asked <- o
	c := persondoor.SelfTestCheck{Name: "click", Result: persondoor.SelfTestFail, Saw: "the window's click box took no tap"}
	o.Progress(persondoor.SelfTestEvent{Check: &c})
	return persondoor.SelfTestReport{File: "/data/selftest.json", Checks: []persondoor.SelfTestCheck{c,
		{Name: "typing", Result: persondoor.SelfTestPass, Saw: "the field went from “seed text” to “aq@é€⏎”"}}}, nil
}

func TestRunSelfTestFromTheMenuShowsTheReport(t *testing.T) {
	plain := Start(Options{App: testApp(t), Engine: NewFakeEngine()})
	defer plain.Stop()
	if find(plain.TrayItems(), "Run self-test…") != nil {
		t.Fatal("the menu offers a self-test the engine cannot run")
	}
	e := selfTesting{FakeEngine: NewFakeEngine(), asked: make(chan persondoor.SelfTestOptions, 1)}
	queue := make(chan func(), 64)
	u := Start(Options{App: testApp(t), Engine: e, testOnlyDo: func(f func()) { queue <- f }})
	defer u.Stop()
	drain = func() {
		for {
			select {
			case f := <-queue:
				f()
			default:
				return
			}
		}
	}
	defer func() { drain = func() {} }()
	item := find(u.TrayItems(), "Run self-test…")
	if item == nil {
		t.Fatal("no Run self-test… in the menu")
	}
	item.Do()
	o := <-e.asked
	if o.Tray == nil || o.Hand || o.Asker != (persondoor.SelfTestAsker{}) {
		t.Errorf("asked with %+v: want the tray's account, no hand, the person as the asker", o)
	}
	waitFor(t, "the report in the window", func() bool {
		v := u.selfTest
		return v.report != nil && strings.Contains(v.table.Text(), "typing") && strings.Contains(v.status.Text, "1 of 2 checks failed: click") && !v.copyBtn.Disabled()
	})
}
