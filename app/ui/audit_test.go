package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"github.com/reins-app/reins/persondoor"
)

func TestAuditViewerFilters(t *testing.T) {
	testApp(t)
	e := NewFakeEngine()
	clock := NewFakeClock(t0)
	e.AddRows(
		persondoor.AuditRow{Seq: 1, Time: t0.Add(-48 * 3600e9), AgentName: "Codex", Origin: "https://mail.example.com", ActKind: "read", Outcome: "refused", Code: "grant_required"},
		persondoor.AuditRow{Seq: 2, Time: t0.Add(-60e9), AgentName: "Claude Code", Origin: "https://shop.example.com", ActKind: "click", Outcome: "done"},
		persondoor.AuditRow{Seq: 3, Time: t0.Add(-30e9), AgentName: "Claude Code", Origin: "https://shop.example.com", ActKind: "type", Act: []byte(`{"kind":"type","text_length":6,"secret":true}`), TargetName: "Password", Outcome: "denied"},
	)
	var exported []byte
	v := NewAuditViewer(AuditViewerOptions{Engine: e, Clock: clock, Export: func(b []byte) { exported = b }})
	test.NewTempWindow(t, v.Content())
	if got := len(v.Rows()); got != 2 {
		t.Fatalf("last 24 hours shows %d rows, want 2", got)
	}
	v.when.SetSelected("Everything")
	if got := len(v.Rows()); got != 3 {
		t.Fatalf("everything shows %d rows, want 3", got)
	}
	v.origin.SetText("shop.example.com")
	v.origin.OnSubmitted(v.origin.Text)
	v.act.SetSelected("type")
	if rows := v.Rows(); len(rows) != 1 || rows[0].Seq != 3 {
		t.Fatalf("shop + type shows %+v", rows)
	}
	if got := actSummary(v.Rows()[0]); got != "type 6 characters into “Password”" {
		t.Fatalf("act = %q", got)
	}
	v.Verify()
	if !strings.Contains(v.StatusText(), "Intact: 3 rows") {
		t.Fatalf("status = %q", v.StatusText())
	}
	v.export()
	if !strings.Contains(string(exported), `"seq":3`) {
		t.Fatalf("export = %s", exported)
	}
}

// A dialog's row says which answer the person allowed, and an upload's row
// the file, each as text.
func TestTheAuditViewerSaysDialogsAndUploads(t *testing.T) {
	for _, c := range []struct {
		row  persondoor.AuditRow
		want string
	}{
		{persondoor.AuditRow{ActKind: "dialog", Act: []byte(`{"kind":"dialog","accept":true,"dialog":"prompt","text":"Ada\u202e"}`), TargetName: "Your name?"}, "accept the prompt dialog with “Ada” saying “Your name?”"},
		{persondoor.AuditRow{ActKind: "dialog", Act: []byte(`{"kind":"dialog","dialog":"confirm"}`), TargetName: "Delete?"}, "dismiss the confirm dialog saying “Delete?”"},
		{persondoor.AuditRow{ActKind: "upload", Act: []byte(`{"kind":"upload","file":{"path":"/home/p/invoice.pdf","size":29}}`), TargetName: "Attach"}, "upload “/home/p/invoice.pdf” (29 bytes) through “Attach”"},
	} {
		if got := actSummary(c.row); got != c.want {
			t.Errorf("actSummary = %q, want %q", got, c.want)
		}
	}
}
