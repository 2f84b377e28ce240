package audit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
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
var ErrAnchorUnreachable = errors.New("the remote audit receiver the person marked required does not answer, so no act may fire until it does (reads still work); check the receiver and the network, or ask the person to change the audit anchor setting")

// AnchorOptions configures the copies of each row's hash outside the
// database; see [Options.Anchor].
type AnchorOptions struct {
	// SystemLog is the system log's unix socket; "" finds the platform's
	// (/dev/log, /var/run/syslog, /var/run/log), "off" writes none.
	SystemLog string // optional
	// Remote is host:port of a syslog receiver that takes RFC 5424 over
	// TCP (octet-counted frames, RFC 6587); "" for none.
	Remote string // optional
	// RemoteRequired refuses acts while Remote does not answer.
	RemoteRequired bool // optional
	// ID names this log in each line (db=…) so that a receiver collecting
	// several logs can tell them apart; default the database's path.
	ID string // optional
	// Logf reports when a copy cannot be made and when it can again.
	Logf func(format string, args ...any) // optional; default: discard

	testOnlyDial func(network, addr string, timeout time.Duration) (net.Conn, error)
}

// remoteBacklog is how many lines wait for a remote receiver that does not
// answer; older ones are dropped, and counted.
const remoteBacklog = 100_000

// dialWait bounds one attempt to reach the remote receiver.
const dialWait = 2 * time.Second

// retryEvery is how often lines waiting for an absent receiver try again
// on their own; an act, while the receiver is required, tries at once.
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

// anchor sends each committed row's line to the system log and to the
// remote receiver, off the fire path: append only queues.
type anchor struct {
	opts AnchorOptions
	logf func(string, ...any)
	host string // the RFC 5424 HOSTNAME

	local    localLog
	localErr error     // guarded by localMu: why the last local write failed, or nil
	localTry time.Time // guarded by localMu: when the system log was last looked for
	localMu  sync.Mutex

	// flushing is held by whoever dials the receiver or writes to it (the
	// run loop, an act asking ready, close), never by send: a receiver that
	// is slow to answer delays no row.
	flushing sync.Mutex

	mu      sync.Mutex
	conn    net.Conn  // guarded by mu; nil while the receiver is not connected
	lastErr error     // guarded by mu: why the receiver is not connected
	lastTry time.Time // guarded by mu: when the receiver was last dialled

	// dial reaches the receiver; a test may hold it up.
	dial func(network, addr string, timeout time.Duration) (net.Conn, error)

	qmu     sync.Mutex
	pending []string // guarded by qmu: lines not yet handed to the receiver
	dropped int      // guarded by qmu: lines lost to a full backlog

	kick chan struct{}
	quit chan struct{}
	done chan struct{}
}

// localLog is the system log, or nothing.
type localLog interface {
	Notice(string) error
	Close() error
}

