// Package audittest runs a real syslog receiver for tests of the audit
// anchor: Debian's rsyslogd, started by the test in its own process group
// on a temporary folder, touching no system daemon.
package audittest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reins-app/reins/internal/testrig/testenv"
)

// Rsyslog is a running rsyslogd that takes the local syslog(3) protocol on
// Socket (imuxsock) and RFC 5424 over TCP on 127.0.0.1:Port (imtcp), and
// writes what each received to its own file.
type Rsyslog struct {
	Dir       string // its folder
	Socket    string // the unix socket standing in for /dev/log
	Port      int    // its TCP port on 127.0.0.1
	LocalLog  string // the lines that came through Socket
	RemoteLog string // the lines that came over TCP

	// TLS, when set, is how the TCP input speaks TLS (RFC 5425); its file
	// keeps each message in RFC 5424 form, structured data included.
	TLS *TLS

	cmd  *exec.Cmd
	done chan struct{}
}

// TLS configures a receiver's TLS input: rsyslog's gtls driver in mode 1.
type TLS struct {
	CA, Cert, Key string // PEM files: the CA that signs the certificates it accepts, its own certificate and key
	// ClientCert asks every client for a certificate signed by CA
	// (x509/certvalid); otherwise clients are not asked (anon).
	ClientCert bool
}

// Addr is the receiver's host:port.
func (r *Rsyslog) Addr() string { return "127.0.0.1:" + strconv.Itoa(r.Port) }

// rsyslogd finds the program: it lives in /usr/sbin, which a user's PATH
// may lack.
func rsyslogd(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("rsyslogd"); err == nil {
		return p
	}
	return testenv.NeedCommand(t, "/usr/sbin/rsyslogd")
}

// Start starts rsyslogd listening on port (0 picks a free one) and stops
// it when the test ends. Under CI a missing rsyslogd fails the test.
func Start(t testing.TB, port int) *Rsyslog {
	t.Helper()
	rsyslogd(t)
	// A short folder: a unix socket's path is limited to about 100 bytes.
	dir, err := os.MkdirTemp("", "rsyslog")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return StartIn(t, dir, port)
}

// StartTLS is Start with the TCP input speaking TLS as tls says; the
// gtls driver (Debian's rsyslog-gnutls) must be installed.
func StartTLS(t testing.TB, port int, tls TLS) *Rsyslog {
	t.Helper()
	rsyslogd(t)
	_, err := os.Stat(gtlsDriver)
	testenv.Need(t, err == nil, "rsyslog's TLS driver "+gtlsDriver+" (Debian's rsyslog-gnutls)")
	dir, err := os.MkdirTemp("", "rsyslog")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return startIn(t, dir, port, &tls)
}

// gtlsDriver is rsyslog's GnuTLS stream driver, from rsyslog-gnutls.
var gtlsDriver = "/usr/lib/" + multiarch() + "/rsyslog/lmnsd_gtls.so"

func multiarch() string {
	if m, err := filepath.Glob("/usr/lib/*-linux-gnu/rsyslog/lmnsd_ptcp.so"); err == nil && len(m) > 0 {
		return filepath.Base(filepath.Dir(filepath.Dir(m[0])))
	}
	return "x86_64-linux-gnu"
}

// Restart starts a new receiver on r's folder, socket, port and TLS,
// after Stop or Kill.
func (r *Rsyslog) Restart(t testing.TB) *Rsyslog {
	t.Helper()
	return startIn(t, r.Dir, r.Port, r.TLS)
}

// StartIn is Start on a folder the test chose (its socket is
// dir/log.sock), which it does not remove.
func StartIn(t testing.TB, dir string, port int) *Rsyslog {
	t.Helper()
	return startIn(t, dir, port, nil)
}

