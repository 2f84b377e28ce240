package audit

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// SeqRange is the rows from First to Last, both included.
type SeqRange struct{ First, Last int64 }

func (r SeqRange) String() string {
	if r.First == r.Last {
		return strconv.FormatInt(r.First, 10)
	}
	return fmt.Sprintf("%d–%d", r.First, r.Last)
}

// StreamReport is what [VerifyStream] found for one log in a receiver's
// file of forwarded rows.
type StreamReport struct {
	Host        string // the computer that sent it
	ID          string // the log's name on it (db)
	First, Last int64  // the oldest and newest row received
	Rows        int    // rows received, each counted once
	// Duplicates counts rows received again with the same hash: a
	// sender that resends after reconnecting does that on purpose.
	Duplicates int
	// Gaps are the rows missing between First and Last.
	Gaps []SeqRange
	// Reordered counts rows that arrived after a newer one; FirstReordered
	// is the first of them.
	Reordered      int
	FirstReordered int64
	// Broken is the first row whose hash does not hold: its contents do
	// not match its hash, it does not follow the row before it, or it
	// came twice with different hashes. Nil when every hash holds.
	Broken *TamperedError
}

// OK reports whether the stream is whole: no gap, nothing out of order,
// every hash verified.
func (r StreamReport) OK() bool { return len(r.Gaps) == 0 && r.Reordered == 0 && r.Broken == nil }

// StreamResult is every log VerifyStream found, and what it could not read.
type StreamResult struct {
	Logs []StreamReport // by name
	// Lines counts the lines read; Unreadable the lines that look like a
	// forwarded row but cannot be read as one (cut by a receiver's size
	// limit, say), FirstUnreadable the first such line's number and Why
	// what is wrong with it.
	Lines, Unreadable, FirstUnreadable int
	Why                                string
}

// streamEntry is what the verifier keeps of each row: its hash and the
// hash it follows.
type streamEntry struct{ hash, prev [32]byte }

type streamState struct {
	rep  StreamReport
	rows map[int64]streamEntry
}

// VerifyStream checks a receiver's file of forwarded rows, without the
// computer that sent them: RFC 5424 lines carrying a row as structured
// data ([RowSDID], anything a receiver writes before it is skipped), or
// OTLP JSON lines (one ExportLogsServiceRequest each, as a collector's file
// exporter writes them). For each log it names, every row's hash is
// recomputed and its link to the row before checked; rows missing between
// the first and the last, and rows that came after a newer one, are
// reported. A row received twice with the same hash is a duplicate, which
// is allowed: syslog senders resend after a reconnect.
func VerifyStream(r io.Reader) (StreamResult, error) {
	var res StreamResult
	logs := map[string]*streamState{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 64*1024*1024)
	bad := func(why string) {
		res.Unreadable++
		if res.FirstUnreadable == 0 {
			res.FirstUnreadable, res.Why = res.Lines, why
		}
	}
	for sc.Scan() {
		res.Lines++
		line := sc.Text()
		var rows []streamRow
		switch {
		case strings.Contains(line, "["+RowSDID+" "):
			p, _, err := parseRowSD(line)
			if err != nil {
				bad(err.Error())
				continue
			}
			b := newRowBuilder()
			for k, v := range p {
				if err == nil {
					err = b.setText(k, v)
				}
			}
			rec, rerr := b.record()
			if err = cmp.Or(err, rerr); err != nil {
				bad(err.Error())
				continue
			}
			rows = []streamRow{{host: p["host"], id: p["db"], r: rec}}
		case strings.HasPrefix(strings.TrimSpace(line), "{") && strings.Contains(line, `"resourceLogs"`):
			var err error
			if rows, err = parseOTLPLine([]byte(line)); err != nil {
				bad(err.Error())
				continue
			}
		default:
			continue
		}
		for _, row := range rows {
			// Each computer's log is its own chain, though every one
			// may keep it at the same path.
			key := row.host + "\x00" + row.id
			st := logs[key]
			if st == nil {
				st = &streamState{rep: StreamReport{Host: row.host, ID: row.id}, rows: map[int64]streamEntry{}}
				logs[key] = st
			}
			st.add(row.r)
		}
	}
	if err := sc.Err(); err != nil {
		return res, fmt.Errorf("reading the stream: %w", err)
	}
	for _, st := range logs {
		st.finish()
		res.Logs = append(res.Logs, st.rep)
	}
	slices.SortFunc(res.Logs, func(a, b StreamReport) int {
		return cmp.Or(strings.Compare(a.Host, b.Host), strings.Compare(a.ID, b.ID))
	})
	return res, nil
}

type streamRow struct {
	host, id string
	r        record
}

func (st *streamState) breakAt(seq int64, why string) {
	if st.rep.Broken == nil || seq < st.rep.Broken.Seq {
		st.rep.Broken = &TamperedError{Seq: seq, Why: why}
	}
}

