package audit

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// RowSDID is the RFC 5424 SD-ID of the structured data element that
// carries a whole row: one parameter per column, named as the column.
// 32473 is the private enterprise number RFC 5612 sets aside for
// documentation; a receiver matches the whole ID.
const RowSDID = "reins@32473"

// syslogDestination is a syslog receiver over TCP, plain (RFC 6587: the
// seq and hash lines) or TLS (RFC 5425: whole rows), in octet-counted
// frames. Syslog answers nothing: delivered means handed to the network.
type syslogDestination struct {
	addr    string
	tlsOpts *TLSOptions // nil for plain TCP
	host    string      // RFC 5424 HOSTNAME
	id      string      // the log's name (db=…)
	pid     int
	dial    func(network, addr string, timeout time.Duration) (net.Conn, error)

	mu   sync.Mutex
	conn net.Conn // guarded by mu
	gone error    // guarded by mu: why the receiver closed conn
}

func newSyslogDestination(addr string, tlsOpts *TLSOptions, host, id string) *syslogDestination {
	return &syslogDestination{addr: addr, tlsOpts: tlsOpts, host: syslogName(host), id: id, pid: os.Getpid(), dial: net.DialTimeout}
}

func (d *syslogDestination) key() string {
	if d.tlsOpts != nil {
		return "syslog+tls://" + d.addr
	}
	return "syslog+tcp://" + d.addr
}

func (d *syslogDestination) whole() bool        { return d.tlsOpts != nil }
func (d *syslogDestination) acknowledged() bool { return false }

func (d *syslogDestination) open(ctx context.Context) error {
	var cfg *tls.Config
	if d.tlsOpts != nil {
		var err error
		if cfg, err = clientTLS(*d.tlsOpts, d.addr); err != nil {
			return err
		}
	}
	c, err := d.dial("tcp", d.addr, dialWait)
	if err != nil {
		return fmt.Errorf("it does not answer: %v", err)
	}
	if tc, ok := c.(*net.TCPConn); ok {
		// A receiver that vanishes without closing (power, network) is
		// noticed in seconds, not when the kernel gives up.
		tc.SetKeepAliveConfig(net.KeepAliveConfig{Enable: true, Idle: 5 * time.Second, Interval: 2 * time.Second, Count: 3})
	}
	if cfg != nil {
		tc := tls.Client(c, cfg)
		hctx, cancel := context.WithTimeout(ctx, dialWait)
		err := tc.HandshakeContext(hctx)
		cancel()
		if err != nil {
			c.Close()
			return explainTLS(err, d.tlsOpts)
		}
		c = tc
	}
	d.mu.Lock()
	d.conn, d.gone = c, nil
	d.mu.Unlock()
	// A receiver sends nothing back: a read returns only when it closes
	// the connection, which is how its loss is noticed before the next write.
	go func() {
		var b [64]byte
		for {
			if _, err := c.Read(b[:]); err != nil {
				d.mu.Lock()
				if d.conn == c {
					d.gone = fmt.Errorf("the connection was lost: %v", err)
				}
				d.mu.Unlock()
				return
			}
		}
	}()
	return nil
}

func (d *syslogDestination) broken() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.gone
}

func (d *syslogDestination) deliver(ctx context.Context, rows []record) error {
	d.mu.Lock()
	c, gone := d.conn, d.gone
	d.mu.Unlock()
	if c == nil {
		return errors.New("not connected")
	}
	if gone != nil {
		return gone
	}
	var buf bytes.Buffer
	for i := range rows {
		m := d.message(&rows[i])
		buf.WriteString(strconv.Itoa(len(m)))
		buf.WriteByte(' ')
		buf.WriteString(m)
	}
	deadline := time.Now().Add(dialWait + time.Duration(buf.Len()/(64<<10))*time.Second)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	c.SetWriteDeadline(deadline)
	if _, err := c.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("the connection was lost: %v", err)
	}
	return nil
}

func (d *syslogDestination) close() error {
	d.mu.Lock()
	c := d.conn
	d.conn = nil
	d.mu.Unlock()
	if c == nil {
		return nil
	}
	return c.Close()
}

// message is r as one RFC 5424 message: facility authpriv (10), severity
// notice (5), as the system log's lines; the row's own time; over TLS the
// whole row as structured data. The message text is always the row's
// anchor line, so that a receiver's file serves -verify -anchor too.
func (d *syslogDestination) message(r *record) string {
	sd := "-"
	if d.whole() {
		sd = rowSD(r, d.host, d.id)
	}
	return fmt.Sprintf("<%d>1 %s %s %s %d %s %s %s", 10*8+5, syslogTime(r.time), d.host, AnchorTag, d.pid, AnchorMsgID, sd,
		AnchorLine(r.seq, r.hash, r.prevHash, d.id))
}

// rfc5424Time is RFC 3339 with at most the six fraction digits RFC 5424
// allows.
const rfc5424Time = "2006-01-02T15:04:05.000000Z07:00"

// syslogTime is a row's stored time as RFC 5424 writes it; the exact one
// travels in the structured data.
func syslogTime(stored string) string {
	t, err := time.Parse(time.RFC3339Nano, stored)
	if err != nil {
		return "-"
	}
	return t.UTC().Format(rfc5424Time)
}

// syslogName is a host name as RFC 5424's HOSTNAME allows it: printable
// US-ASCII, at most 255 characters; "-" for none.
func syslogName(host string) string {
	host = strings.Map(func(r rune) rune {
		if r < 33 || r > 126 {
			return '-'
		}
		return r
	}, host)
	if len(host) > 255 {
		host = host[:255]
	}
	if host == "" {
		return "-"
	}
	return host
}

