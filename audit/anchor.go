package audit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"time"
)

// AnchorTag is the syslog tag (RFC 5424 APP-NAME) of anchor lines, and
// AnchorMsgID their RFC 5424 MSGID.
const (
	AnchorTag   = "reins"
	AnchorMsgID = "audit"
)

// ErrAnchorUnreachable is returned by [Log.AnchorReady] and [Log.Commit]
// while a remote receiver the person marked required does not answer: no
// act may fire until it does. It does not wrap ErrWrite: nothing failed to
// be written, the act was refused.
var ErrAnchorUnreachable = errors.New("a remote audit receiver marked required does not take rows now, so no act may fire until it does (reads still work); check the receiver and the network, or ask the person to change the audit anchor setting")

// ErrUnanchored is returned by [Log.AnchorReady] and [Log.Commit] while
// an anchor is required ([AnchorOptions.RequireAnchor]) and no copy of the
// log leaves the database: the system log cannot be reached and no
// receiver answers. It wraps [ErrAnchorUnreachable].
var ErrUnanchored error = unanchoredError{}

type unanchoredError struct{}

func (unanchoredError) Error() string {
	return "no copy of the audit log leaves this computer (the system log cannot be reached and no receiver answers) and the settings require one, so no act may fire until one does (reads still work); start the system's log service or check the receiver"
}

func (unanchoredError) Unwrap() error { return ErrAnchorUnreachable }

// AnchorOptions configures the copies of each row outside the database;
// see [Options.Anchor]. It is filled from the person's settings today; an
// organisation's policy fills the same fields and wins over them.
type AnchorOptions struct {
	// SystemLog is the system log's unix socket; "" finds the platform's
	// (/dev/log, /var/run/syslog, /var/run/log), "off" writes none.
	SystemLog string // optional
	// Remote is host:port of a syslog receiver. Over plain TCP (RemoteTLS
	// nil) it gets each row's seq and hash; over TLS (RFC 5425) it gets
	// whole rows as RFC 5424 structured data. Both in octet-counted
	// frames (RFC 6587). "" for none.
	Remote string // optional
	// RemoteTLS speaks to Remote over TLS and sends whole rows.
	RemoteTLS *TLSOptions // optional
	// RemoteRequired refuses acts while Remote does not answer.
	RemoteRequired bool // optional
	// OTLP sends whole rows as OpenTelemetry log records over OTLP/HTTP
	// with JSON bodies.
	OTLP *OTLPOptions // optional
	// RequireAnchor refuses acts while no copy leaves the database at
	// all: the system log cannot be reached and no receiver answers.
	RequireAnchor bool // optional
	// ResendWindow is how many rows are sent again, before the first one
	// not yet sent, each time a syslog receiver is connected: syslog
	// acknowledges nothing, so the rows a receiver had not yet written
	// when it stopped are sent again. Default 1000.
	ResendWindow int // optional
	// ID names this log in each line (db=…) so that a receiver collecting
	// several logs can tell them apart; default the database's path.
	ID string // optional
	// Logf reports when a copy cannot be made and when it can again.
	Logf func(format string, args ...any) // optional; default: discard
	// OnChange is called, on a goroutine of the log's, when a copy starts
	// or stops taking rows: [Log.Anchor] has changed.
	OnChange func() // optional

	testOnlyDial func(network, addr string, timeout time.Duration) (net.Conn, error)
}

// TLSOptions says how to trust a receiver and how to show who sends.
type TLSOptions struct {
	// CAFile holds the PEM certificates that may sign the receiver's
	// certificate; "" trusts the system's roots.
	CAFile string // optional
	// CertFile and KeyFile are a PEM client certificate and its key, for
	// a receiver that asks who connects; both or neither.
	CertFile, KeyFile string // optional
	// ServerName is the name the receiver's certificate must carry;
	// default the host of its address.
	ServerName string // optional
}

