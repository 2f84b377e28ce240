package audit

import (
	"strings"
	"testing"
)

// FuzzReadAnchor feeds the verifier's reader of receiver files whatever a
// receiver, or someone writing to the system log, might hold: it never
// panics, keeps only well-formed lines of the log it is asked about, and
// reads back exactly what AnchorLine wrote.
func FuzzReadAnchor(f *testing.F) {
	f.Add("2026-12-01T14:53:39.581174+00:00 vm reins[23300]: "+AnchorLine(1, strings.Repeat("a", 64), zeroHash, "/x/audit.db"), int64(7), "/x/audit.db")
	f.Add("<86>1 - - reins 1 audit - reins-audit seq=2 hash="+strings.Repeat("b", 64)+" prev= db=/x/audit.db\nreins-audit seq=2 hash=zz db=/x/audit.db", int64(1), "/x/audit.db")
	f.Add("reins-audit seq=-1 hash= db=\x00\r\n\xff", int64(9223372036854775807), "")
	f.Fuzz(func(t *testing.T, in string, seq int64, id string) {
		a, err := ReadAnchor(strings.NewReader(in), id)
		if err != nil {
			return // a line over 1 MiB
		}
		if len(a.Rows) > a.Lines {
			t.Fatalf("%d rows from %d lines", len(a.Rows), a.Lines)
		}
		for s, h := range a.Rows {
			if s <= 0 || len(h) != 64 {
				t.Fatalf("kept seq %d hash %q", s, h)
			}
		}
		if seq <= 0 {
			return
		}
		hash := strings.Repeat("c", 64)
		line := "host reins[1]: " + AnchorLine(seq, hash, zeroHash, id) + "\n"
		b, err := ReadAnchor(strings.NewReader(line), id)
		if err != nil || b.Rows[seq] != hash || b.Lines != 1 {
			t.Fatalf("AnchorLine(%d, …, %q) read back as %+v, %v", seq, id, b, err)
		}
	})
}
