package core

import (
	"io"

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
func (d person) AuditAnchor() persondoor.AnchorState { return d.e.opts.Audit.Anchor() }