// OTLPOptions names an OpenTelemetry collector's OTLP/HTTP logs endpoint.
type OTLPOptions struct {
	// URL is the endpoint, such as https://otel.example.org:4318/v1/logs;
	// http:// only to this computer's own addresses.
	URL string     // required
	TLS TLSOptions // optional
	// Headers are sent with every request (an API key, say).
	Headers map[string]string // optional
	// Required refuses acts while the collector does not answer.
	Required bool // optional
}

// defaultResendWindow is AnchorOptions.ResendWindow's default.
const defaultResendWindow = 1000

// dialWait bounds one attempt to reach a remote receiver.
const dialWait = 2 * time.Second

// retryEvery is how often the system log is looked for again when it was
// not found.
const retryEvery = 5 * time.Second

// AnchorLine is the message of one row's anchor: seq, its hash, the hash
// it follows, and the log it belongs to. [ReadAnchor] finds it anywhere
// in a line, whatever a receiver writes before it.
func AnchorLine(seq int64, hash, prev, id string) string {
	return fmt.Sprintf("reins-audit seq=%d hash=%s prev=%s db=%s", seq, hash, prev, lineSafe(id))
}

// lineSafe keeps an id on one line: a data folder's path may hold any
// byte but '/' and NUL, and a newline would start a line of its own.
func lineSafe(id string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '_'
		}
		return r
	}, id)
}

// anchor copies each committed row out of the database, off the fire
// path: the system log gets its line as it is committed; each remote
// destination has a forwarder that reads the rows from the database.
type anchor struct {
	opts AnchorOptions
	logf func(string, ...any)
	log  *Log

	local    localLog
	localErr error     // guarded by localMu: why the last local write failed, or nil
	localTry time.Time // guarded by localMu: when the system log was last looked for
	localSeq int64     // guarded by localMu: the newest row the system log took
	localMu  sync.Mutex

	remotes []*forwarder // the syslog receiver, then the collector

	quit chan struct{}
	done chan struct{}
}

// localLog is the system log, or nothing.
type localLog interface {
	Notice(string) error
	Close() error
}

// systemLogKey is the system log's name in audit_delivery.
const systemLogKey = "system log"

func newAnchor(l *Log, opts AnchorOptions) *anchor {
	a := &anchor{opts: opts, logf: opts.Logf, log: l, quit: make(chan struct{}), done: make(chan struct{})}
	if a.logf == nil {
		a.logf = func(string, ...any) {}
	}
	if a.opts.OnChange == nil {
		a.opts.OnChange = func() {}
	}
	if a.opts.ResendWindow <= 0 {
		a.opts.ResendWindow = defaultResendWindow
	}
	if opts.SystemLog != "off" {
		a.localTry = time.Now()
		w, err := dialLocal(opts.SystemLog)
		if err != nil {
			a.localErr = err
			a.logf("audit anchor: %v", err)
		} else {
			a.local = w
		}
		a.localSeq = l.marks.get(systemLogKey).Seq
	}
	host, _ := os.Hostname()
	if opts.Remote != "" {
		d := newSyslogDestination(opts.Remote, opts.RemoteTLS, host, opts.ID)
		if opts.testOnlyDial != nil {
			d.dial = opts.testOnlyDial
		}
		a.remotes = append(a.remotes, newForwarder(l, d, opts.RemoteRequired, a.opts.ResendWindow, a.logf, a.opts.OnChange))
	}
	if opts.OTLP != nil {
		d := newOTLPDestination(*opts.OTLP, host, opts.ID)
		a.remotes = append(a.remotes, newForwarder(l, d, opts.OTLP.Required, 0, a.logf, a.opts.OnChange))
	}
	go a.run()
	return a
}

// dialLocal opens the system log at path, or the platform's when path is "".
func dialLocal(path string) (*localWriter, error) {
	paths := []string{path}
	if path == "" {
		paths = []string{"/dev/log", "/var/run/syslog", "/var/run/log"}
	}
	var err error
	for _, p := range paths {
		for _, network := range []string{"unixgram", "unix"} {
			var c net.Conn
			if c, err = net.DialTimeout(network, p, localWait); err == nil {
				return &localWriter{conn: c}, nil
			}
		}
	}
	where := path
	if where == "" {
		where = "/dev/log, /var/run/syslog or /var/run/log"
	}
	return nil, fmt.Errorf("the system log (%s) cannot be reached (%v); audit rows are still written, but without a copy of their hashes outside the database; start the system's log service (journald, rsyslog): Reins looks for it again every few seconds", where, err)
}