func newAnchor(opts AnchorOptions) *anchor {
	a := &anchor{opts: opts, logf: opts.Logf, dial: net.DialTimeout, kick: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	if a.logf == nil {
		a.logf = func(string, ...any) {}
	}
	if opts.testOnlyDial != nil {
		a.dial = opts.testOnlyDial
	}
	if a.host, _ = os.Hostname(); a.host == "" {
		a.host = "-"
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
	}
	go a.run()
	if opts.Remote != "" {
		a.kickNow()
	}
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

// send queues one row's line. It never blocks on the network.
func (a *anchor) send(line string) {
	a.writeLocal(line)
	if a.opts.Remote == "" {
		return
	}
	a.qmu.Lock()
	if len(a.pending) >= remoteBacklog {
		a.pending = a.pending[1:]
		a.dropped++
	}
	a.pending = append(a.pending, line)
	a.qmu.Unlock()
	a.kickNow()
}

// writeLocal hands line to the system log: a datagram on a local socket,
// quick enough for the fire path. A failure is reported once, not fatal.
func (a *anchor) writeLocal(line string) {
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
	case err == nil && a.localErr != nil:
		a.logf("audit anchor: the system log takes rows' hashes again")
	}
	a.localErr = err
}

func (a *anchor) kickNow() {
	select {
	case a.kick <- struct{}{}:
	default:
	}
}

// run hands waiting lines to the receiver whenever there are some, and
// tries again every retryEvery while it does not answer.
func (a *anchor) run() {
	defer close(a.done)
	tick := time.NewTicker(retryEvery)
	defer tick.Stop()
	for {
		select {
		case <-a.quit:
			return
		case <-a.kick:
		case <-tick.C:
		}
		if a.opts.Remote == "" {
			continue
		}
		a.flush(false)
	}
}

// flush connects if need be and writes the waiting lines. A receiver
// that did not answer is dialled again only after retryEvery, unless now
// asks for a try at once (an act while it is required).
func (a *anchor) flush(now bool) error {
	a.flushing.Lock()
	defer a.flushing.Unlock()
	c, err := a.connection(now)
	if err != nil {
		return err
	}
	for {
		a.qmu.Lock()
		if len(a.pending) == 0 {
			dropped := a.dropped
			a.dropped = 0
			a.qmu.Unlock()
			if dropped > 0 {
				a.logf("audit anchor: %d rows' hashes were never sent to %s: more were waiting than Reins keeps", dropped, a.opts.Remote)
			}
			return nil
		}
		line := a.pending[0]
		a.qmu.Unlock()
		c.SetWriteDeadline(time.Now().Add(dialWait))
		if _, err := c.Write(frame(a.host, line)); err != nil {
			a.mu.Lock()
			a.lostLocked(c, err)
			err = a.lastErr
			a.mu.Unlock()
			return err
		}
		a.qmu.Lock()
		// A full backlog may have dropped it meanwhile: lines are unique.
		if len(a.pending) > 0 && a.pending[0] == line {
			a.pending = a.pending[1:]
		}
		a.qmu.Unlock()
	}
}

// connection is the receiver's connection, dialled (with no lock but
// flushing held) when there is none.
func (a *anchor) connection(now bool) (net.Conn, error) {
	a.mu.Lock()
	c, last, lastErr := a.conn, a.lastTry, a.lastErr
	a.mu.Unlock()
	if c != nil {
		return c, nil
	}
	if lastErr != nil && !now && time.Since(last) < retryEvery {
		return nil, lastErr
	}
	if lastErr != nil && now && time.Since(last) < time.Second {
		return nil, lastErr // an act a moment after a failed try learns the same
	}
	c, err := a.dial("tcp", a.opts.Remote, dialWait)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.lastTry = time.Now()
	if err != nil {
		if a.lastErr == nil {
			a.qmu.Lock()
			n := len(a.pending)
			a.qmu.Unlock()
			a.logf("audit anchor: the remote receiver %s does not answer (%v); %d rows' hashes wait for it", a.opts.Remote, err, n)
		}
		a.lastErr = fmt.Errorf("%w (%s: %v)", ErrAnchorUnreachable, a.opts.Remote, err)
		return nil, a.lastErr
	}
	if tc, ok := c.(*net.TCPConn); ok {
		// A receiver that vanishes without closing (power, network) is
		// noticed in seconds, not when the kernel gives up.
		tc.SetKeepAliveConfig(net.KeepAliveConfig{Enable: true, Idle: 5 * time.Second, Interval: 2 * time.Second, Count: 3})
	}
	if a.lastErr != nil {
		a.logf("audit anchor: the remote receiver %s answers again; sending the rows' hashes that waited", a.opts.Remote)
	}
	a.conn, a.lastErr = c, nil
	// A receiver sends nothing back: a read returns only when it closes
	// the connection, which is how its loss is noticed before the next write.
	go func() {
		var b [64]byte
		for {
			if _, err := c.Read(b[:]); err != nil {
				a.mu.Lock()
				a.lostLocked(c, err)
				a.mu.Unlock()
				return
			}
		}
	}()
	return c, nil
}

// lostLocked forgets c, if it is still the connection, because of err.
func (a *anchor) lostLocked(c net.Conn, err error) {
	c.Close()
	if a.conn != c {
		return
	}
	a.conn = nil
	a.lastErr = fmt.Errorf("%w (%s: the connection was lost: %v)", ErrAnchorUnreachable, a.opts.Remote, err)
	a.logf("audit anchor: lost the remote receiver %s (%v); rows' hashes wait for it", a.opts.Remote, err)
}

// ready returns nil unless a required receiver does not answer now; it
// tries to reach it at once when it is not connected.
func (a *anchor) ready() error {
	if !a.opts.RemoteRequired {
		return nil
	}
	if a.opts.Remote == "" {
		return fmt.Errorf("%w (the settings mark a receiver required but do not say which one can be reached)", ErrAnchorUnreachable)
	}
	a.mu.Lock()
	connected := a.conn != nil
	a.mu.Unlock()
	if connected {
		return nil
	}
	return a.flush(true)
}

// status says how each copy is doing: nil when it works or is not used.
func (a *anchor) status() (local, remote error) {
	a.localMu.Lock()
	local = a.localErr
	a.localMu.Unlock()
	a.mu.Lock()
	remote = a.lastErr
	a.mu.Unlock()
	return local, remote
}

// close sends what waits, for at most dialWait, and lets go.
func (a *anchor) close() error {
	close(a.quit)
	<-a.done
	var err error
	a.qmu.Lock()
	waiting := len(a.pending)
	a.qmu.Unlock()
	if a.opts.Remote != "" && waiting > 0 {
		if ferr := a.flush(true); ferr != nil {
			a.qmu.Lock()
			err = fmt.Errorf("audit anchor: %d rows' hashes were not sent to %s before Reins stopped: %v", len(a.pending), a.opts.Remote, ferr)
			a.qmu.Unlock()
		}
	}
	a.mu.Lock()
	if a.conn != nil {
		c := a.conn
		a.conn = nil
		c.Close()
	}
	a.mu.Unlock()
	a.localMu.Lock()
	if a.local != nil {
		a.local.Close()
		a.local = nil
	}
	a.localMu.Unlock()
	return err
}

// rfc5424Time is RFC 3339 with at most the six fraction digits RFC 5424
// allows.
const rfc5424Time = "2006-01-02T15:04:05.000000Z07:00"

// frame is one RFC 5424 message in an octet-counted frame (RFC 6587):
// facility authpriv (10), severity notice (5), as the local lines.
func frame(host, msg string) []byte {
	m := fmt.Sprintf("<%d>1 %s %s %s %d %s - %s", 10*8+5, time.Now().UTC().Format(rfc5424Time), host, AnchorTag, os.Getpid(), AnchorMsgID, msg)
	return []byte(strconv.Itoa(len(m)) + " " + m)
}

// CheckAnchor tries each copy opts names, as `reins doctor` reports them:
// local and remote are nil when that copy can be made (or is not used).
func CheckAnchor(ctx context.Context, opts AnchorOptions) (local, remote error) {
	if opts.SystemLog != "off" {
		if w, err := dialLocal(opts.SystemLog); err != nil {
			local = err
		} else {
			w.Close()
		}
	}
	if opts.Remote != "" {
		d := net.Dialer{Timeout: dialWait}
		c, err := d.DialContext(ctx, "tcp", opts.Remote)
		if err != nil {
			remote = fmt.Errorf("%s does not answer: %v", opts.Remote, err)
		} else {
			c.Close()
		}
	}
	return local, remote
}