// rowSD is the structured data element that carries r whole: the
// computer (host) and the log's name on it (db), and every column. Values are escaped as RFC 5424 asks (\" \\
// \]); beside that, so that a receiver that rewrites control characters
// (rsyslog does by default) keeps the row's exact bytes, a control
// character is written \uXXXX and a byte that is not UTF-8 \xXX. A value
// read back through [unescapeSD] is the stored one.
func rowSD(r *record, host, id string) string {
	var b strings.Builder
	b.WriteString("[" + RowSDID)
	param := func(name, v string) {
		b.WriteString(" " + name + `="`)
		escapeSD(&b, v)
		b.WriteByte('"')
	}
	param("host", host)
	param("db", id)
	for _, f := range rowFields {
		if !f.present(r) {
			continue
		}
		if f.text != nil {
			param(f.name, *f.text(r))
		} else {
			param(f.name, strconv.FormatInt(*f.num(r), 10))
		}
	}
	b.WriteByte(']')
	return b.String()
}

func escapeSD(b *strings.Builder, s string) {
	for i := 0; i < len(s); {
		c, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && n <= 1:
			fmt.Fprintf(b, `\x%02x`, s[i])
		case c == '"' || c == '\\' || c == ']':
			b.WriteByte('\\')
			b.WriteRune(c)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(b, `\u%04x`, c)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
}

// parseRowSD finds the row element in a line a receiver kept and returns
// its values by name, unescaped; ok is false when the line has none.
func parseRowSD(line string) (params map[string]string, ok bool, err error) {
	i := strings.Index(line, "["+RowSDID+" ")
	if i < 0 {
		return nil, false, nil
	}
	s := line[i+len(RowSDID)+1:]
	params = map[string]string{}
	for {
		s = strings.TrimLeft(s, " ")
		if strings.HasPrefix(s, "]") {
			return params, true, nil
		}
		eq := strings.Index(s, `="`)
		if eq <= 0 || strings.ContainsAny(s[:eq], ` ]"`) {
			return nil, true, errors.New("its structured data is cut or malformed")
		}
		name := s[:eq]
		s = s[eq+2:]
		var v strings.Builder
		closed := false
		for j := 0; j < len(s); j++ {
			c := s[j]
			if c == '"' {
				s, closed = s[j+1:], true
				break
			}
			if c != '\\' || j+1 >= len(s) {
				v.WriteByte(c)
				continue
			}
			j++
			switch s[j] {
			case '"', '\\', ']':
				v.WriteByte(s[j])
			case 'u':
				if j+4 >= len(s) {
					return nil, true, errors.New("a \\u escape is cut")
				}
				n, err := strconv.ParseUint(s[j+1:j+5], 16, 16)
				if err != nil {
					return nil, true, fmt.Errorf("a \\u escape is malformed: %v", err)
				}
				v.WriteRune(rune(n))
				j += 4
			case 'x':
				if j+2 >= len(s) {
					return nil, true, errors.New("a \\x escape is cut")
				}
				n, err := strconv.ParseUint(s[j+1:j+3], 16, 8)
				if err != nil {
					return nil, true, fmt.Errorf("a \\x escape is malformed: %v", err)
				}
				v.WriteByte(byte(n))
				j += 2
			default:
				// RFC 5424 keeps a backslash before any other character.
				v.WriteByte('\\')
				v.WriteByte(s[j])
			}
		}
		if !closed {
			return nil, true, errors.New("its structured data is cut (a value has no closing quote): the receiver may limit a message's size; raise it (rsyslog: global(maxMessageSize=\"256k\"))")
		}
		if _, dup := params[name]; dup {
			return nil, true, fmt.Errorf("it names %s twice", name)
		}
		params[name] = v.String()
	}
}

// clientTLS is the TLS configuration for a receiver at addr.
func clientTLS(o TLSOptions, addr string) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: o.ServerName}
	if cfg.ServerName == "" {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			host = addr
		}
		cfg.ServerName = host
	}
	if o.CAFile != "" {
		pem, err := os.ReadFile(o.CAFile)
		if err != nil {
			return nil, fmt.Errorf("the receiver's CA file cannot be read: %v", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("the receiver's CA file %s holds no PEM certificate", o.CAFile)
		}
		cfg.RootCAs = pool
	}
	switch {
	case o.CertFile != "" && o.KeyFile != "":
		cert, err := tls.LoadX509KeyPair(o.CertFile, o.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("the client certificate cannot be used: %v", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	case o.CertFile != "" || o.KeyFile != "":
		return nil, errors.New("a client certificate needs both its certificate file and its key file")
	}
	return cfg, nil
}

// explainTLS puts the person's words on a failed handshake: nothing was
// sent to a receiver whose certificate is not trusted.
func explainTLS(err error, o *TLSOptions) error {
	var unknown x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	trust := "the system's trusted roots"
	if o.CAFile != "" {
		trust = o.CAFile
	}
	switch {
	case errors.As(err, &unknown):
		return fmt.Errorf("its certificate is not signed by %s, so nothing was sent to it (%v); check that the address is the receiver's and that the CA file is the one that signed it", trust, err)
	case errors.As(err, &host):
		return fmt.Errorf("its certificate is not for this name, so nothing was sent to it (%v); use the name the certificate carries", err)
	case errors.As(err, &invalid):
		return fmt.Errorf("its certificate cannot be trusted, so nothing was sent to it (%v)", err)
	}
	return fmt.Errorf("the TLS handshake failed, so nothing was sent to it: %v", err)
}