// localWait bounds one write to the system log. Rows are committed while
// it is written, so a log service that stops reading must not stop them:
// past this the line is counted as lost and the row goes on.
const localWait = 50 * time.Millisecond

// localWriter writes lines to the system log's socket in the form syslog(3)
// does, each with a deadline. Lines go at notice, not info: macOS keeps
// info messages in memory only, and notice ones on disk.
type localWriter struct{ conn net.Conn }

func (w *localWriter) Notice(line string) error {
	msg := fmt.Sprintf("<%d>%s %s[%d]: %s\n", 10*8+5, time.Now().Format(time.Stamp), AnchorTag, os.Getpid(), line)
	w.conn.SetWriteDeadline(time.Now().Add(localWait))
	_, err := io.WriteString(w.conn, msg)
	return err
}

func (w *localWriter) Close() error { return w.conn.Close() }

// appended copies the committed row r: its line to the system log now,
// and a nudge to each remote destination. It never blocks on the network.
func (a *anchor) appended(r *record) {
	a.writeLocal(r.seq, AnchorLine(r.seq, r.hash, r.prevHash, a.opts.ID))
	for _, f := range a.remotes {
		f.kickNow()
	}
}

// writeLocal hands line to the system log: a datagram on a local socket,
// quick enough for the fire path. A failure is reported once, not fatal.
func (a *anchor) writeLocal(seq int64, line string) {
	a.localMu.Lock()
	defer a.localMu.Unlock()
	if a.local == nil {
		// Absent at start: look again now and then, not at every row.
		if a.opts.SystemLog == "off" || time.Since(a.localTry) < retryEvery {
			return
		}
		a.localTry = time.Now()
		w, err := dialLocal(a.opts.SystemLog)
		if err != nil {
			return
		}
		a.local = w
	}
	err := a.local.Notice(line)
	switch {
	case err != nil && a.localErr == nil:
		a.logf("audit anchor: the system log refused a row's hash (%v); rows are still written to the audit log, without that copy", err)
		go a.opts.OnChange()
	case err == nil && a.localErr != nil:
		a.logf("audit anchor: the system log takes rows' hashes again")
		go a.opts.OnChange()
	}
	a.localErr = err
	if err == nil {
		a.localSeq = seq
	}
}

// run keeps the system log's mark in the database now and then.
func (a *anchor) run() {
	defer close(a.done)
	tick := time.NewTicker(retryEvery)
	defer tick.Stop()
	for {
		select {
		case <-a.quit:
			return
		case <-tick.C:
			a.saveLocalMark()
		}
	}
}

func (a *anchor) saveLocalMark() {
	if a.opts.SystemLog == "off" {
		return
	}
	a.localMu.Lock()
	seq := a.localSeq
	a.localMu.Unlock()
	a.log.marks.set(systemLogKey, seq, false)
}

// localWorks reports whether the system log took the last row.
func (a *anchor) localWorks() bool {
	a.localMu.Lock()
	defer a.localMu.Unlock()
	return a.local != nil && a.localErr == nil
}

// ready returns nil unless a required copy cannot be made now; it tries
// to reach a required receiver at once when it is not connected.
func (a *anchor) ready() error {
	if a.opts.RemoteRequired && a.opts.Remote == "" {
		return fmt.Errorf("%w (the settings mark a receiver required but do not say which one can be reached)", ErrAnchorUnreachable)
	}
	for _, f := range a.remotes {
		if f.required {
			if err := f.ready(); err != nil {
				return err
			}
		}
	}
	if a.opts.RequireAnchor && !a.anchored() {
		return ErrUnanchored
	}
	return nil
}

