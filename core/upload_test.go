package core_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/approvals"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// uploadFixture is the shop on the fake browser, shared at Control, in a
// home folder made for the test, with the browser's window under every
// point and a file to upload.
func uploadFixture(t *testing.T) (*fixture, string) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.Control)
	f.Exec.SetAppAt(executor.App{Name: "Chromium", Exe: "/usr/lib/chromium/chromium", PID: 4321})
	f.Exec.SetFrontmost(executor.App{Name: "Chromium", Exe: "/usr/lib/chromium/chromium", PID: 4321})
	p := filepath.Join(home, "Documents", "invoice.pdf")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("%PDF-1.4 thirty bytes of text"), 0o600); err != nil {
		t.Fatal(err)
	}
	return f, p
}

// asked answers every approval with d, keeping what the person was asked.
func (f *fixture) askedWith(d vocab.Decision) (asked func() []vocab.Request, stop func()) {
	events, unsubscribe := f.Subscribe(64)
	got := make(chan vocab.Request, 16)
	go func() {
		for ev := range events {
			if ev.Kind == persondoor.EventApproval {
				got <- *ev.Request
				f.Engine.Answer(ev.Request.ID, d)
			}
		}
	}()
	var seen []vocab.Request
	return func() []vocab.Request {
		for {
			select {
			case r := <-got:
				seen = append(seen, r)
			default:
				return seen
			}
		}
	}, unsubscribe
}

func actOf(t *testing.T, raw []byte) vocab.Act {
	t.Helper()
	var a vocab.Act
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatal(err)
	}
	return a
}

func (f *fixture) upload(ref string, paths ...string) (*agentdoor.UploadResult, error) {
	return f.agent.Upload(context.Background(), agentdoor.UploadRequest{Tab: f.tab, Ref: ref, Paths: paths})
}