func startIn(t testing.TB, dir string, port int, tls *TLS) *Rsyslog {
	t.Helper()
	bin := rsyslogd(t)
	r := &Rsyslog{
		TLS:       tls,
		Dir:       dir,
		Socket:    filepath.Join(dir, "log.sock"),
		LocalLog:  filepath.Join(dir, "local.log"),
		RemoteLog: filepath.Join(dir, "remote.log"),
		Port:      port,
		done:      make(chan struct{}),
	}
	portFile := filepath.Join(dir, "port")
	os.Remove(portFile)
	os.Remove(r.Socket)
	conf := fmt.Sprintf(`global(workDirectory=%[1]q)
module(load="imuxsock" SysSock.Use="off")
module(load="imtcp")
ruleset(name="local") { action(type="omfile" file=%[2]q template="RSYSLOG_FileFormat") }
ruleset(name="remote") { action(type="omfile" file=%[3]q template="RSYSLOG_FileFormat") }
input(type="imuxsock" Socket=%[4]q Ruleset="local" RateLimit.Interval="0")
input(type="imtcp" address="127.0.0.1" port="%[5]d" listenPortFileName=%[6]q ruleset="remote")
`, dir, r.LocalLog, r.RemoteLog, r.Socket, port, portFile)
	if tls != nil {
		auth := "anon"
		if tls.ClientCert {
			auth = "x509/certvalid"
		}
		// Messages whole, up to 256 KiB (rsyslog cuts at 8 KiB by
		// default), in RFC 5424 form with their structured data.
		conf = fmt.Sprintf(`global(maxMessageSize="256k" workDirectory=%[1]q
	DefaultNetstreamDriverCAFile=%[7]q DefaultNetstreamDriverCertFile=%[8]q DefaultNetstreamDriverKeyFile=%[9]q)
module(load="imuxsock" SysSock.Use="off")
module(load="imtcp" StreamDriver.Name="gtls" StreamDriver.Mode="1" StreamDriver.AuthMode=%[10]q)
ruleset(name="local") { action(type="omfile" file=%[2]q template="RSYSLOG_FileFormat") }
ruleset(name="remote") { action(type="omfile" file=%[3]q template="RSYSLOG_SyslogProtocol23Format") }
input(type="imuxsock" Socket=%[4]q Ruleset="local" RateLimit.Interval="0")
input(type="imtcp" address="127.0.0.1" port="%[5]d" listenPortFileName=%[6]q ruleset="remote")
`, dir, r.LocalLog, r.RemoteLog, r.Socket, port, portFile, tls.CA, tls.Cert, tls.Key, auth)
	}
	confPath := filepath.Join(dir, "rsyslog.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd := exec.Command(bin, "-n", "-C", "-f", confPath, "-iNONE")
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting rsyslogd: %v", err)
	}
	r.cmd = cmd
	go func() {
		cmd.Wait()
		close(r.done)
	}()
	t.Cleanup(r.Stop)
	ok := Poll(10*time.Second, func() bool {
		if _, err := os.Stat(r.Socket); err != nil {
			return false
		}
		if port != 0 {
			// rsyslogd writes the port file only for a port it picked.
			c, err := net.DialTimeout("tcp", r.Addr(), time.Second)
			if err == nil {
				c.Close()
			}
			return err == nil
		}
		b, err := os.ReadFile(portFile)
		if err != nil || len(bytes.TrimSpace(b)) == 0 {
			return false
		}
		r.Port, err = strconv.Atoi(string(bytes.TrimSpace(b)))
		return err == nil
	})
	if !ok {
		r.Stop()
		t.Fatalf("rsyslogd did not start listening within 10 s:\n%s", out.String())
	}
	return r
}

// Stop stops the receiver by its process group and waits for it.
func (r *Rsyslog) Stop() {
	if r.cmd == nil || r.cmd.Process == nil {
		return
	}
	select {
	case <-r.done:
		return
	default:
	}
	syscall.Kill(-r.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-r.done:
	case <-time.After(10 * time.Second):
		syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL)
		<-r.done
	}
}

// Kill stops the receiver at once, as a crash or a power cut would: what
// it had read but not yet written is lost.
func (r *Rsyslog) Kill() {
	if r.cmd == nil || r.cmd.Process == nil {
		return
	}
	syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL)
	<-r.done
}

// Lines returns the lines in file that carry an anchor for id.
func Lines(file, id string) []string {
	b, _ := os.ReadFile(file)
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, "reins-audit seq=") && strings.HasSuffix(l, " db="+id) {
			out = append(out, l)
		}
	}
	return out
}

// WaitLines waits until file holds at least n anchor lines for id and
// returns them; it fails the test after 10 s.
func WaitLines(t testing.TB, file, id string, n int) []string {
	t.Helper()
	var got []string
	if !Poll(10*time.Second, func() bool { got = Lines(file, id); return len(got) >= n }) {
		t.Fatalf("%s holds %d anchor lines for %s after 10 s, want %d:\n%s", file, len(got), id, n, strings.Join(got, "\n"))
	}
	return got
}

// Poll asks done every 5 ms until it says yes or within has passed, and
// reports whether it said yes.
func Poll(within time.Duration, done func() bool) bool {
	deadline := time.Now().Add(within)
	for {
		if done() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
}
