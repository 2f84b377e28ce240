package hand

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reins-app/reins/internal/testrig/testenv"
)

func TestParseDisplay(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want xDisplay
	}{
		{":0", xDisplay{network: "unix", address: "/tmp/.X11-unix/X0", abstract: "@/tmp/.X11-unix/X0", number: "0"}},
		{":12.1", xDisplay{network: "unix", address: "/tmp/.X11-unix/X12", abstract: "@/tmp/.X11-unix/X12", number: "12", screen: 1}},
		{"unix:3", xDisplay{network: "unix", address: "/tmp/.X11-unix/X3", abstract: "@/tmp/.X11-unix/X3", number: "3"}},
		{"unix/:3", xDisplay{network: "unix", address: "/tmp/.X11-unix/X3", abstract: "@/tmp/.X11-unix/X3", number: "3"}},
		{"localhost:10.0", xDisplay{network: "tcp", address: "localhost:6010", host: "localhost", number: "10"}},
		{"tcp/:2", xDisplay{network: "tcp", address: "localhost:6002", host: "localhost", number: "2"}},
		{"192.0.2.7:1", xDisplay{network: "tcp", address: "192.0.2.7:6001", host: "192.0.2.7", number: "1"}},
		{"[::1]:0", xDisplay{network: "tcp", address: "[::1]:6000", host: "::1", number: "0"}},
	} {
		got, err := parseDisplay(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("parseDisplay(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "0", ":", ":x", ":0.x", "host"} {
		if got, err := parseDisplay(bad); err == nil {
			t.Errorf("parseDisplay(%q) = %+v, want an error", bad, got)
		}
	}
}

// xauthEntry encodes an Xauthority entry as the file holds it.
func xauthEntry(family uint16, address, number, name string, data []byte) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.BigEndian, family)
	for _, f := range [][]byte{[]byte(address), []byte(number), []byte(name), data} {
		binary.Write(&b, binary.BigEndian, uint16(len(f)))
		b.Write(f)
	}
	return b.Bytes()
}

func TestXAuthorityCookieChoice(t *testing.T) {
	good, other := []byte("0123456789abcdef"), []byte("fedcba9876543210")
	var file []byte
	for _, e := range [][]byte{
		xauthEntry(xAuthLocal, "otherhost", "5", xAuthCookieName, other),
		xauthEntry(xAuthLocal, "thishost", "4", xAuthCookieName, other),
		xauthEntry(xAuthLocal, "thishost", "5", "XDM-AUTHORIZATION-1", other),
		xauthEntry(xAuthLocal, "thishost", "5", xAuthCookieName, good),
		xauthEntry(xAuthWild, "", "", xAuthCookieName, other),
	} {
		file = append(file, e...)
	}
	entries, err := readXAuthority(bytes.NewReader(file))
	if err != nil || len(entries) != 5 {
		t.Fatalf("readXAuthority: %d entries, %v", len(entries), err)
	}
	local, _ := parseDisplay(":5")
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if got := cookieFor(entries, local, a, "thishost"); !bytes.Equal(got, good) {
		t.Errorf("cookie for :5 on thishost = %q, want %q", got, good)
	}
	if got := cookieFor(entries, local, a, "elsewhere"); !bytes.Equal(got, other) {
		t.Errorf("cookie for :5 elsewhere = %q, want the wildcard's %q", got, other)
	}
	if got := cookieFor(entries[:4], local, a, "elsewhere"); got != nil {
		t.Errorf("cookie for :5 elsewhere without a wildcard = %q, want none", got)
	}

	// A damaged file: the entries before the damage still count.
	entries, err = readXAuthority(bytes.NewReader(file[:len(file)-3]))
	if err == nil || len(entries) != 4 {
		t.Errorf("a cut file: %d entries, %v; want 4 and an error", len(entries), err)
	}
}

// startXvfbWithAuth runs Xvfb that accepts only clients with cookie, and
// returns its display.
func startXvfbWithAuth(t *testing.T, cookie []byte) string {
	t.Helper()
	path := testenv.NeedCommand(t, "Xvfb")
	auth := filepath.Join(t.TempDir(), "server.auth")
	if err := os.WriteFile(auth, xauthEntry(xAuthWild, "", "", xAuthCookieName, cookie), 0o600); err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(path, "-displayfd", "3", "-auth", auth, "-nolisten", "tcp", "-screen", "0", "640x480x24")
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	})
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatalf("Xvfb named no display: %v", err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("Xvfb named the display %q", line)
	}
	return ":" + strconv.Itoa(n)
}

