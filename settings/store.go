package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/reins-app/reins/internal/atomicfile"
	"github.com/reins-app/reins/keychord"
)

// FileName is where the person's settings are saved, in the data folder.
const FileName = "settings.json"

// A Store keeps the settings from one start of Reins to the next.
type Store interface {
	// Load reads what was saved. It never fails: what cannot be used is
	// left at its default and said in problems, one sentence each, so that
	// a damaged store never stops Reins from starting.
	Load() (s Settings, problems []string)
	// Save keeps s whole, replacing what was saved.
	Save(s Settings) error
}

// File is a [Store] in a JSON file, settings.json in the data folder.
type File struct{ Path string }

var _ Store = File{}

// Load reads the settings saved at f.Path. A missing file gives the
// defaults (zero values); a value out of bounds is dropped with a note in
// the returned problems. A file that cannot be read as settings at all is
// renamed to settings.json.bad, replacing an older one, so that saving a
// change does not destroy what the person had set.
func (f File) Load() (Settings, []string) {
	path := f.Path
	var s Settings
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, []string{fmt.Sprintf("reading %s: %v; using the defaults", path, err)}
	}
	var d settingsOnDisk
	if err := json.Unmarshal(b, &d); err != nil {
		// The next change would replace the file, and the person's values
		// (their additions to the deny list among them) with it: set it
		// aside first, where they can still be read and put back.
		bad := path + ".bad"
		var anchorNote string
		if bytes.Contains(b, []byte(`"auditAnchor"`)) {
			// It may have named a required receiver: the defaults must not
			// lift that rule, so acts are refused until it is mended.
			s.AuditRemoteRequired = true
			anchorNote = "; it names an audit anchor, which is taken as required and unknown, so acts are refused until the file is mended"
		}
		if rerr := os.Rename(path, bad); rerr != nil {
			return s, []string{fmt.Sprintf("%s cannot be read as settings (%v), nor set aside as %s (%v); using the defaults, and the next change in Preferences will replace it%s", path, err, filepath.Base(bad), rerr, anchorNote)}
		}
		return s, []string{fmt.Sprintf("%s cannot be read as settings (%v); it is kept as %s for you to mend or delete, and Reins uses the defaults until then%s", path, err, bad, anchorNote)}
	}
	var problems []string
	if t := time.Duration(d.ApprovalTimeoutSeconds) * time.Second; t != 0 {
		if t >= MinApprovalTimeout && t <= MaxApprovalTimeout {
			s.ApprovalTimeout = t
		} else {
			problems = append(problems, fmt.Sprintf("%s: approval timeout %s is out of bounds; using the default", path, short(t)))
		}
	}
	if r := time.Duration(d.RememberForSeconds) * time.Second; r != 0 {
		if r >= MinRememberFor && r <= MaxRememberFor {
			s.RememberFor = r
		} else {
			problems = append(problems, fmt.Sprintf("%s: “allow on this tab” %s is out of bounds; using the default", path, short(r)))
		}
	}
	if d.BridgePort != 0 {
		if d.BridgePort >= 1024 && d.BridgePort <= 65535 {
			s.BridgePort = d.BridgePort
		} else {
			problems = append(problems, fmt.Sprintf("%s: bridge port %d is out of bounds; picking a free one", path, d.BridgePort))
		}
	}
	s.StartAtLogin = d.StartAtLogin
	if d.PauseChord != "" {
		if c, err := keychord.CanonicalHotkey(d.PauseChord); err == nil {
			s.PauseChord = c
		} else {
			problems = append(problems, fmt.Sprintf("%s: pause chord %q cannot be used (%v); using %s", path, d.PauseChord, err, keychord.PauseChord))
		}
	}
	if a := d.AuditAnchor; a != nil {
		switch err := CheckAuditRemote(a.Remote); {
		case err != nil && a.Required:
			// Dropping a required receiver would quietly lift the rule.
			problems = append(problems, fmt.Sprintf("%s: %s; acts are refused until it is mended, since the receiver was marked required", path, strings.TrimPrefix(err.Error(), ErrInvalid.Error()+": ")))
			s.AuditRemote, s.AuditRemoteRequired = a.Remote, true
		case err != nil:
			problems = append(problems, fmt.Sprintf("%s: %s; audit rows are not sent to a receiver", path, strings.TrimPrefix(err.Error(), ErrInvalid.Error()+": ")))
		case a.Required && a.Remote == "":
			// Required means no act without it: with none named, none fires.
			problems = append(problems, fmt.Sprintf("%s: the audit anchor is marked required but names no receiver (\"remote\": \"host:port\"); acts are refused until it names one or is no longer required", path))
			s.AuditRemoteRequired = true
		default:
			s.AuditRemote, s.AuditRemoteRequired = a.Remote, a.Required
		}
		problems = append(problems, loadAuditCopies(path, a, &s)...)
	}
	if r := d.AuditRetention; r != nil {
		switch {
		case r.Days < 0 || r.Megabytes < 0:
			problems = append(problems, fmt.Sprintf("%s: audit retention must count days and megabytes from 0 (keep everything); keeping everything", path))
		case r.Megabytes > 0 && r.Megabytes < MinRetainMegabytes:
			problems = append(problems, fmt.Sprintf("%s: audit retention of %d MB is below %d MB; keeping %d MB", path, r.Megabytes, MinRetainMegabytes, MinRetainMegabytes))
			s.AuditCopies.RetainDays, s.AuditCopies.RetainMegabytes = r.Days, MinRetainMegabytes
		default:
			s.AuditCopies.RetainDays, s.AuditCopies.RetainMegabytes = r.Days, r.Megabytes
		}
	}
	for _, n := range d.DenyAdded {
		name, err := CheckDeniedName(n)
		switch {
		case err != nil:
			problems = append(problems, fmt.Sprintf("%s: deny list entry %q dropped: %s", path, n, strings.TrimPrefix(err.Error(), ErrInvalid.Error()+": ")))
		case slices.ContainsFunc(s.DenyAdded, sameApp(name)):
			problems = append(problems, fmt.Sprintf("%s: deny list entry %q is there twice; keeping one", path, n))
		default:
			s.DenyAdded = append(s.DenyAdded, name)
		}
	}
	return s, problems
}

