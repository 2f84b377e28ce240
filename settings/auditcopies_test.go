package settings_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reins-app/reins/settings"
)

// The audit log's copies and retention read back whole and save as they
// were written.
func TestAuditCopiesReadAndSaveWhole(t *testing.T) {
	const saved = `{
  "auditAnchor": {
    "remote": "logs.example.org:6514",
    "required": true,
    "tls": {
      "ca": "/etc/reins/ca.pem",
      "cert": "/etc/reins/client.pem",
      "key": "/etc/reins/client-key.pem"
    },
    "otlp": {
      "url": "https://otel.example.org:4318/v1/logs",
      "ca": "/etc/reins/otel-ca.pem",
      "headers": {
        "Authorization": "Bearer x"
      },
      "required": true
    },
    "requireAnchor": true
  },
  "auditRetention": {
    "days": 400,
    "megabytes": 2048
  }
}
`
	path := filepath.Join(t.TempDir(), settings.FileName)
	if err := os.WriteFile(path, []byte(saved), 0o600); err != nil {
		t.Fatal(err)
	}
	f := settings.File{Path: path}
	s, problems := f.Load()
	c := s.AuditCopies
	if len(problems) > 0 || s.AuditRemote != "logs.example.org:6514" || c.RemoteTLS == nil || c.RemoteTLS.Cert != "/etc/reins/client.pem" ||
		c.OTLP == nil || c.OTLP.TLS.CA != "/etc/reins/otel-ca.pem" || c.OTLP.Headers["Authorization"] != "Bearer x" || !c.OTLP.Required ||
		!c.RequireAnchor || c.RetainDays != 400 || c.RetainMegabytes != 2048 {
		t.Fatalf("loaded %+v %+v, problems %q", s, c, problems)
	}
	if err := f.Save(s); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != saved {
		t.Fatalf("saved again as\n%s\nwant\n%s", b, saved)
	}
}

// A copy that cannot be used is dropped with a sentence, unless it was
// required; TLS asked for never falls back to plain TCP.
func TestAuditCopiesThatCannotBeUsed(t *testing.T) {
	for _, c := range []struct {
		name, json, problem string
		check               func(settings.Settings) bool
	}{
		{"plain http to another computer", `{"auditAnchor": {"otlp": {"url": "http://otel.example.org:4318/v1/logs"}}}`, "unencrypted",
			func(s settings.Settings) bool { return s.AuditCopies.OTLP == nil }},
		{"a required collector with a bad address", `{"auditAnchor": {"otlp": {"url": "otel:4318", "required": true}}}`, "acts are refused",
			func(s settings.Settings) bool { return s.AuditCopies.OTLP != nil && s.AuditCopies.OTLP.Required }},
		{"a certificate without its key", `{"auditAnchor": {"remote": "logs.example.org:6514", "tls": {"cert": "/c.pem"}}}`, "not sent",
			func(s settings.Settings) bool { return s.AuditRemote == "" && s.AuditCopies.RemoteTLS == nil }},
		{"a required receiver whose TLS is wrong", `{"auditAnchor": {"remote": "logs.example.org:6514", "required": true, "tls": {"ca": "ca.pem"}}}`, "acts are refused",
			func(s settings.Settings) bool { return s.AuditRemoteRequired && s.AuditCopies.RemoteTLS != nil }},
		{"retention below its floor", `{"auditRetention": {"megabytes": 1}}`, "below",
			func(s settings.Settings) bool { return s.AuditCopies.RetainMegabytes == settings.MinRetainMegabytes }},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), settings.FileName)
			os.WriteFile(path, []byte(c.json), 0o600)
			s, problems := settings.File{Path: path}.Load()
			if len(problems) != 1 || !strings.Contains(problems[0], c.problem) || !c.check(s) {
				t.Fatalf("loaded %+v, problems %q", s, problems)
			}
			t.Log(problems[0])
		})
	}
}