func TestAnUploadShowsTheFileAndIsCommittedBeforeItFires(t *testing.T) {
	f, path := uploadFixture(t)
	asked, stop := f.askedWith(vocab.AllowOnce)
	defer stop()
	db, err := sql.Open("sqlite", "file:"+f.LogPath+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	f.Exec.BeforeFire = func(tk audit.Ticket) error {
		var phase string
		return db.QueryRow(`SELECT phase FROM audit_rows WHERE seq = ?`, tk.Seq()).Scan(&phase)
	}
	ref, _ := f.snapRef("Next")
	res, err := f.upload(ref, path)
	if err != nil {
		t.Fatal(err)
	}
	reqs := asked()
	if len(reqs) != 1 {
		t.Fatalf("the person was asked %d times, want once", len(reqs))
	}
	want := "Upload “invoice.pdf” (29 bytes) from the folder “" + filepath.Dir(path) + "” through “Next”"
	if s := reqs[0].Sentence(); s != want {
		t.Errorf("the person read %q, want %q", s, want)
	}
	if reqs[0].Risk == "" {
		t.Error("an upload was asked without the warning of the acts always asked")
	}
	if got := f.Exec.Chosen(); len(got) != 1 || got[0] != path {
		t.Errorf("the file dialog was given %q, want %q", got, path)
	}
	rows := f.rows(persondoor.AuditFilter{Act: string(vocab.Upload)})
	if len(rows) != 2 || rows[0].Outcome != vocab.OutcomeDone || rows[1].Phase != audit.PhaseFire {
		t.Fatalf("want the fire row then done, got %+v", rows)
	}
	if act := actOf(t, rows[1].Act); act.File != (vocab.File{Path: path, Size: 29}) {
		t.Errorf("the fire row names %+v, want the file and its size", act.File)
	}
	// The fake page names no file: Reins says it cannot confirm, never
	// that the page got it.
	if res.Confirmed || !strings.Contains(res.Received, "cannot confirm") {
		t.Errorf("the answer says %q (confirmed %v) of a page that shows nothing", res.Received, res.Confirmed)
	}
}

func TestAnUploadOfAKeyOrAFolderIsRefusedBeforeAnyoneIsAsked(t *testing.T) {
	f, path := uploadFixture(t)
	asked, stop := f.askedWith(vocab.AllowOnce)
	defer stop()
	key := filepath.Join(os.Getenv("HOME"), ".ssh", "id_ed25519")
	if err := os.MkdirAll(filepath.Dir(key), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, []byte("-----BEGIN OPENSSH PRIVATE KEY-----"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(filepath.Dir(path), "notes.txt")
	if err := os.Symlink(key, link); err != nil {
		t.Fatal(err)
	}
	ref, _ := f.snapRef("Next")
	for _, p := range []string{key, link, filepath.Dir(path), "relative/file.txt"} {
		_, err := f.upload(ref, p)
		if codeOf(err) != vocab.CodePathRefused {
			t.Errorf("%s: %v, want %s", p, err, vocab.CodePathRefused)
		}
	}
	if _, err := f.upload(ref, path, path); codeOf(err) != vocab.CodeBadRequest {
		t.Errorf("two files: %v, want %s", err, vocab.CodeBadRequest)
	}
	if n := len(asked()); n != 0 {
		t.Errorf("the person was asked %d times about files Reins refuses", n)
	}
	if len(f.Exec.Fired()) != 0 || len(f.Exec.Chosen()) != 0 {
		t.Error("something fired")
	}
	rows := f.rows(persondoor.AuditFilter{Act: string(vocab.Upload), Outcome: vocab.OutcomeRefused})
	if len(rows) != 5 || rows[len(rows)-1].Code != vocab.CodePathRefused || actOf(t, rows[len(rows)-1].Act).File.Path != key {
		t.Errorf("want five refusals, the first naming the key as asked, got %+v", rows)
	}
}

func TestAnUploadWithoutControlLearnsNothingOfTheDisk(t *testing.T) {
	f, _ := uploadFixture(t)
	f.SetShare(f.tab, vocab.ReadOnly)
	ref, _ := f.snapRef("Next")
	_, err := f.upload(ref, "/no/such/file")
	if codeOf(err) != vocab.CodeControlRequired {
		t.Fatalf("got %v, want %s before the path is looked at", err, vocab.CodeControlRequired)
	}
}

func TestAnUploadTypesNothingButIntoTheBrowsersOwnFocusedDialog(t *testing.T) {
	f, path := uploadFixture(t)
	_, stop := f.askedWith(vocab.AllowOnce)
	defer stop()
	ref, _ := f.snapRef("Next")
	for _, c := range []struct {
		name  string
		how   executor.FileDialog
		code  string
		words string
	}{
		{"no dialog", executor.FileDialog{None: true}, vocab.CodeNoFileDialog, "opened no file dialog"},
		{"another program's", executor.FileDialog{Other: executor.App{Name: "xdg-desktop-portal-gtk", PID: 77}}, vocab.CodeNoFileDialog, "not a desktop portal's"},
		{"without the focus", executor.FileDialog{Unfocused: true}, vocab.CodeNoFileDialog, "did not get the keyboard focus"},
		{"focus lost part-way", executor.FileDialog{LoseAfter: 3}, vocab.CodeNoFileDialog, "typing stopped after 3 of"},
		{"still open once accepted", executor.FileDialog{Stays: true}, vocab.CodeFailed, "Escape was pressed in the file dialog, which chose nothing"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f.Exec.SetFileDialog(c.how)
			_, err := f.upload(ref, path)
			if codeOf(err) != c.code || !strings.Contains(err.Error(), c.words) {
				t.Errorf("got %v, want %s saying %q", err, c.code, c.words)
			}
		})
	}
	if got := f.Exec.Chosen(); len(got) != 0 {
		t.Errorf("a dialog chose %q", got)
	}
	fires, outcomes := 0, 0
	for _, r := range f.rows(persondoor.AuditFilter{Act: string(vocab.Upload)}) {
		switch r.Phase {
		case audit.PhaseFire:
			fires++
		case audit.PhaseOutcome:
			outcomes++
		}
	}
	if fires != 5 || outcomes != 5 {
		t.Errorf("want five fire rows each with its outcome, got %d and %d", fires, outcomes)
	}
}

func TestAnUploadIsAlwaysAskedOnItsOwn(t *testing.T) {
	act := vocab.Act{Kind: vocab.Upload, File: vocab.File{Path: "/home/p/a.txt", Size: 3}}
	if _, risky := approvals.RiskOf(act, vocab.Target{Tab: "t1", Origin: "https://shop.example.com"}); !risky {
		t.Fatal("an upload is not in the table of acts always asked")
	}
}
