package audittest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/reins-app/reins/internal/testrig/testenv"
)

// CollectorEnv names the OpenTelemetry Collector binary the tests run,
// built by the collector's own builder from tools/otelcol (make
// otelcol); the tests skip without it, and fail under CI.
const CollectorEnv = "REINS_OTELCOL"

// Collector is a running OpenTelemetry Collector with the OTLP receiver
// on 127.0.0.1:Port (HTTP), sending what it receives to the debug
// exporter (its stderr) and, as OTLP JSON, to a sink in the test that
// appends each request to SinkFile as one line: the organisation's
// stream of forwarded rows.
type Collector struct {
	Port     int
	SinkFile string
	// TLS, when set, makes the receiver speak HTTPS with this
	// certificate.
	TLS *TLS

	dir  string
	bin  string
	sink *Sink
	cmd  *exec.Cmd
	done chan struct{}
	mu   sync.Mutex
	out  bytes.Buffer // guarded by mu: its stderr and stdout
}

// URL is the receiver's logs endpoint.
func (c *Collector) URL() string {
	scheme := "http"
	if c.TLS != nil {
		scheme = "https"
	}
	return fmt.Sprintf("%s://127.0.0.1:%d/v1/logs", scheme, c.Port)
}

// Output is what the collector has written so far: the debug exporter's
// account of each record among it.
func (c *Collector) Output() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out.String()
}

func (c *Collector) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out.Write(p)
}

// StartCollector starts the collector on a free port, and stops it when
// the test ends.
func StartCollector(t testing.TB, tls *TLS) *Collector {
	t.Helper()
	bin := os.Getenv(CollectorEnv)
	_, err := os.Stat(bin)
	testenv.Need(t, bin != "" && err == nil, "an OpenTelemetry Collector built by make otelcol ($"+CollectorEnv+")")
	c := &Collector{bin: bin, dir: t.TempDir(), TLS: tls, Port: freePort(t)}
	c.sink = startSink(t, filepath.Join(c.dir, "sink.jsonl"))
	c.SinkFile = c.sink.file
	c.start(t)
	return c
}

func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// Restart starts the collector again on its port, after Kill.
func (c *Collector) Restart(t testing.TB) {
	t.Helper()
	c.start(t)
}

func (c *Collector) start(t testing.TB) {
	t.Helper()
	tlsConf := ""
	if c.TLS != nil {
		tlsConf = fmt.Sprintf("\n        tls:\n          cert_file: %q\n          key_file: %q", c.TLS.Cert, c.TLS.Key)
	}
	conf := fmt.Sprintf(`receivers:
  otlp:
    protocols:
      http:
        endpoint: "127.0.0.1:%d"%s
exporters:
  debug:
    verbosity: detailed
  otlphttp:
    logs_endpoint: %q
    encoding: json
    compression: none
    sending_queue:
      enabled: false
    retry_on_failure:
      enabled: false
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    logs:
      receivers: [otlp]
      exporters: [debug, otlphttp]
`, c.Port, tlsConf, c.sink.url)
	path := filepath.Join(c.dir, "config.yaml")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	c.out.Reset()
	c.mu.Unlock()
	cmd := exec.Command(c.bin, "--config", path)
	cmd.Stdout, cmd.Stderr = c, c
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the collector: %v", err)
	}
	c.cmd, c.done = cmd, make(chan struct{})
	done := c.done
	go func() {
		cmd.Wait()
		close(done)
	}()
	t.Cleanup(c.Kill)
	if !Poll(60*time.Second, func() bool {
		select {
		case <-done:
			return true
		default:
		}
		return strings.Contains(c.Output(), "Everything is ready")
	}) || !strings.Contains(c.Output(), "Everything is ready") {
		c.Kill()
		t.Fatalf("the collector did not start within 60 s:\n%s", c.Output())
	}
}

// Kill stops the collector at once, as a crash would.
func (c *Collector) Kill() {
	if c.cmd == nil || c.cmd.Process == nil {
		return
	}
	select {
	case <-c.done:
		return
	default:
	}
	syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
	<-c.done
}

// Sink takes OTLP/HTTP JSON requests and appends each to a file, one line
// each, as a collector's file exporter would write them.
type Sink struct {
	file string
	url  string
	mu   sync.Mutex
}

func startSink(t testing.TB, file string) *Sink {
	t.Helper()
	s := &Sink{file: file}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.url = "http://" + ln.Addr().String() + "/v1/logs"
	srv := &http.Server{Handler: s}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return s
}

func (s *Sink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	var line bytes.Buffer
	if err == nil {
		err = json.Compact(&line, body)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	line.WriteByte('\n')
	s.mu.Lock()
	f, err := os.OpenFile(s.file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err == nil {
		_, err = f.Write(line.Bytes())
		err = errors.Join(err, f.Sync(), f.Close())
	}
	s.mu.Unlock()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte("{}"))
}
