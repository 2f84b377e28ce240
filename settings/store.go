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

	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/internal/atomicfile"
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
		if c, err := executor.CanonicalHotkey(d.PauseChord); err == nil {
			s.PauseChord = c
		} else {
			problems = append(problems, fmt.Sprintf("%s: pause chord %q cannot be used (%v); using %s", path, d.PauseChord, err, executor.PauseChord))
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
	}, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(f.Path, append(b, '\n'), 0o600)
}

func auditAnchorToDisk(s Settings) *auditAnchorOnDisk {
	if s.AuditRemote == "" && !s.AuditRemoteRequired {
		return nil
	}
	return &auditAnchorOnDisk{Remote: s.AuditRemote, Required: s.AuditRemoteRequired}
}

// pauseChordOnDisk is what settings.json keeps: nothing for the default.
func pauseChordOnDisk(c string) string {
	if c == executor.PauseChord {
		return ""
	}
	return c
}

// auditAnchorOnDisk is the saved form of the remote audit receiver.
type auditAnchorOnDisk struct {
	Remote   string `json:"remote,omitempty"`   // host:port
	Required bool   `json:"required,omitempty"` // refuse acts while it does not answer
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
	AuditAnchor *auditAnchorOnDisk `json:"auditAnchor,omitempty"`
}
