package audit

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// streamLines writes rows as a receiver keeps them: syslog lines (as
// rsyslog's RFC 5424 file format writes them) or OTLP JSON lines of
// batch rows each.
func streamLines(t *testing.T, rows []record, id, format string, batch int) []string {
	t.Helper()
	var out []string
	switch format {
	case "syslog":
		d := newSyslogDestination("127.0.0.1:1", &TLSOptions{}, "host", id)
		for i := range rows {
			out = append(out, d.message(&rows[i]))
		}
	case "otlp":
		d := newOTLPDestination(OTLPOptions{URL: "http://127.0.0.1:1/v1/logs"}, "host", id)
		for i := 0; i < len(rows); i += batch {
			b, err := json.Marshal(d.request(rows[i:min(i+batch, len(rows))]))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, string(b))
		}
	}
	return out
}

func loggedRows(t *testing.T, n int) []record {
	t.Helper()
	l := openTest(t)
	fillHostile(t, l, n)
	rows, err := l.rowsAfter(context.Background(), 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func verifyLines(t *testing.T, lines []string) StreamResult {
	t.Helper()
	res, err := VerifyStream(strings.NewReader("some other line\n" + strings.Join(lines, "\n") + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestTheStreamVerifierFindsGapsReorderingAndHashBreaks(t *testing.T) {
	rows := loggedRows(t, 20) // 25 rows
	const id = "/x/audit.db"
	for _, format := range []string{"syslog", "otlp"} {
		t.Run(format, func(t *testing.T) {
			one := func(rows []record) StreamReport {
				t.Helper()
				res := verifyLines(t, streamLines(t, rows, id, format, 1))
				if len(res.Logs) != 1 || res.Logs[0].ID != id {
					t.Fatalf("logs %+v", res)
				}
				return res.Logs[0]
			}
			if rep := one(rows); !rep.OK() || rep.Rows != 25 || rep.First != 1 || rep.Last != 25 || rep.Duplicates != 0 {
				t.Fatalf("whole stream: %+v", rep)
			}
			// Resent after a reconnect: rows 15–20 again.
			resent := append(slices.Clone(rows[:20]), rows[14:]...)
			if rep := one(resent); !rep.OK() || rep.Rows != 25 || rep.Duplicates != 6 {
				t.Fatalf("with rows resent: %+v", rep)
			}
			gap := append(slices.Clone(rows[:4]), rows[7:]...)
			if rep := one(gap); rep.OK() || len(rep.Gaps) != 1 || rep.Gaps[0] != (SeqRange{5, 7}) {
				t.Fatalf("rows 5–7 missing: %+v", rep)
			}
			swapped := slices.Clone(rows)
			swapped[9], swapped[10] = swapped[10], swapped[9]
			if rep := one(swapped); rep.OK() || rep.Reordered != 1 || rep.FirstReordered != 10 || rep.Broken != nil {
				t.Fatalf("rows 10 and 11 swapped: %+v", rep)
			}
			changed := slices.Clone(rows)
			changed[11].outcome = "done"
			if rep := one(changed); rep.Broken == nil || rep.Broken.Seq != 12 || !strings.Contains(rep.Broken.Why, "contents") {
				t.Fatalf("row 12 changed: %+v", rep)
			}
			forged := append(slices.Clone(rows), rows[3])
			forged[len(forged)-1].detail = "nothing happened"
			forged[len(forged)-1].hash = forged[len(forged)-1].sum()
			if rep := one(forged); rep.Broken == nil || rep.Broken.Seq != 4 || !strings.Contains(rep.Broken.Why, "twice") {
				t.Fatalf("row 4 forged as a duplicate: %+v", rep)
			}
			// A row replaced whole, its hash recomputed: the next row
			// no longer follows it.
			replaced := slices.Clone(rows)
			replaced[7].detail = "nothing happened"
			replaced[7].hash = replaced[7].sum()
			if rep := one(replaced); rep.Broken == nil || rep.Broken.Seq != 9 || !strings.Contains(rep.Broken.Why, "follow") {
				t.Fatalf("row 8 replaced: %+v", rep)
			}
		})
	}
}

func TestTheStreamVerifierReadsBatchesAndSeveralLogs(t *testing.T) {
	rows := loggedRows(t, 20)
	lines := streamLines(t, rows, "/a/audit.db", "otlp", 10)
	lines = append(lines, streamLines(t, rows[:5], "/b/audit.db", "syslog", 1)...)
	res := verifyLines(t, lines)
	if len(res.Logs) != 2 || res.Logs[0].Rows != 25 || res.Logs[1].Rows != 5 || !res.Logs[0].OK() || !res.Logs[1].OK() {
		t.Fatalf("%+v", res)
	}
}

// A message a receiver cut to its size limit is reported, not skipped.
func TestTheStreamVerifierReportsACutMessage(t *testing.T) {
	rows := loggedRows(t, 4)
	lines := streamLines(t, rows, "/x/audit.db", "syslog", 1)
	lines[2] = lines[2][:len(lines[2])/2]
	res := verifyLines(t, lines)
	if res.Unreadable != 1 || res.FirstUnreadable != 4 || !strings.Contains(res.Why, "cut") {
		t.Fatalf("%+v", res)
	}
	if rep := res.Logs[0]; rep.OK() || len(rep.Gaps) != 1 {
		t.Fatalf("%+v", rep)
	}
}
