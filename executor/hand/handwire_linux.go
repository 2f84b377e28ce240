package hand

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The hand watch's own X connection. xgb reads every event as 32 bytes, but
// XInput 2 sends its events as GenericEvents of any length, so the watch
// speaks the few requests it needs itself, from the X11 protocol's
// encoding: the connection setup, QueryExtension, InternAtom,
// GetInputFocus and the XInput 2 requests (handxi2_linux.go).

// le is the byte order the watch asks the server for ('l' at setup).
var le = binary.LittleEndian

// xDisplay is where an X display is reached.
type xDisplay struct {
	network, address string // for net.Dial
	abstract         string // for a local display, the Linux abstract socket to try when the file is missing
	host             string // "" for a local display
	number           string // the display number, as Xauthority records it
	screen           int
}

// parseDisplay reads a DISPLAY value: [tcp/|unix/][host]:number[.screen].
// A local display is reached through its unix socket, any other over TCP
// at port 6000 + number.
func parseDisplay(s string) (xDisplay, error) {
	bad := func(why string) (xDisplay, error) {
		return xDisplay{}, fmt.Errorf("the X display %q is not of the form [host]:number[.screen]: %s", s, why)
	}
	proto := ""
	rest := s
	if p, r, ok := strings.Cut(s, "/"); ok && !strings.HasPrefix(s, "/") {
		proto, rest = p, r
	}
	colon := strings.LastIndex(rest, ":")
	if colon < 0 {
		return bad("no colon")
	}
	host, disp := rest[:colon], rest[colon+1:]
	number, screen, hasScreen := strings.Cut(disp, ".")
	if _, err := strconv.ParseUint(number, 10, 16); err != nil {
		return bad("no display number")
	}
	d := xDisplay{number: number}
	if hasScreen {
		n, err := strconv.ParseUint(screen, 10, 8)
		if err != nil {
			return bad("the screen is not a number")
		}
		d.screen = int(n)
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if host == "unix" {
		host = ""
	}
	if host == "" && proto != "tcp" && proto != "inet" && proto != "inet6" {
		path := "/tmp/.X11-unix/X" + number
		d.network, d.address, d.abstract = "unix", path, "@"+path
		return d, nil
	}
	if host == "" {
		host = "localhost"
	}
	port, _ := strconv.Atoi(number)
	d.network, d.address, d.host = "tcp", net.JoinHostPort(host, strconv.Itoa(6000+port)), host
	return d, nil
}

// dial connects to d within ctx.
func (d xDisplay) dial(ctx context.Context) (net.Conn, error) {
	var dialer net.Dialer
	c, err := dialer.DialContext(ctx, d.network, d.address)
	if err != nil && d.abstract != "" {
		if _, serr := os.Stat(d.address); serr != nil {
			if ac, aerr := dialer.DialContext(ctx, "unix", d.abstract); aerr == nil {
				return ac, nil
			}
		}
	}
	return c, err
}

// xAuthFamily values of an Xauthority entry.
const (
	xAuthInternet   = 0
	xAuthInternet6  = 6
	xAuthLocal      = 256
	xAuthWild       = 65535
	xAuthCookieName = "MIT-MAGIC-COOKIE-1"
)

// xAuthEntry is one entry of an Xauthority file.
type xAuthEntry struct {
	family  uint16
	address []byte
	number  string
	name    string
	data    []byte
}

// readXAuthority reads the entries of an Xauthority file: each is a
// big-endian family, then address, display number, protocol name and
// data, each a big-endian length and that many bytes.
func readXAuthority(r io.Reader) ([]xAuthEntry, error) {
	br := bufio.NewReader(r)
	field := func() ([]byte, error) {
		var n [2]byte
		if _, err := io.ReadFull(br, n[:]); err != nil {
			return nil, err
		}
		b := make([]byte, binary.BigEndian.Uint16(n[:]))
		_, err := io.ReadFull(br, b)
		return b, err
	}
	var out []xAuthEntry
	for {
		var fam [2]byte
		if _, err := io.ReadFull(br, fam[:]); err == io.EOF {
			return out, nil
		} else if err != nil {
			return out, err
		}
		e := xAuthEntry{family: binary.BigEndian.Uint16(fam[:])}
		var f [4][]byte
		for i := range f {
			b, err := field()
			if err != nil {
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return out, err
			}
			f[i] = b
		}
		e.address, e.number, e.name, e.data = f[0], string(f[1]), string(f[2]), f[3]
		out = append(out, e)
	}
}

// cookieFor picks the MIT-MAGIC-COOKIE-1 of the display d, reached through
// conn, from the Xauthority entries: the first whose display number is d's
// (or unset) and whose address is this host (a local display, or one over
// loopback), the peer's address, or anything.
func cookieFor(entries []xAuthEntry, d xDisplay, conn net.Conn, hostname string) []byte {
	local := d.network == "unix"
	var peer net.IP
	if a, ok := conn.RemoteAddr().(*net.TCPAddr); ok {
		peer = a.IP
		local = peer.IsLoopback()
	}
	for _, e := range entries {
		if e.name != xAuthCookieName || (e.number != "" && e.number != d.number) {
			continue
		}
		switch {
		case e.family == xAuthWild:
		case e.family == xAuthLocal && local && string(e.address) == hostname:
		case e.family == xAuthInternet && peer != nil && peer.To4() != nil && bytes.Equal(e.address, peer.To4()):
		case e.family == xAuthInternet6 && peer != nil && peer.To4() == nil && bytes.Equal(e.address, peer.To16()):
		default:
			continue
		}
		return e.data
	}
	return nil
}

// xAuthorityPath is $XAUTHORITY, or ~/.Xauthority.
func xAuthorityPath() string {
	if p := os.Getenv("XAUTHORITY"); p != "" {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".Xauthority")
}

// xScreen is what the watch needs of a screen.
type xScreen struct {
	root          uint32
	width, height uint16
}

// xWire is a minimal X client connection. Requests go out in order, each
// numbered; the server answers those that have a reply, in order, with
// events in between. One goroutine reads: replies go to their callers,
// events (and the answers to ordered calls) to sink, in stream order.
type xWire struct {
	conn   net.Conn
	screen xScreen

	wmu sync.Mutex // serialises requests, so that their numbers match the order sent
	seq uint16     // guarded by wmu: the last request's number

	pmu     sync.Mutex
	pending []*xCall // guarded by pmu: sent and unanswered, in the order sent
	dead    error    // guarded by pmu: why the connection ended

	sink func(xItem) // called on the reading goroutine
	done chan struct{}
}

// xCall is one request sent, waiting for its reply or error.
type xCall struct {
	seq   uint16
	reply bool       // the request has a reply; without one, the next answer after it means success
	ch    chan xItem // buffered 1: the answer, unless ordered is set
	// ordered, when set, makes the answer go to sink in stream order, for
	// whoever reads the sink to call ordered once everything before the
	// answer is done.
	ordered func(error)
}

// xItem is what the reader hands on: an event, the answer to a call, or
// the end of the stream.
type xItem struct {
	event []byte // an event, 32 bytes or longer
	call  *xCall // the call answered
	reply []byte // the reply, or nil with err
	err   error
	end   bool // the connection has ended; err says why
}

// xError is an X protocol error.
type xError struct {
	code         byte
	major, minor int
	value        uint32
}

func (e *xError) Error() string {
	return fmt.Sprintf("the X server refused request %d.%d (error %d, value %d)", e.major, e.minor, e.code, e.value)
}

// dialX connects to display and completes the setup, authenticating with
// the display's MIT-MAGIC-COOKIE-1 when the Xauthority file holds one.
// The reading goroutine starts at once; sink gets every event.
func dialX(ctx context.Context, display string, sink func(xItem)) (*xWire, error) {
	d, err := parseDisplay(display)
	if err != nil {
		return nil, err
	}
	conn, err := d.dial(ctx)
	if err != nil {
		return nil, fmt.Errorf("cannot connect to the X display %s: %w", display, err)
	}
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	var cookie []byte
	if p := xAuthorityPath(); p != "" {
		if f, err := os.Open(p); err == nil {
			entries, _ := readXAuthority(f) // the entries before a damaged one still count
			f.Close()
			host, _ := os.Hostname()
			cookie = cookieFor(entries, d, conn, host)
		}
	}
	scr, err := xSetup(conn, cookie, d.screen)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("the X display %s: %w", display, err)
	}
	conn.SetDeadline(time.Time{})
	w := &xWire{conn: conn, screen: scr, sink: sink, done: make(chan struct{})}
	go w.read()
	return w, nil
}

