package audit

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Delivery is how far one destination outside the database has taken the
// log: every row up to Seq was delivered to it.
type Delivery struct {
	// Destination names it: "system log", "syslog+tls://host:port",
	// "syslog+tcp://host:port", or the collector's URL.
	Destination string
	Seq         int64
	// Acknowledged says the receiver answered for the rows (OTLP); false
	// means they were handed to the network (syslog), and the newest of
	// them are sent again at the next connection.
	Acknowledged bool
	Time         time.Time // when the mark last moved; zero if never
}

// marks keeps each destination's delivery mark in the database, on a
// connection of its own: a mark lost to a crash only sends rows again,
// so it is written without waiting for the disk (synchronous=NORMAL).
type marks struct {
	now func() time.Time

	mu sync.Mutex
	db *sql.DB             // guarded by mu; nil while a part is sealed
	m  map[string]Delivery // guarded by mu
}

func openMarks(ctx context.Context, path string, now func() time.Time) (*marks, error) {
	m := &marks{now: now, m: map[string]Delivery{}}
	db, err := m.openDB(path)
	if err != nil {
		return nil, err
	}
	ds, err := readMarks(ctx, db)
	if err != nil {
		db.Close()
		return nil, err
	}
	for _, d := range ds {
		m.m[d.Destination] = d
	}
	m.db = db
	return m, nil
}

func (m *marks) openDB(path string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", dsn(path, "_busy_timeout=5000&_synchronous=NORMAL"))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// detach lets go of the live part's file, keeping the marks in memory.
func (m *marks) detach() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.db == nil {
		return nil
	}
	err := m.db.Close()
	m.db = nil
	return err
}

// attach writes the marks into a new live part at path, and keeps them there.
func (m *marks) attach(path string) error {
	db, err := m.openDB(path)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.db = db
	for _, d := range m.m {
		if err := m.write(d); err != nil {
			return err
		}
	}
	return nil
}

// readMarks reads every mark; a log older than the table has none.
func readMarks(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}) ([]Delivery, error) {
	rs, err := q.QueryContext(ctx, `SELECT destination, seq, acknowledged, time FROM audit_delivery ORDER BY destination`)
	if err != nil {
		if isNoTable(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading the delivery marks: %w", err)
	}
	defer rs.Close()
	var out []Delivery
	for rs.Next() {
		var d Delivery
		var ack int64
		var t string
		if err := rs.Scan(&d.Destination, &d.Seq, &ack, &t); err != nil {
			return nil, fmt.Errorf("reading the delivery marks: %w", err)
		}
		d.Acknowledged = ack == 1
		d.Time, _ = time.Parse(time.RFC3339Nano, t)
		out = append(out, d)
	}
	return out, rs.Err()
}

func (m *marks) get(key string) Delivery {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.m[key]
}

func (m *marks) all() []Delivery {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Delivery, 0, len(m.m))
	for _, d := range m.m {
		out = append(out, d)
	}
	return out
}

// set moves key's mark to seq; a mark never moves back.
func (m *marks) set(key string, seq int64, acked bool) error {
	m.mu.Lock()
	d, ok := m.m[key]
	if ok && d.Seq >= seq && d.Acknowledged == acked {
		m.mu.Unlock()
		return nil
	}
	d = Delivery{Destination: key, Seq: max(seq, d.Seq), Acknowledged: acked, Time: m.now()}
	m.m[key] = d
	defer m.mu.Unlock()
	return m.write(d)
}

// write keeps d in the database, with mu held; while a part is sealed
// it waits in memory for attach.
func (m *marks) write(d Delivery) error {
	if m.db == nil {
		return nil
	}
	_, err := m.db.Exec(`INSERT INTO audit_delivery (destination, seq, acknowledged, time) VALUES (?, ?, ?, ?)
		ON CONFLICT (destination) DO UPDATE SET seq = max(seq, excluded.seq), acknowledged = excluded.acknowledged, time = excluded.time`,
		d.Destination, d.Seq, boolInt(d.Acknowledged), formatTime(d.Time))
	return err
}

func (m *marks) close() error { return m.detach() }

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// isNoTable reports whether err is SQLite's "no such table".
func isNoTable(err error) bool {
	return err != nil && strings.Contains(err.Error(), "no such table")
}