func TestWatchHandAuthenticatesWithTheDisplaysCookie(t *testing.T) {
	cookie := []byte("reins-hand-watch") // 16 bytes, as MIT-MAGIC-COOKIE-1's are
	display := startXvfbWithAuth(t, cookie)
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	number := strings.TrimPrefix(display, ":")
	file := filepath.Join(t.TempDir(), "Xauthority")
	t.Setenv("XAUTHORITY", file)

	// No cookie for this display: the server refuses, and the watch
	// says it cannot watch.
	must(t, os.WriteFile(file, xauthEntry(xAuthLocal, host, number+"0", xAuthCookieName, cookie), 0o600))
	if w, err := Start(context.Background(), Options{Display: display}); err == nil {
		w.Close()
		t.Fatal("Start connected without the display's cookie")
	} else if !errors.Is(err, ErrNoWatch) || !strings.Contains(err.Error(), "refused") {
		t.Errorf("Start without the cookie: %v; want a refusal wrapping ErrNoWatch", err)
	}

	must(t, os.WriteFile(file, append(
		xauthEntry(xAuthLocal, host, number+"0", xAuthCookieName, []byte("not-this-display")),
		xauthEntry(xAuthLocal, host, number, xAuthCookieName, cookie)...), 0o600))
	w, err := Start(context.Background(), Options{Display: display})
	if err != nil {
		t.Fatalf("Start with the display's cookie: %v", err)
	}
	defer w.Close()
	must(t, w.Check(context.Background()))
}

// rawEvent encodes an XInput raw event: evtype from device (as source),
// with the valuators given, in order of their numbers.
func rawEvent(op byte, evtype, device, source uint16, detail, flags uint32, valuators map[int]float64) []byte {
	var nums []int
	for n := range valuators {
		nums = append(nums, n)
	}
	for i := range nums {
		for j := i + 1; j < len(nums); j++ {
			if nums[j] < nums[i] {
				nums[i], nums[j] = nums[j], nums[i]
			}
		}
	}
	mask := make([]byte, 4)
	for _, n := range nums {
		mask[n/8] |= 1 << (n % 8)
	}
	ev := make([]byte, 32, 32+4+16*len(nums))
	ev[0], ev[1] = 35, op
	le.PutUint16(ev[8:], evtype)
	le.PutUint16(ev[10:], device)
	le.PutUint32(ev[16:], detail)
	le.PutUint16(ev[20:], source)
	le.PutUint16(ev[22:], 1)
	le.PutUint32(ev[24:], flags)
	ev = append(ev, mask...)
	for range 2 { // processed, then raw
		for _, n := range nums {
			v := valuators[n]
			var b [8]byte
			whole := int32(v)
			if float64(whole) > v {
				whole--
			}
			le.PutUint32(b[:], uint32(whole))
			le.PutUint32(b[4:], uint32((v-float64(whole))*(1<<32)))
			ev = append(ev, b[:]...)
		}
	}
	le.PutUint32(ev[4:], uint32((len(ev)-32)/4))
	return ev
}