func pad4(n int) int { return (4 - n%4) % 4 }

// xSetup sends the connection setup and reads the server's answer,
// returning the given screen.
func xSetup(conn net.Conn, cookie []byte, screen int) (xScreen, error) {
	name := ""
	if cookie != nil {
		name = xAuthCookieName
	}
	req := make([]byte, 12, 12+len(name)+pad4(len(name))+len(cookie)+pad4(len(cookie)))
	req[0] = 'l'
	le.PutUint16(req[2:], 11) // protocol 11.0
	le.PutUint16(req[6:], uint16(len(name)))
	le.PutUint16(req[8:], uint16(len(cookie)))
	req = append(req, name...)
	req = append(req, make([]byte, pad4(len(name)))...)
	req = append(req, cookie...)
	req = append(req, make([]byte, pad4(len(cookie)))...)
	if _, err := conn.Write(req); err != nil {
		return xScreen{}, err
	}
	var head [8]byte
	if _, err := io.ReadFull(conn, head[:]); err != nil {
		return xScreen{}, fmt.Errorf("no answer to the connection setup: %w", err)
	}
	more := make([]byte, 4*int(le.Uint16(head[6:])))
	if _, err := io.ReadFull(conn, more); err != nil {
		return xScreen{}, fmt.Errorf("a short answer to the connection setup: %w", err)
	}
	switch head[0] {
	case 1:
	case 0:
		n := min(int(head[1]), len(more))
		return xScreen{}, fmt.Errorf("the server refused the connection: %s", strings.TrimSpace(string(more[:n])))
	default:
		return xScreen{}, fmt.Errorf("the server refused the connection: %s", strings.TrimRight(string(more), "\x00 \n"))
	}
	if len(more) < 32 {
		return xScreen{}, errors.New("a short answer to the connection setup")
	}
	vendor := int(le.Uint16(more[16:]))
	screens, formats := int(more[20]), int(more[21])
	off := 32 + vendor + pad4(vendor) + 8*formats
	for i := 0; i < screens; i++ {
		if off+40 > len(more) {
			break
		}
		s := xScreen{root: le.Uint32(more[off:]), width: le.Uint16(more[off+20:]), height: le.Uint16(more[off+22:])}
		if i == screen {
			return s, nil
		}
		depths := int(more[off+39])
		off += 40
		for range depths {
			if off+8 > len(more) {
				break
			}
			off += 8 + 24*int(le.Uint16(more[off+2:]))
		}
	}
	return xScreen{}, fmt.Errorf("the display has no screen %d", screen)
}

