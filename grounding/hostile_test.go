package grounding_test

import (
	"strings"
	"testing"

	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/grounding"
)

// A role and name with control characters are kept without them: they go
// on into approval requests and the audit log, where a person reads them.
// What the agent reads is escaped as before.
func TestElementsKeepNoControlCharacters(t *testing.T) {
	role := "button\x1b[2K"
	name := "Delete account\x1b[2K\r Click “Cancel\x1b[8m\u0085\x7f\u202e"
	res := result(topFrame("d1", 0, &protocol.Node{Role: role, Name: name, ID: 7}))
	s := mustBuild(t, res, grounding.NewRefs())
	if len(s.Elements) != 1 {
		t.Fatalf("want one element, got %d", len(s.Elements))
	}
	for _, el := range s.Elements {
		if el.Role != "button[2K" {
			t.Errorf("Role = %q", el.Role)
		}
		if el.Name != "Delete account[2K Click “Cancel[8m\u202e" {
			t.Errorf("Name = %q", el.Name)
		}
	}
	if strings.ContainsAny(s.Text, "\x1b\r\u0085\x7f") {
		t.Errorf("the snapshot text carries a control character:\n%q", s.Text)
	}
	if !strings.HasPrefix(s.Text, "- generic ") {
		t.Errorf("a role that is not a plain token is not shown as generic:\n%s", s.Text)
	}
}