// anchored reports whether some copy leaves the database now: the system
// log takes rows, or a receiver answers (tried at once if need be).
func (a *anchor) anchored() bool {
	if a.localWorks() {
		return true
	}
	for _, f := range a.remotes {
		if f.ready() == nil {
			return true
		}
	}
	return false
}

// status says how each copy is doing: nil when it works or is not used;
// remote is the first remote destination's trouble.
func (a *anchor) status() (local, remote error) {
	a.localMu.Lock()
	local = a.localErr
	a.localMu.Unlock()
	for _, f := range a.remotes {
		if err := f.status().Err; err != nil {
			return local, err
		}
	}
	return local, nil
}

// close sends what waits, for at most dialWait per destination, and lets go.
func (a *anchor) close() error {
	close(a.quit)
	<-a.done
	var errs []error
	for _, f := range a.remotes {
		errs = append(errs, f.close())
	}
	a.saveLocalMark()
	a.localMu.Lock()
	if a.local != nil {
		a.local.Close()
		a.local = nil
	}
	a.localMu.Unlock()
	return errors.Join(errs...)
}

// CheckAnchor tries each copy opts names, as `reins doctor` reports them:
// local and remote are nil when that copy can be made (or is not used);
// remote is the first remote destination's trouble.
func CheckAnchor(ctx context.Context, opts AnchorOptions) (local, remote error) {
	for _, c := range CheckCopies(ctx, opts) {
		switch {
		case c.Where == systemLogKey:
			local = c.Err
		case remote == nil:
			remote = c.Err
		}
	}
	return local, remote
}

// CheckCopies tries each copy opts names once: the system log first
// (unless off), then each receiver; Err says why one cannot be made.
func CheckCopies(ctx context.Context, opts AnchorOptions) []CopyState {
	var out []CopyState
	if opts.SystemLog != "off" {
		c := CopyState{Where: systemLogKey}
		if w, err := dialLocal(opts.SystemLog); err != nil {
			c.Err = err
		} else {
			w.Close()
		}
		out = append(out, c)
	}
	host, _ := os.Hostname()
	if opts.Remote != "" {
		out = append(out, checkDestination(ctx, newSyslogDestination(opts.Remote, opts.RemoteTLS, host, opts.ID), opts.RemoteRequired))
	}
	if opts.OTLP != nil {
		out = append(out, checkDestination(ctx, newOTLPDestination(*opts.OTLP, host, opts.ID), opts.OTLP.Required))
	}
	return out
}

func checkDestination(ctx context.Context, d destination, required bool) CopyState {
	c := CopyState{Where: d.key(), Whole: d.whole(), Required: required, Delivery: Delivery{Destination: d.key(), Acknowledged: d.acknowledged()}}
	if err := d.open(ctx); err != nil {
		c.Err, c.Why = err, err.Error()
	}
	d.close()
	return c
}

// AnchorState is where the log's copies outside the database go, and how
// far each got.
type AnchorState struct {
	Copies   []CopyState // the system log first, then each receiver
	Anchored bool        // some copy takes rows now
	Required bool        // acts are refused while Anchored is false
	Head     int64       // the newest row
}

// Anchor says where the log's copies go and how each is doing. Without
// [Options.Anchor] there are none.
func (l *Log) Anchor() AnchorState {
	st := AnchorState{Head: l.headSeq()}
	a := l.anchor
	if a == nil {
		return st
	}
	st.Required = a.opts.RequireAnchor
	if a.opts.SystemLog != "off" {
		a.localMu.Lock()
		c := CopyState{Where: systemLogKey, Err: a.localErr, Delivery: Delivery{Destination: systemLogKey, Seq: a.localSeq}}
		if a.local == nil && c.Err == nil {
			c.Err = errors.New("the system log cannot be reached")
		}
		if c.Err != nil {
			c.Why = c.Err.Error()
		}
		a.localMu.Unlock()
		c.Behind = max(st.Head-c.Seq, 0)
		st.Copies = append(st.Copies, c)
	}
	for _, f := range a.remotes {
		st.Copies = append(st.Copies, f.status())
	}
	for _, c := range st.Copies {
		st.Anchored = st.Anchored || c.Err == nil
	}
	return st
}