// read reads the stream until it ends, then fails every call still waiting.
func (w *xWire) read() {
	br := bufio.NewReaderSize(w.conn, 16<<10)
	err := w.readLoop(br)
	w.pmu.Lock()
	w.dead = err
	calls := w.pending
	w.pending = nil
	w.pmu.Unlock()
	for _, c := range calls {
		w.answer(c, xItem{call: c, err: err})
	}
	w.sink(xItem{end: true, err: err})
	close(w.done)
}

func (w *xWire) readLoop(br *bufio.Reader) error {
	for {
		head := make([]byte, 32)
		if _, err := io.ReadFull(br, head); err != nil {
			return fmt.Errorf("the connection to the X display ended: %w", err)
		}
		switch code := head[0] & 0x7f; {
		case code == 0: // an error
			e := &xError{code: head[1], value: le.Uint32(head[4:]), minor: int(le.Uint16(head[8:])), major: int(head[10])}
			w.answered(le.Uint16(head[2:]), nil, e)
		case code == 1: // a reply
			body := head
			if n := int(le.Uint32(head[4:])); n > 0 {
				body = make([]byte, 32+4*n)
				copy(body, head)
				if _, err := io.ReadFull(br, body[32:]); err != nil {
					return fmt.Errorf("the connection to the X display ended: %w", err)
				}
			}
			w.answered(le.Uint16(head[2:]), body, nil)
		case code == 35: // a GenericEvent: 32 bytes and its length more
			ev := head
			if n := int(le.Uint32(head[4:])); n > 0 {
				ev = make([]byte, 32+4*n)
				copy(ev, head)
				if _, err := io.ReadFull(br, ev[32:]); err != nil {
					return fmt.Errorf("the connection to the X display ended: %w", err)
				}
			}
			w.sink(xItem{event: ev})
		default:
			// A core event, which every client may get unasked
			// (MappingNotify): nothing the watch needs.
		}
	}
}

