package core

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/settings"
)

// AuditStreamResult is what VerifyAuditStream found.
type AuditStreamResult = audit.StreamResult

// VerifyAuditStream checks a receiver's file of forwarded audit rows (a
// syslog receiver's RFC 5424 lines, or a collector's OTLP JSON lines) for
// gaps, reordering and hash breaks, without the computer that sent them.
func VerifyAuditStream(r io.Reader) (AuditStreamResult, error) { return audit.VerifyStream(r) }

// AnchorOptions are the audit log's copies outside its database as the
// settings name them. An organisation's policy, when there is one, is to
// fill the same audit.AnchorOptions fields and win over these.
func AnchorOptions(s settings.Settings, systemLog string) audit.AnchorOptions {
	c := s.AuditCopies
	ao := audit.AnchorOptions{
		SystemLog: systemLog, Remote: s.AuditRemote, RemoteRequired: s.AuditRemoteRequired,
		RequireAnchor: c.RequireAnchor,
	}
	if c.RemoteTLS != nil {
		t := auditTLS(*c.RemoteTLS)
		ao.RemoteTLS = &t
	}
	if o := c.OTLP; o != nil {
		ao.OTLP = &audit.OTLPOptions{URL: o.URL, TLS: auditTLS(o.TLS), Headers: o.Headers, Required: o.Required}
	}
	return ao
}

func auditTLS(t settings.AuditTLS) audit.TLSOptions {
	return audit.TLSOptions{CAFile: t.CA, CertFile: t.Cert, KeyFile: t.Key, ServerName: t.ServerName}
}

var _ persondoor.Anchorer = person{}

// AuditAnchor says where the audit log's copies outside its database go.
func (d person) AuditAnchor() persondoor.AnchorState { return personAnchor(d.e.opts.Audit.Anchor()) }

// RetentionOptions is how long the audit log keeps its sealed parts, as
// the settings say. An organisation's policy, when there is one, is to
// fill the same audit.RetentionOptions fields and win over these.
func RetentionOptions(s settings.Settings) audit.RetentionOptions {
	c := s.AuditCopies
	return audit.RetentionOptions{MaxAge: time.Duration(c.RetainDays) * 24 * time.Hour, MaxBytes: int64(c.RetainMegabytes) << 20}
}

// Audit export formats.
const (
	ExportJSONL = "jsonl"
	ExportCSV   = "csv"
)

// ExportAudit writes every row of the audit log in dataDir ("" for the
// default) written at or after since, oldest first and across its sealed
// parts, to w as JSON lines or CSV, and returns how many it wrote. In
// CSV, a cell a spreadsheet would run as a formula (=, +, -, @ first)
// begins with ' : its text came from pages and agents.
func ExportAudit(ctx context.Context, dataDir string, since time.Time, format string, w io.Writer) (int, error) {
	if format != ExportJSONL && format != ExportCSV {
		return 0, fmt.Errorf("the export format must be %s or %s, not %q", ExportJSONL, ExportCSV, format)
	}
	log, err := OpenAudit(ctx, dataDir)
	if err != nil {
		return 0, err
	}
	defer log.Close()
	bw := bufio.NewWriterSize(w, 1<<16)
	var cw *csv.Writer
	if format == ExportCSV {
		cw = csv.NewWriter(bw)
		if err := cw.Write(exportColumns); err != nil {
			return 0, err
		}
	}
	n := 0
	err = log.Each(ctx, audit.Filter{Since: since}, func(r audit.Row) error {
		n++
		if cw != nil {
			return cw.Write(csvRecord(r))
		}
		b, err := persondoor.AuditJSON(personRow(r))
		if err != nil {
			return err
		}
		_, err = bw.Write(b)
		return err
	})
	if cw != nil {
		cw.Flush()
		err = errors.Join(err, cw.Error())
	}
	return n, errors.Join(err, bw.Flush())
}

// exportColumns are the CSV header: the log's columns.
var exportColumns = []string{"seq", "time", "agent_name", "agent_version", "agent_pid", "agent_exe", "agent_session",
	"tab", "tab_title", "origin", "frame_origin", "desktop", "act_kind", "act_json", "target_ref", "target_role", "target_name",
	"phase", "ref_seq", "outcome", "code", "detail", "plan_json", "decision", "prev_hash", "hash"}

func csvRecord(r audit.Row) []string {
	num := func(n int64) string {
		if n == 0 {
			return ""
		}
		return strconv.FormatInt(n, 10)
	}
	desktop := "0"
	if r.Desktop {
		desktop = "1"
	}
	out := []string{strconv.FormatInt(r.Seq, 10), r.Time.UTC().Format(time.RFC3339Nano), r.AgentName, r.AgentVersion, strconv.Itoa(r.AgentPID),
		r.AgentExe, r.AgentSession, r.Tab, r.TabTitle, r.Origin, r.FrameOrigin, desktop, r.ActKind, string(r.Act),
		r.TargetRef, r.TargetRole, r.TargetName, r.Phase, num(r.RefSeq), r.Outcome, r.Code, r.Detail, string(r.Plan), r.Decision, r.PrevHash, r.Hash}
	for i, v := range out {
		if v != "" && strings.ContainsRune("=+-@\t\r", rune(v[0])) {
			out[i] = "'" + v
		}
	}
	return out
}