func (st *streamState) add(r record) {
	var e streamEntry
	h, err1 := hex.DecodeString(r.hash)
	p, err2 := hex.DecodeString(r.prevHash)
	if err1 != nil || err2 != nil || len(h) != 32 || len(p) != 32 {
		st.breakAt(r.seq, "its hash is not 64 hex digits")
		return
	}
	copy(e.hash[:], h)
	copy(e.prev[:], p)
	if have, seen := st.rows[r.seq]; seen {
		if have != e {
			st.breakAt(r.seq, "it was received twice with different hashes: one of them was forged")
		} else {
			st.rep.Duplicates++
		}
		return
	}
	if r.sum() != r.hash {
		st.breakAt(r.seq, "its contents do not match its hash: it was changed after Reins wrote it")
	}
	if st.rep.Rows == 0 {
		st.rep.First, st.rep.Last = r.seq, r.seq
	}
	if r.seq < st.rep.Last {
		st.rep.Reordered++
		if st.rep.FirstReordered == 0 {
			st.rep.FirstReordered = r.seq
		}
	}
	st.rep.First, st.rep.Last = min(st.rep.First, r.seq), max(st.rep.Last, r.seq)
	st.rep.Rows++
	st.rows[r.seq] = e
	if before, ok := st.rows[r.seq-1]; ok && before.hash != e.prev {
		st.breakAt(r.seq, fmt.Sprintf("it does not follow row %d", r.seq-1))
	}
	if after, ok := st.rows[r.seq+1]; ok && after.prev != e.hash {
		st.breakAt(r.seq+1, fmt.Sprintf("it does not follow row %d", r.seq))
	}
	if r.seq == 1 && r.prevHash != zeroHash {
		st.breakAt(1, "the first row does not start the chain")
	}
}

func (st *streamState) finish() {
	var gap *SeqRange
	for s := st.rep.First; s <= st.rep.Last && st.rep.Rows > 0; s++ {
		if _, ok := st.rows[s]; ok {
			gap = nil
			continue
		}
		if gap == nil {
			st.rep.Gaps = append(st.rep.Gaps, SeqRange{s, s})
			gap = &st.rep.Gaps[len(st.rep.Gaps)-1]
		}
		gap.Last = s
	}
	st.rows = nil
}

// otlpValue is an attribute value as OTLP JSON writers spell it: an int64
// as a string or a number.
type otlpValue struct {
	StringValue *string         `json:"stringValue"`
	IntValue    json.RawMessage `json:"intValue"`
}

// parseOTLPLine reads the rows in one ExportLogsServiceRequest.
func parseOTLPLine(line []byte) ([]streamRow, error) {
	type kv struct {
		Key   string    `json:"key"`
		Value otlpValue `json:"value"`
	}
	var req struct {
		ResourceLogs []struct {
			Resource struct {
				Attributes []kv `json:"attributes"`
			} `json:"resource"`
			ScopeLogs []struct {
				LogRecords []struct {
					Attributes []kv `json:"attributes"`
				} `json:"logRecords"`
			} `json:"scopeLogs"`
		} `json:"resourceLogs"`
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&req); err != nil {
		return nil, fmt.Errorf("it is not OTLP JSON: %v", err)
	}
	var out []streamRow
	for _, rl := range req.ResourceLogs {
		host, id, hasID := "", "", false
		for _, a := range rl.Resource.Attributes {
			switch {
			case a.Value.StringValue == nil:
			case a.Key == OTLPAttrPrefix+"db":
				id, hasID = *a.Value.StringValue, true
			case a.Key == "host.name":
				host = *a.Value.StringValue
			}
		}
		for _, sl := range rl.ScopeLogs {
			for _, lr := range sl.LogRecords {
				b := newRowBuilder()
				ours := false
				for _, a := range lr.Attributes {
					name, ok := strings.CutPrefix(a.Key, OTLPAttrPrefix)
					if !ok {
						continue
					}
					ours = true
					var err error
					switch {
					case len(a.Value.IntValue) > 0:
						var n int64
						n, err = strconv.ParseInt(strings.Trim(string(a.Value.IntValue), `"`), 10, 64)
						if err == nil {
							err = b.setNum(name, n)
						}
					case a.Value.StringValue != nil:
						err = b.setText(name, *a.Value.StringValue)
					default:
						err = b.setText(name, "") // a writer may leave out an empty string
					}
					if err != nil {
						return nil, err
					}
				}
				if !ours {
					continue
				}
				if !hasID {
					return nil, fmt.Errorf("its resource lacks %sdb", OTLPAttrPrefix)
				}
				rec, err := b.record()
				if err != nil {
					return nil, err
				}
				out = append(out, streamRow{host: host, id: id, r: rec})
			}
		}
	}
	return out, nil
}