// Save writes s to f.Path, owner-only, replacing the old file whole.
func (f File) Save(s Settings) error {
	b, err := json.MarshalIndent(settingsOnDisk{
		ApprovalTimeoutSeconds: int(s.ApprovalTimeout / time.Second),
		RememberForSeconds:     int(s.RememberFor / time.Second),
		BridgePort:             s.BridgePort,
		StartAtLogin:           s.StartAtLogin,
		DenyAdded:              s.DenyAdded,
		PauseChord:             pauseChordOnDisk(s.PauseChord),
		AuditAnchor:            auditAnchorToDisk(s),
		AuditRetention:         auditRetentionToDisk(s),
	}, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(f.Path, append(b, '\n'), 0o600)
}

// MinRetainMegabytes is the least total size retention may keep the log to.
const MinRetainMegabytes = 16

// loadAuditCopies reads the anchor's keys beside remote and required. A
// copy that cannot be used is dropped with a problem, unless it was
// required: then acts are refused until it is mended, since dropping it
// would quietly lift the rule.
func loadAuditCopies(path string, a *auditAnchorOnDisk, s *Settings) []string {
	var problems []string
	words := func(err error) string { return strings.TrimPrefix(err.Error(), ErrInvalid.Error()+": ") }
	c := &s.AuditCopies
	c.RequireAnchor = a.RequireAnchor
	if a.TLS != nil {
		t := a.TLS.settings()
		c.RemoteTLS = &t
		if err := CheckAuditTLS(t); err != nil {
			if a.Required {
				// Kept as written: the receiver cannot be reached, so acts
				// are refused until the file is mended.
				problems = append(problems, fmt.Sprintf("%s: auditAnchor.tls: %s; acts are refused until it is mended, since the receiver was marked required", path, words(err)))
			} else {
				// Never plain TCP where TLS was asked for.
				problems = append(problems, fmt.Sprintf("%s: auditAnchor.tls: %s; audit rows are not sent to %s", path, words(err), a.Remote))
				s.AuditRemote, c.RemoteTLS = "", nil
			}
		}
	}
	if o := a.OTLP; o != nil {
		t := o.tlsOnDisk.settings()
		err := CheckAuditOTLP(o.URL)
		if err == nil {
			err = CheckAuditTLS(t)
		}
		switch {
		case err != nil && o.Required:
			problems = append(problems, fmt.Sprintf("%s: auditAnchor.otlp: %s; acts are refused until it is mended, since the collector was marked required", path, words(err)))
			c.OTLP = &AuditOTLP{URL: o.URL, TLS: t, Headers: o.Headers, Required: true}
		case err != nil:
			problems = append(problems, fmt.Sprintf("%s: auditAnchor.otlp: %s; audit rows are not sent to a collector", path, words(err)))
		default:
			c.OTLP = &AuditOTLP{URL: o.URL, TLS: t, Headers: o.Headers, Required: o.Required}
		}
	}
	return problems
}

func auditAnchorToDisk(s Settings) *auditAnchorOnDisk {
	c := s.AuditCopies
	if s.AuditRemote == "" && !s.AuditRemoteRequired && c.RemoteTLS == nil && c.OTLP == nil && !c.RequireAnchor {
		return nil
	}
	d := &auditAnchorOnDisk{Remote: s.AuditRemote, Required: s.AuditRemoteRequired, RequireAnchor: c.RequireAnchor}
	if c.RemoteTLS != nil {
		d.TLS = tlsToDisk(*c.RemoteTLS)
	}
	if o := c.OTLP; o != nil {
		d.OTLP = &otlpOnDisk{URL: o.URL, tlsOnDisk: *tlsToDisk(o.TLS), Headers: o.Headers, Required: o.Required}
	}
	return d
}

func auditRetentionToDisk(s Settings) *auditRetentionOnDisk {
	if s.AuditCopies.RetainDays == 0 && s.AuditCopies.RetainMegabytes == 0 {
		return nil
	}
	return &auditRetentionOnDisk{Days: s.AuditCopies.RetainDays, Megabytes: s.AuditCopies.RetainMegabytes}
}

func tlsToDisk(t AuditTLS) *tlsOnDisk {
	return &tlsOnDisk{CA: t.CA, Cert: t.Cert, Key: t.Key, ServerName: t.ServerName}
}

// pauseChordOnDisk is what settings.json keeps: nothing for the default.
func pauseChordOnDisk(c string) string {
	if c == keychord.PauseChord {
		return ""
	}
	return c
}

// auditAnchorOnDisk is the saved form of the audit log's copies.
type auditAnchorOnDisk struct {
	Remote   string      `json:"remote,omitempty"`   // host:port
	Required bool        `json:"required,omitempty"` // refuse acts while it does not answer
	TLS      *tlsOnDisk  `json:"tls,omitempty"`      // present: TLS to remote, whole rows
	OTLP     *otlpOnDisk `json:"otlp,omitempty"`
	// RequireAnchor refuses acts while no copy leaves the database.
	RequireAnchor bool `json:"requireAnchor,omitempty"`
}

type tlsOnDisk struct {
	CA         string `json:"ca,omitempty"`   // PEM file; none: the system's roots
	Cert       string `json:"cert,omitempty"` // client certificate, PEM
	Key        string `json:"key,omitempty"`  // its key, PEM
	ServerName string `json:"serverName,omitempty"`
}

func (t *tlsOnDisk) settings() AuditTLS {
	return AuditTLS{CA: t.CA, Cert: t.Cert, Key: t.Key, ServerName: t.ServerName}
}

type otlpOnDisk struct {
	URL string `json:"url"`
	tlsOnDisk
	Headers  map[string]string `json:"headers,omitempty"`
	Required bool              `json:"required,omitempty"`
}

// auditRetentionOnDisk is the saved form of the log's retention.
type auditRetentionOnDisk struct {
	Days      int `json:"days,omitempty"`
	Megabytes int `json:"megabytes,omitempty"`
}

// settingsOnDisk is the saved form; zero fields mean the default.
type settingsOnDisk struct {
	ApprovalTimeoutSeconds int      `json:"approvalTimeoutSeconds,omitempty"`
	RememberForSeconds     int      `json:"rememberForSeconds,omitempty"`
	BridgePort             int      `json:"bridgePort,omitempty"`
	StartAtLogin           bool     `json:"startAtLogin,omitempty"`
	DenyAdded              []string `json:"denyAdded,omitempty"`
	PauseChord             string   `json:"pauseChord,omitempty"`
	// AuditAnchor is kept as written by the person; see Settings.AuditRemote.
	AuditAnchor    *auditAnchorOnDisk    `json:"auditAnchor,omitempty"`
	AuditRetention *auditRetentionOnDisk `json:"auditRetention,omitempty"`
}
