package audit

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reins-app/reins/audit/audittest"
	"github.com/reins-app/reins/vocab"
)

// otlpServer is a collector stand-in that appends each request's body as
// a line to a file, answering status for the first fail requests.
func otlpServer(t *testing.T, fail int, status int) (*httptest.Server, string, *atomic.Int32) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "otlp.jsonl")
	var mu sync.Mutex
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		body, _ := io.ReadAll(r.Body)
		if r.Header.Get("Content-Type") != "application/json" || r.URL.Path != "/v1/logs" || r.Header.Get("X-Api-Key") != "k" {
			http.Error(w, "wrong request", http.StatusBadRequest)
			return
		}
		if int(n) <= fail {
			http.Error(w, "busy", status)
			return
		}
		mu.Lock()
		f, _ := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		f.Write(append(body, '\n'))
		f.Close()
		mu.Unlock()
		w.Write([]byte(`{"partialSuccess":{}}`))
	}))
	t.Cleanup(srv.Close)
	return srv, file, &calls
}

func TestRowsReachACollectorAsOTLPJSONAndAreAcknowledged(t *testing.T) {
	srv, file, calls := otlpServer(t, 2, http.StatusServiceUnavailable)
	path := testPath(t)
	l := openAnchored(t, path, AnchorOptions{SystemLog: "off", OTLP: &OTLPOptions{URL: srv.URL + "/v1/logs", Headers: map[string]string{"X-Api-Key": "k"}}})
	fillHostile(t, l, 30)
	head := l.headSeq()
	rep := waitStream(t, file, path, head, 30*time.Second)
	if !rep.OK() || rep.Rows != int(head) {
		t.Fatalf("%+v", rep)
	}
	b, _ := os.ReadFile(file)
	if strings.Contains(string(b), "hunter2") {
		t.Fatal("the secret typed text reached the collector")
	}
	var req otlpRequest
	for _, line := range strings.Split(string(b), "\n") {
		if err := json.Unmarshal([]byte(line), &req); err == nil && len(req.ResourceLogs) > 0 {
			break
		}
	}
	rec := req.ResourceLogs[0].ScopeLogs[0].LogRecords[0]
	if rec.TimeUnixNano == "" || rec.Attributes[0].Key != "reins.audit.seq" || rec.Attributes[0].Value.IntValue == "" {
		t.Fatalf("first record %+v", rec)
	}
	testenvWait(t, "the acknowledged mark", func() bool {
		c := l.Anchor().Copies[0]
		return c.Seq == head && c.Acknowledged && c.Err == nil
	})
	t.Logf("%d requests, 2 answered 503; %d rows, every one acknowledged", calls.Load(), head)
}

// A collector that refuses a request (400) is not given up on: an audit
// row is never dropped, and the person is told why.
func TestACollectorThatRefusesRowsIsToldAndRetried(t *testing.T) {
	srv, file, _ := otlpServer(t, 1, http.StatusBadRequest)
	path := testPath(t)
	l := openAnchored(t, path, AnchorOptions{SystemLog: "off", OTLP: &OTLPOptions{URL: srv.URL + "/v1/logs", Headers: map[string]string{"X-Api-Key": "k"}, Required: true}})
	// The first request (the check that it answers) is refused.
	_, err := l.Commit(context.Background(), approve(vocab.Act{Kind: vocab.Click}, tab), Landing{X: 1, Y: 1, Scale: 1})
	if !errors.Is(err, ErrAnchorUnreachable) || !strings.Contains(err.Error(), "refused the rows (400") {
		t.Fatalf("Commit = %v", err)
	}
	testenvWait(t, "the collector taking rows", func() bool { return l.AnchorReady() == nil })
	fill(t, l, 3)
	if rep := waitStream(t, file, path, l.headSeq(), 30*time.Second); !rep.OK() {
		t.Fatalf("%+v", rep)
	}
}