// The wheels and touchpads and tablets Xvfb's devices cannot stand in for.
func TestHandWatchReadsWheelsScrollingAndTablets(t *testing.T) {
	const op = 131
	mouse := &xiDevice{master: 2, scroll: 1<<2 | 1<<3}
	tablet := &xiDevice{master: 2, axes: [2]xiAxis{{absolute: true, min: 0, max: 32767}, {absolute: true, min: 0, max: 32767}}}
	xtest := &xiDevice{master: 2, synthetic: true}
	for _, tc := range []struct {
		name string
		evs  [][]byte
		want Kind // 0: nothing of the person's
	}{
		{"a wheel notch", [][]byte{rawEvent(op, xiRawButtonPress, 10, 10, 5, 0, nil)}, Wheel},
		{"a sideways notch", [][]byte{rawEvent(op, xiRawButtonPress, 10, 10, 7, 0, nil)}, Wheel},
		{"a smooth scroll", [][]byte{rawEvent(op, xiRawMotion, 10, 10, 0, 0, map[int]float64{3: -0.25})}, Wheel},
		{"a scroll valuator at rest", [][]byte{rawEvent(op, xiRawMotion, 10, 10, 0, 0, map[int]float64{2: 0})}, 0},
		{"XTEST's wheel", [][]byte{rawEvent(op, xiRawButtonPress, 12, 12, 4, 0, nil)}, 0},
		{"XTEST's key", [][]byte{rawEvent(op, xiRawKeyPress, 12, 12, 38, 0, nil)}, 0},
		{"XTEST's motion", [][]byte{rawEvent(op, xiRawMotion, 12, 12, 0, 0, map[int]float64{0: 500, 1: 500})}, 0},
		{"a key's repeat", [][]byte{rawEvent(op, xiRawKeyPress, 10, 10, 38, xiKeyRepeat, nil)}, 0},
		{"a master's copy", [][]byte{rawEvent(op, xiRawKeyPress, 2, 10, 38, 0, nil)}, 0},
		{"another extension's event", [][]byte{rawEvent(op+1, xiRawKeyPress, 10, 10, 38, 0, nil)}, 0},
		{"a key", [][]byte{rawEvent(op, xiRawKeyPress, 10, 10, 38, 0, nil)}, Key},
		// 32767 across a 1000-pixel screen: 33 units a pixel.
		{"a tablet's pen held still", [][]byte{
			rawEvent(op, xiRawMotion, 11, 11, 0, 0, map[int]float64{0: 16000, 1: 16000}),
			rawEvent(op, xiRawMotion, 11, 11, 0, 0, map[int]float64{0: 16066, 1: 15934}),
		}, 0},
		{"a tablet's pen moved", [][]byte{
			rawEvent(op, xiRawMotion, 11, 11, 0, 0, map[int]float64{0: 16000, 1: 16000}),
			rawEvent(op, xiRawMotion, 11, 11, 0, 0, map[int]float64{0: 16000, 1: 16200}),
		}, Motion},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWatch()
			x := &xiListener{op: op, motion: defaultMotion, wire: &xWire{screen: xScreen{width: 1000, height: 1000}}}
			x.devices = map[uint16]*xiDevice{10: mouse, 11: tablet, 12: xtest}
			x.active = map[*Watch]*xiWatched{w: {motion: map[uint16]*xiMotion{}}}
			for _, ev := range tc.evs {
				x.event(context.Background(), ev)
			}
			in, ok := w.First()
			if tc.want == 0 && ok {
				t.Errorf("saw the person's %s", in.Kind)
			}
			if tc.want != 0 && (!ok || in.Kind != tc.want) {
				t.Errorf("First = %+v, %v; want a %s", in, ok, tc.want)
			}
		})
	}
}

func TestParseDevicesReadsAxesAndScrolling(t *testing.T) {
	// An XIQueryDevice reply of one slave pointer, "pad", attached to
	// device 2, with buttons, two absolute axes and a scroll valuator.
	name := "pad"
	var dev []byte
	dev = le.AppendUint16(dev, 9) // deviceid
	dev = le.AppendUint16(dev, 3) // SlavePointer
	dev = le.AppendUint16(dev, 2) // attachment
	dev = le.AppendUint16(dev, 4) // classes
	dev = le.AppendUint16(dev, 3) // name length
	dev = append(dev, 1, 0)       // enabled
	dev = append(dev, name+"\x00"...)
	button := []byte{1, 0, 6, 0, 9, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	dev = append(dev, button...)
	valuator := func(num uint16, min, max int32) []byte {
		v := make([]byte, 44)
		le.PutUint16(v[0:], xiValuatorClass)
		le.PutUint16(v[2:], 11)
		le.PutUint16(v[4:], 9)
		le.PutUint16(v[6:], num)
		le.PutUint32(v[12:], uint32(min))
		le.PutUint32(v[20:], uint32(max))
		v[40] = xiModeAbsolute
		return v
	}
	dev = append(dev, valuator(0, 0, 1000)...)
	dev = append(dev, valuator(1, -50, 50)...)
	scroll := make([]byte, 24)
	le.PutUint16(scroll[0:], xiScrollClass)
	le.PutUint16(scroll[2:], 6)
	le.PutUint16(scroll[6:], 3)
	dev = append(dev, scroll...)
	reply := make([]byte, 32)
	reply[0] = 1
	le.PutUint32(reply[4:], uint32(len(dev)/4))
	le.PutUint16(reply[8:], 1)
	reply = append(reply, dev...)

	got, err := parseDevices(reply)
	if err != nil {
		t.Fatal(err)
	}
	want := map[uint16]*xiDevice{9: {master: 2, scroll: 1 << 3, axes: [2]xiAxis{{absolute: true, min: 0, max: 1000}, {absolute: true, min: -50, max: 50}}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseDevices = %+v, want %+v", *got[9], *want[9])
	}
	if _, err := parseDevices(reply[:len(reply)-4]); err == nil {
		t.Error("a cut reply was read without an error")
	}
}
