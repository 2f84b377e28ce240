package audit

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/reins-app/reins/vocab"
)

// RetentionOptions configures the log's parts; see [Options.Retention].
// It is filled from the person's settings today; an organisation's policy
// fills the same fields and wins over them.
type RetentionOptions struct {
	// PartRows seals the live part once it holds this many rows; default
	// 100,000.
	PartRows int // optional
	// PartAge seals the live part once its first row is this old, so that
	// MaxAge can remove it in time; default 30 days.
	PartAge time.Duration // optional
	// MaxAge removes sealed parts whose newest row is older; 0 keeps them.
	MaxAge time.Duration // optional
	// MaxBytes removes the oldest sealed parts while all parts together
	// are larger; 0 sets no limit.
	MaxBytes int64 // optional
}

// Defaults of RetentionOptions.
const (
	defaultPartRows = 100_000
	defaultPartAge  = 30 * 24 * time.Hour
)

// KindAudit is the act kind of the rows Reins writes about the log itself:
// a part sealed, a part begun, a part removed by retention. Their codes
// are CodePartSealed, CodePartBegun and CodePartRemoved, and their act
// carries the part ({"kind":"audit","part":{…}}).
const (
	KindAudit       = "audit"
	CodePartSealed  = "part_sealed"
	CodePartBegun   = "part_begun"
	CodePartRemoved = "part_removed"
)

// partNote is the act of a row about a part.
type partNote struct {
	Kind string   `json:"kind"`
	Part partInfo `json:"part"`
}

type partInfo struct {
	File  string `json:"file"`           // the sealed part's file name
	First int64  `json:"first"`          // its first row
	Last  int64  `json:"last"`           // its last row
	Hash  string `json:"hash,omitempty"` // its last row's hash
	Why   string `json:"why,omitempty"`  // why retention removed it
}

// partRecord is a row about a part, as Reins itself writes it.
func partRecord(code, detail string, p partInfo) *record {
	b, _ := json.Marshal(partNote{Kind: KindAudit, Part: p})
	return &record{
		agentName: "Reins", actKind: KindAudit, act: string(b),
		phase: PhaseRecord, outcome: vocab.OutcomeDone, code: code, detail: detail,
	}
}

// segment is one sealed part: a read-only file beside the live one.
type segment struct {
	path                string
	first, last         int64
	firstTime, lastTime string // stored times of its first and last rows
	lastHash            string
	bytes               int64

	once sync.Once
	db   *sql.DB
	err  error
}

// archivePath names the sealed part of live holding rows first to last.
func archivePath(live string, first, last int64) string {
	stem := strings.TrimSuffix(live, filepath.Ext(live))
	return fmt.Sprintf("%s-%012d-%012d%s", stem, first, last, filepath.Ext(live))
}

// findSegments lists the sealed parts beside live, oldest first.
func findSegments(live string) ([]*segment, error) {
	stem := strings.TrimSuffix(live, filepath.Ext(live))
	names, err := filepath.Glob(globEscape(stem) + "-*-*" + globEscape(filepath.Ext(live)))
	if err != nil {
		return nil, err
	}
	var out []*segment
	for _, name := range names {
		mid := strings.TrimSuffix(strings.TrimPrefix(name, stem+"-"), filepath.Ext(live))
		a, b, ok := strings.Cut(mid, "-")
		first, err1 := strconv.ParseInt(a, 10, 64)
		last, err2 := strconv.ParseInt(b, 10, 64)
		if !ok || err1 != nil || err2 != nil || len(a) != 12 || len(b) != 12 {
			continue
		}
		s := &segment{path: name, first: first, last: last}
		if err := s.readBounds(); err != nil {
			return nil, fmt.Errorf("the sealed part %s cannot be read: %w", filepath.Base(name), err)
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *segment) int { return int(a.first - b.first) })
	return out, nil
}

func globEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`)
	return r.Replace(s)
}

// readBounds reads the part's first and last rows' times and last hash.
func (s *segment) readBounds() error {
	fi, err := os.Stat(s.path)
	if err != nil {
		return err
	}
	s.bytes = fi.Size()
	db, err := s.open()
	if err != nil {
		return err
	}
	if err := db.QueryRow("SELECT time FROM audit_rows ORDER BY seq LIMIT 1").Scan(&s.firstTime); err != nil {
		return err
	}
	var last int64
	if err := db.QueryRow("SELECT seq, time, hash FROM audit_rows ORDER BY seq DESC LIMIT 1").Scan(&last, &s.lastTime, &s.lastHash); err != nil {
		return err
	}
	if last != s.last {
		return fmt.Errorf("its name says it ends at row %d, its rows at %d", s.last, last)
	}
	return nil
}

// open opens the part read-only, once: a sealed part never changes.
func (s *segment) open() (*sql.DB, error) {
	s.once.Do(func() {
		s.db, s.err = sql.Open("sqlite", dsn(s.path, "mode=ro&immutable=1"))
		if s.err == nil {
			s.db.SetMaxOpenConns(2)
		}
	})
	return s.db, s.err
}

func (s *segment) close() error {
	if s.db != nil {
		return s.db.Close()
	}
	return nil
}

// maintenance seals the live part and applies retention, off the path of
// every row: an append only asks it to look.
type maintenance struct {
	kickc chan struct{}
	quit  chan struct{}
	done  chan struct{}
	once  sync.Once

	mu        sync.Mutex
	liveFirst int64     // guarded by mu: the live part's first row; 0 while it has none
	liveSince time.Time // guarded by mu: that row's time
}

// startMaintenance sets l.maint and starts it.
func startMaintenance(l *Log) {
	m := &maintenance{kickc: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	m.readLive(l)
	l.maint = m
	go m.run(l)
	m.kick()
}

// readLive finds the live part's first row.
func (m *maintenance) readLive(l *Log) {
	var seq int64
	var t string
	err := l.rdb.QueryRow("SELECT seq, time FROM audit_rows ORDER BY seq LIMIT 1").Scan(&seq, &t)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.liveFirst, m.liveSince = 0, time.Time{}
	if err == nil {
		m.liveFirst = seq
		m.liveSince, _ = time.Parse(time.RFC3339Nano, t)
	}
}

// due reports whether the row seq just appended makes the live part due
// for sealing; with l.mu held.
func (m *maintenance) due(l *Log, seq int64) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.liveFirst == 0 {
		m.liveFirst, m.liveSince = seq, l.now()
	}
	return seq-m.liveFirst+1 >= int64(l.partRows()) || l.now().Sub(m.liveSince) >= l.partAge()
}

func (m *maintenance) kick() {
	select {
	case m.kickc <- struct{}{}:
	default:
	}
}

func (m *maintenance) stop() {
	m.once.Do(func() { close(m.quit) })
	<-m.done
}

// maintenanceEvery is how often retention looks at the parts' ages.
const maintenanceEvery = time.Hour

func (m *maintenance) run(l *Log) {
	defer close(m.done)
	tick := time.NewTicker(maintenanceEvery)
	defer tick.Stop()
	for {
		select {
		case <-m.quit:
			return
		case <-m.kickc:
		case <-tick.C:
		}
		ctx := context.Background()
		if err := l.sealIfDue(ctx); err != nil {
			l.logf("audit log: the live part could not be sealed (%v); rows go on being written to it", err)
		}
		if err := l.applyRetention(ctx); err != nil {
			l.logf("audit log: retention: %v", err)
		}
	}
}

func (l *Log) logf(format string, args ...any) {
	if l.anchor != nil {
		l.anchor.logf(format, args...)
	}
}

func (l *Log) partRows() int {
	if l.retention == nil || l.retention.PartRows <= 0 {
		return defaultPartRows
	}
	return l.retention.PartRows
}

func (l *Log) partAge() time.Duration {
	if l.retention == nil || l.retention.PartAge <= 0 {
		return defaultPartAge
	}
	return l.retention.PartAge
}

// sealIfDue seals the live part when it is due and no act is firing: an
// outcome row must land in the part that holds its fire row.
func (l *Log) sealIfDue(ctx context.Context) error {
	l.dbmu.Lock()
	defer l.dbmu.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed.Load() || l.head.seq == 0 || !l.maint.due(l, l.head.seq) {
		return nil
	}
	var firing int
	if err := l.rdb.QueryRowContext(ctx, `SELECT count(*) FROM audit_rows AS f WHERE f.phase = 'fire'
		AND NOT EXISTS (SELECT 1 FROM audit_rows AS o WHERE o.ref_seq = f.seq)`).Scan(&firing); err != nil {
		return err
	}
	if firing > 0 {
		return nil // the next row after its outcome asks again
	}
	return l.sealLocked(ctx)
}

// sealLocked seals the live part, with dbmu and mu held.
func (l *Log) sealLocked(ctx context.Context) error {
	l.maint.mu.Lock()
	first := l.maint.liveFirst
	l.maint.mu.Unlock()
	last := l.head.seq + 1 // the seal row's
	file := archivePath(l.path, first, last)
	seal := partRecord(CodePartSealed, fmt.Sprintf("This part of the audit log ends here, at row %d; the rows after it are in a new part, whose first row names this row's hash.", last),
		partInfo{File: filepath.Base(file), First: first, Last: last})
	if _, err := l.appendLocked(ctx, seal); err != nil {
		return err
	}
	// The file is closed whole: its write-ahead log checkpointed into it
	// and gone, so that it reads alone, read-only.
	if err := l.marks.detach(); err != nil {
		return err
	}
	if err := l.rdb.Close(); err != nil {
		return err
	}
	l.rdb = nil
	// Alone on the file now, the writer can leave write-ahead logging.
	if _, err := l.w.conn.ExecContext(ctx, "PRAGMA journal_mode=DELETE"); err != nil {
		return fmt.Errorf("closing the part: %w", err)
	}
	if err := l.closeLive(); err != nil {
		return err
	}
	if err := os.Rename(l.path, file); err != nil {
		return fmt.Errorf("sealing the part as %s: %w", filepath.Base(file), err)
	}
	for _, suffix := range []string{"-wal", "-shm", "-journal"} {
		os.Remove(l.path + suffix)
	}
	if err := os.Chmod(file, 0o400); err != nil {
		return fmt.Errorf("making the sealed part read-only: %w", err)
	}
	syncDir(filepath.Dir(file))
	s := &segment{path: file, first: first, last: last}
	if err := s.readBounds(); err != nil {
		return fmt.Errorf("reading the sealed part back: %w", err)
	}
	l.archives = append(l.archives, s)
	if err := prepareFile(l.path); err != nil {
		return err
	}
	if err := l.open(ctx, l.head); err != nil {
		return fmt.Errorf("opening the new part: %w", err)
	}
	if err := l.marks.attach(l.path); err != nil {
		return fmt.Errorf("keeping the delivery marks in the new part: %w", err)
	}
	if err := l.beginPartLocked(ctx); err != nil {
		return err
	}
	l.maint.readLive(l)
	l.logf("audit log: sealed rows %d–%d as %s", first, last, filepath.Base(file))
	return nil
}

// beginPartLocked writes the live part's first row, naming the part it
// follows; with dbmu and mu held.
func (l *Log) beginPartLocked(ctx context.Context) error {
	s := l.archives[len(l.archives)-1]
	r := partRecord(CodePartBegun, fmt.Sprintf("This part of the audit log follows the sealed part %s (rows %d–%d), whose last row's hash is %s.", filepath.Base(s.path), s.first, s.last, s.lastHash),
		partInfo{File: filepath.Base(s.path), First: s.first, Last: s.last, Hash: s.lastHash})
	_, err := l.appendLocked(ctx, r)
	return err
}

// continueAfterSeal writes the live part's first row when a part was
// sealed and Reins stopped before the new part began.
func (l *Log) continueAfterSeal(ctx context.Context) error {
	l.dbmu.Lock()
	defer l.dbmu.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.archives) == 0 || l.head.seq != l.archives[len(l.archives)-1].last {
		return nil
	}
	return l.beginPartLocked(ctx)
}

// closeLive closes the live part's connections, with dbmu held.
func (l *Log) closeLive() error {
	var errs []error
	if l.w != nil {
		errs = append(errs, l.w.close())
		l.w = nil
	}
	for _, db := range []**sql.DB{&l.rdb, &l.wdb} {
		if *db != nil {
			errs = append(errs, (*db).Close())
			*db = nil
		}
	}
	return errors.Join(errs...)
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// applyRetention removes the oldest sealed parts past MaxAge, or while
// all parts together are past MaxBytes, as long as every receiver has
// taken their rows. Each removal is a row, written before the file goes.
func (l *Log) applyRetention(ctx context.Context) error {
	r := l.retention
	if r == nil || (r.MaxAge <= 0 && r.MaxBytes <= 0) {
		return nil
	}
	l.dbmu.Lock()
	defer l.dbmu.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed.Load() {
		return nil
	}
	total := l.liveBytes()
	for _, s := range l.archives {
		total += s.bytes
	}
	now := l.now()
	for len(l.archives) > 0 {
		s := l.archives[0]
		lastTime, _ := time.Parse(time.RFC3339Nano, s.lastTime)
		var why string
		switch {
		case r.MaxAge > 0 && now.Sub(lastTime) > r.MaxAge:
			why = fmt.Sprintf("its newest row is older than %s", spokenAge(r.MaxAge))
		case r.MaxBytes > 0 && total > r.MaxBytes:
			why = fmt.Sprintf("the log's parts came to %d MB, over the %d MB kept", total>>20, r.MaxBytes>>20)
		default:
			return nil
		}
		if who := l.undelivered(s.last); who != "" {
			l.logf("audit log: the sealed part %s is due for removal (%s), but %s has not taken all its rows; it is kept until it has", filepath.Base(s.path), why, who)
			return nil
		}
		note := partRecord(CodePartRemoved, fmt.Sprintf("Retention removed the sealed part %s, rows %d–%d, because %s; its last row's hash was %s.", filepath.Base(s.path), s.first, s.last, why, s.lastHash),
			partInfo{File: filepath.Base(s.path), First: s.first, Last: s.last, Hash: s.lastHash, Why: why})
		if _, err := l.appendLocked(ctx, note); err != nil {
			return err
		}
		s.close()
		if err := os.Remove(s.path); err != nil {
			return fmt.Errorf("removing %s: %w", filepath.Base(s.path), err)
		}
		syncDir(filepath.Dir(s.path))
		total -= s.bytes
		l.archives = l.archives[1:]
		l.logf("audit log: removed the sealed part %s (rows %d–%d): %s", filepath.Base(s.path), s.first, s.last, why)
	}
	return nil
}

// undelivered names a receiver that has not taken row seq, or "".
func (l *Log) undelivered(seq int64) string {
	if l.anchor == nil {
		return ""
	}
	for _, f := range l.anchor.remotes {
		if l.marks.get(f.d.key()).Seq < seq {
			return f.d.key()
		}
	}
	return ""
}

func (l *Log) liveBytes() int64 {
	var n int64
	for _, suffix := range []string{"", "-wal"} {
		if fi, err := os.Stat(l.path + suffix); err == nil {
			n += fi.Size()
		}
	}
	return n
}

func spokenAge(d time.Duration) string {
	if d >= 24*time.Hour && d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%d days", d/(24*time.Hour))
	}
	return d.String()
}

// chainWalk checks the chain row by row across the parts, oldest first.
type chainWalk struct {
	each      func(record) error // called for each intact row; may be nil
	prev      head               // the last intact row
	n         int                // intact rows
	first     int64              // the first row held; 0 before any
	firstPrev string             // the hash it follows
	// removed holds, from the rows retention wrote, each removed part's
	// last row and its hash.
	removed map[int64]string
}

func newChainWalk(each func(record) error) *chainWalk {
	return &chainWalk{each: each, prev: head{seq: 0, hash: zeroHash}, removed: map[int64]string{}}
}

// part walks one part's rows.
func (c *chainWalk) part(ctx context.Context, q querier) error {
	rs, err := q.QueryContext(ctx, "SELECT "+columns+" FROM audit_rows ORDER BY seq")
	if err != nil {
		return fmt.Errorf("reading the audit log: %w", err)
	}
	defer rs.Close()
	for rs.Next() {
		r, err := scanRecord(rs)
		if err != nil {
			return &TamperedError{Seq: c.prev.seq + 1, Why: "it cannot be read: " + err.Error()}
		}
		if c.first == 0 && r.seq > 1 {
			// The log starts past row 1: retention must account for it.
			c.first, c.firstPrev = r.seq, r.prevHash
			c.prev = head{seq: r.seq - 1, hash: r.prevHash}
		} else if c.first == 0 {
			c.first, c.firstPrev = r.seq, r.prevHash
		}
		switch {
		case r.seq <= c.prev.seq:
			return &TamperedError{Seq: r.seq, Why: "it was inserted out of order"}
		case r.seq != c.prev.seq+1:
			return &TamperedError{Seq: c.prev.seq + 1, Why: "it is missing"}
		case r.prevHash != c.prev.hash:
			return &TamperedError{Seq: r.seq, Why: fmt.Sprintf("it does not follow row %d", c.prev.seq)}
		case r.sum() != r.hash:
			return &TamperedError{Seq: r.seq, Why: "its contents do not match its hash"}
		}
		if r.actKind == KindAudit && r.code == CodePartRemoved {
			var n partNote
			if json.Unmarshal([]byte(r.act), &n) == nil && n.Part.Last > 0 {
				c.removed[n.Part.Last] = n.Part.Hash
			}
		}
		if c.each != nil {
			if err := c.each(r); err != nil {
				return err
			}
		}
		c.prev = head{seq: r.seq, hash: r.hash}
		c.n++
	}
	if err := rs.Err(); err != nil {
		return fmt.Errorf("reading the audit log: %w", err)
	}
	return nil
}

// end checks, once every part is walked, that a log starting past row 1
// lost its first rows to retention, which said so in a row.
func (c *chainWalk) end() error {
	if c.first <= 1 {
		return nil
	}
	if h, ok := c.removed[c.first-1]; ok && h == c.firstPrev {
		return nil
	}
	var k int64 // the last row retention accounts for
	for last := range c.removed {
		if last < c.first {
			k = max(k, last)
		}
	}
	return &TamperedError{Seq: k + 1, Why: fmt.Sprintf("it is missing: the log begins at row %d, and no row says retention removed the rows before it", c.first)}
}

// RemovedBefore is the first row still held when retention removed the
// rows before it, else 0.
func (c *chainWalk) removedBefore() int64 {
	if c.first > 1 {
		return c.first
	}
	return 0
}
