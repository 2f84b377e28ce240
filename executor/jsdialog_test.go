package executor

import (
	"context"
	"strings"
	"testing"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/vocab"
)

// TestADialogIsAnsweredWithKeys: Escape dismisses, Enter accepts, and a
// prompt's answer replaces the field's text before Enter; none of them
// moves the pointer.
func TestADialogIsAnsweredWithKeys(t *testing.T) {
	for _, tc := range []struct {
		name string
		act  vocab.Act
		want []string
	}{
		{"dismiss", vocab.Act{Kind: vocab.Dialog, Dialog: vocab.DialogConfirm}, []string{"Escape"}},
		{"accept", vocab.Act{Kind: vocab.Dialog, Dialog: vocab.DialogConfirm, Accept: true}, []string{"Enter"}},
		{"answer a prompt", vocab.Act{Kind: vocab.Dialog, Dialog: vocab.DialogPrompt, Accept: true, Text: "Ad"}, []string{"Control", "a", "Backspace", "A", "d", "Enter"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &Fake{}
			f.SetFrontmost(App{Name: "Chromium", PID: 10})
			if err := f.Fire(context.Background(), audit.TestOnlyTicket(tc.act, audit.Landing{Scale: 1})); err != nil {
				t.Fatal(err)
			}
			got := strings.Join(f.steps(), "\n")
			if strings.Contains(got, "move") {
				t.Errorf("the pointer moved:\n%s", got)
			}
			var down []string
			for _, l := range strings.Split(got, "\n") {
				if k, ok := strings.CutPrefix(l, "key down "); ok {
					down = append(down, k)
				}
			}
			if strings.Join(down, " ") != strings.Join(tc.want, " ") {
				t.Errorf("keys pressed %q, want %q; steps:\n%s", down, tc.want, got)
			}
			if fired := f.Fired(); len(fired) != 1 || fired[0].Act.Kind != vocab.Dialog {
				t.Errorf("fired %+v, want the dialog act as approved", fired)
			}
		})
	}
}