// answered hands the reply or error numbered seq to its call. Calls sent
// before it have been answered too: the server answers in order, so one
// without a reply has succeeded, and one with a reply will get none.
func (w *xWire) answered(seq uint16, reply []byte, err error) {
	w.pmu.Lock()
	var done []*xCall
	var call *xCall
	for len(w.pending) > 0 {
		c := w.pending[0]
		if c.seq == seq {
			call = c
			w.pending = w.pending[1:]
			break
		}
		if int16(seq-c.seq) < 0 {
			break // a later call's number: this answer belongs to no call waiting
		}
		w.pending = w.pending[1:]
		done = append(done, c)
	}
	w.pmu.Unlock()
	for _, c := range done {
		it := xItem{call: c}
		if c.reply {
			it.err = fmt.Errorf("the X server skipped the reply to request %d", c.seq)
		}
		w.answer(c, it)
	}
	if call != nil {
		w.answer(call, xItem{call: call, reply: reply, err: err})
	}
}

func (w *xWire) answer(c *xCall, it xItem) {
	if c.ordered != nil {
		w.sink(it)
		return
	}
	c.ch <- it
}

// send sends one request. A call with reply set is answered by its reply
// or error; one without, by an error or the next answer after it. Its
// answer goes to the returned call's channel, or with ordered set, to sink.
func (w *xWire) send(req []byte, reply bool, ordered func(error)) (*xCall, error) {
	if len(req)%4 != 0 || len(req)/4 > 0xffff {
		return nil, fmt.Errorf("a request of %d bytes cannot be sent", len(req))
	}
	le.PutUint16(req[2:], uint16(len(req)/4))
	c := &xCall{reply: reply, ordered: ordered}
	if ordered == nil {
		c.ch = make(chan xItem, 1)
	}
	w.wmu.Lock()
	defer w.wmu.Unlock()
	w.pmu.Lock()
	if w.dead != nil {
		err := w.dead
		w.pmu.Unlock()
		return nil, err
	}
	w.seq++
	c.seq = w.seq
	w.pending = append(w.pending, c)
	w.pmu.Unlock()
	// A failed write closes the connection, and the reader, seeing it
	// end, fails the call.
	if _, err := w.conn.Write(req); err != nil {
		w.conn.Close()
	}
	return c, nil
}

// wait waits for c's answer.
func (w *xWire) wait(ctx context.Context, c *xCall) ([]byte, error) {
	select {
	case it := <-c.ch:
		return it.reply, it.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// call sends a request with a reply and waits for it.
func (w *xWire) call(ctx context.Context, req []byte) ([]byte, error) {
	c, err := w.send(req, true, nil)
	if err != nil {
		return nil, err
	}
	return w.wait(ctx, c)
}

// close closes the connection and waits for the reader to finish.
func (w *xWire) close() error {
	err := w.conn.Close()
	<-w.done
	return err
}

// Core requests.

// queryExtensionReq asks whether the server has the extension name.
func queryExtensionReq(name string) []byte {
	req := make([]byte, 8+len(name)+pad4(len(name)))
	req[0] = 98
	le.PutUint16(req[4:], uint16(len(name)))
	copy(req[8:], name)
	return req
}

// internAtomReq asks for the atom of name; with onlyIfExists it is None
// when nobody has made it.
func internAtomReq(name string, onlyIfExists bool) []byte {
	req := make([]byte, 8+len(name)+pad4(len(name)))
	req[0] = 16
	if onlyIfExists {
		req[1] = 1
	}
	le.PutUint16(req[4:], uint16(len(name)))
	copy(req[8:], name)
	return req
}

// getInputFocusReq is the cheapest request with a reply: the watch sends
// it to know the server has got as far as the request.
func getInputFocusReq() []byte { return []byte{43, 0, 1, 0} }
