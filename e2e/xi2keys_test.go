package e2e

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
)

// xi2Keys counts the key presses the X server delivers to chosen windows,
// as XInput 2 events on a connection of its own: browsers and GTK take
// their keys through XInput 2, and the server then sends no core key
// event to other clients, so a core event mask would count nothing. The
// connection speaks the few requests it needs (XIQueryVersion,
// XISelectEvents) itself: xgb reads every event as 32 bytes, and XInput 2
// key events are longer.
type xi2Keys struct {
	conn   net.Conn
	opcode byte // XInputExtension's major opcode
	done   chan struct{}
	synced chan struct{} // a reply came: the events before it are counted

	wmu sync.Mutex // guards writes

	mu   sync.Mutex
	keys map[uint32]int // by event window
}

// XInput 2 numbers (XI2proto.h).
const (
	xiQueryVersion   = 47
	xiSelectEvents   = 46
	xiKeyPress       = 2
	xiAllMasterDevs  = 1
	xGenericEvent    = 35
	xQueryExtension  = 98
	xGetInputFocus   = 43
	xConnectAccepted = 1
)

func dialXI2Keys(t *testing.T, display string) *xi2Keys {
	t.Helper()
	n, _, _ := strings.Cut(strings.TrimPrefix(display, ":"), ".")
	conn, err := net.Dial("unix", "/tmp/.X11-unix/X"+n)
	if err != nil {
		t.Fatal(err)
	}
	k := &xi2Keys{conn: conn, done: make(chan struct{}), synced: make(chan struct{}, 1), keys: map[uint32]int{}}
	le := binary.LittleEndian
	// Connection setup: little-endian, protocol 11.0, no authorization.
	if _, err := conn.Write([]byte{'l', 0, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0}); err != nil {
		t.Fatal(err)
	}
	head := make([]byte, 8)
	if _, err := io.ReadFull(conn, head); err != nil {
		t.Fatal(err)
	}
	if head[0] != xConnectAccepted {
		t.Fatalf("the X server refused the connection (status %d)", head[0])
	}
	if _, err := io.ReadFull(conn, make([]byte, int(le.Uint16(head[6:]))*4)); err != nil {
		t.Fatal(err)
	}
	reply := func() []byte {
		b := make([]byte, 32)
		if _, err := io.ReadFull(conn, b); err != nil {
			t.Fatal(err)
		}
		if b[0] != 1 {
			t.Fatalf("the X server answered %d, not a reply", b[0])
		}
		if extra := le.Uint32(b[4:]); extra > 0 {
			io.ReadFull(conn, make([]byte, extra*4))
		}
		return b
	}
	name := "XInputExtension"
	q := make([]byte, 8+(len(name)+3)/4*4)
	q[0] = xQueryExtension
	le.PutUint16(q[2:], uint16(len(q)/4))
	le.PutUint16(q[4:], uint16(len(name)))
	copy(q[8:], name)
	conn.Write(q)
	r := reply()
	if r[8] == 0 {
		t.Fatal("the X server has no XInput extension")
	}
	k.opcode = r[9]
	v := make([]byte, 8)
	v[0], v[1] = k.opcode, xiQueryVersion
	le.PutUint16(v[2:], 2)
	le.PutUint16(v[4:], 2) // 2.2
	le.PutUint16(v[6:], 2)
	conn.Write(v)
	if r := reply(); le.Uint16(r[8:]) < 2 {
		t.Fatalf("the X server speaks XInput %d.%d, not 2", le.Uint16(r[8:]), le.Uint16(r[10:]))
	}
	go k.run()
	t.Cleanup(k.stop)
	return k
}

// watch asks for win's key presses from now on.
func (k *xi2Keys) watch(win uint32) {
	le := binary.LittleEndian
	b := make([]byte, 20)
	b[0], b[1] = k.opcode, xiSelectEvents
	le.PutUint16(b[2:], 5)
	le.PutUint32(b[4:], win)
	le.PutUint16(b[8:], 1)                // one mask
	le.PutUint16(b[12:], xiAllMasterDevs) // the master devices' events
	le.PutUint16(b[14:], 1)               // one 4-byte unit of mask
	le.PutUint32(b[16:], 1<<xiKeyPress)
	k.wmu.Lock()
	k.conn.Write(b)
	k.wmu.Unlock()
}

func (k *xi2Keys) run() {
	defer close(k.done)
	le := binary.LittleEndian
	b := make([]byte, 32)
	for {
		if _, err := io.ReadFull(k.conn, b); err != nil {
			return
		}
		if b[0] == 1 { // the reply to sync's request
			io.ReadFull(k.conn, make([]byte, le.Uint32(b[4:])*4))
			k.synced <- struct{}{}
			continue
		}
		// An error (a window gone before its selection) or another event
		// is 32 bytes; a generic event carries more.
		if b[0]&0x7f != xGenericEvent {
			continue
		}
		more := make([]byte, le.Uint32(b[4:])*4)
		if _, err := io.ReadFull(k.conn, more); err != nil {
			return
		}
		if b[1] == k.opcode && le.Uint16(b[8:]) == xiKeyPress {
			k.mu.Lock()
			k.keys[le.Uint32(b[24:])]++
			k.mu.Unlock()
		}
	}
}

// sync waits until every key press the server delivered before now is
// counted: the reply to a request comes after them.
func (k *xi2Keys) sync() {
	k.wmu.Lock()
	k.conn.Write([]byte{xGetInputFocus, 0, 1, 0})
	k.wmu.Unlock()
	select {
	case <-k.synced:
	case <-k.done:
	}
}

func (k *xi2Keys) stop() {
	k.conn.Close()
	<-k.done
}

// count is how many key presses win got.
func (k *xi2Keys) count(win uint32) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.keys[win]
}

func (k *xi2Keys) String() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return fmt.Sprint(k.keys)
}