func TestAnOTLPAddressThatWouldLeakIsRefused(t *testing.T) {
	l := openAnchored(t, testPath(t), AnchorOptions{SystemLog: "off", OTLP: &OTLPOptions{URL: "http://otel.example.org:4318/v1/logs", Required: true}})
	if err := l.AnchorReady(); !errors.Is(err, ErrAnchorUnreachable) || !strings.Contains(err.Error(), "unencrypted") {
		t.Fatalf("AnchorReady = %v", err)
	}
}

// The real OpenTelemetry Collector, built by its own builder: every row
// reaches it and its exporters, though it is killed mid-run and started
// again; its debug exporter shows the rows' attributes.
func TestRowsReachTheOpenTelemetryCollector(t *testing.T) {
	c := audittest.StartCollector(t, nil)
	path := testPath(t)
	l := openAnchored(t, path, AnchorOptions{SystemLog: "off", OTLP: &OTLPOptions{URL: c.URL()}})
	fillHostile(t, l, 40)
	testenvWait(t, "the first rows at the collector", func() bool { rep, _ := streamOf(t, c.SinkFile, path); return rep.Rows >= 20 })
	c.Kill()
	fillHostile(t, l, 40) // while it is away
	testenvWait(t, "the lost collector noticed", func() bool { return !l.Anchor().Anchored })
	c.Restart(t)
	fillHostile(t, l, 40)
	head := l.headSeq()
	rep := waitStream(t, c.SinkFile, path, head, time.Minute)
	if !rep.OK() || rep.Rows != int(head) {
		t.Fatalf("the collector's stream: %+v", rep)
	}
	last := l.Anchor()
	if out := c.Output(); !strings.Contains(out, "reins.audit.hash") || !strings.Contains(out, "reins.audit.db") {
		t.Fatalf("the debug exporter does not show the rows' attributes:\n%.3000s", out)
	}
	b, _ := os.ReadFile(c.SinkFile)
	if strings.Contains(string(b), "hunter2") || strings.Contains(c.Output(), "hunter2") {
		t.Fatal("the secret typed text reached the collector")
	}
	t.Logf("%d rows through the collector, %d twice; %+v", rep.Rows, rep.Duplicates, last)
}

// A collector whose certificate is not trusted gets nothing, and the
// person is told why.
func TestACollectorWithAnUntrustedCertificateGetsNothing(t *testing.T) {
	certs := audittest.NewCerts(t)
	c := audittest.StartCollector(t, &audittest.TLS{Cert: certs.ServerCert, Key: certs.ServerKey})
	path := testPath(t)
	l := openAnchored(t, path, AnchorOptions{SystemLog: "off", OTLP: &OTLPOptions{URL: c.URL(), TLS: TLSOptions{CAFile: certs.OtherCA}, Required: true}})
	mustRecord(t, l, Entry{Agent: agent, Act: vocab.Act{Kind: vocab.Read}, Target: tab, Outcome: vocab.OutcomeRead})
	_, err := l.Commit(context.Background(), approve(vocab.Act{Kind: vocab.Click}, tab), Landing{X: 1, Y: 1, Scale: 1})
	if !errors.Is(err, ErrAnchorUnreachable) || !strings.Contains(err.Error(), "not signed by") {
		t.Fatalf("Commit = %v", err)
	}
	if b, _ := os.ReadFile(c.SinkFile); len(b) > 0 {
		t.Fatalf("the collector passed on:\n%s", b)
	}
	// Trusting the right CA, the same collector gets every row.
	l2 := openAnchored(t, testPath(t), AnchorOptions{SystemLog: "off", OTLP: &OTLPOptions{URL: c.URL(), TLS: TLSOptions{CAFile: certs.CA}}})
	fill(t, l2, 2)
	if rep := waitStream(t, c.SinkFile, l2.path, l2.headSeq(), 30*time.Second); !rep.OK() {
		t.Fatalf("%+v", rep)
	}
	t.Logf("%+v", l.Anchor())
}
