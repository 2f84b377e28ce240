package audit

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// OTLPAttrPrefix begins the name of each log record attribute that carries
// a column of the row: "reins.audit.seq", "reins.audit.hash", ….
const OTLPAttrPrefix = "reins.audit."

// OTLPScope is the instrumentation scope of the log records.
const OTLPScope = "reins.audit"

// otlpDestination is an OpenTelemetry collector's OTLP/HTTP logs endpoint,
// sent JSON bodies: each row one log record whose attributes are the
// row's columns. A 200 answer acknowledges the rows.
type otlpDestination struct {
	opts   OTLPOptions
	host   string
	id     string
	client *http.Client
	err    error // why the options cannot be used
}

func newOTLPDestination(o OTLPOptions, host, id string) *otlpDestination {
	d := &otlpDestination{opts: o, host: host, id: id}
	u, err := url.Parse(o.URL)
	switch {
	case err != nil:
		d.err = fmt.Errorf("the collector's address %q is not a URL: %v", o.URL, err)
		return d
	case u.Scheme == "http" && !loopbackHost(u.Hostname()):
		d.err = fmt.Errorf("the collector's address %s sends rows unencrypted over the network; use https:// (http:// is only for this computer's own addresses)", o.URL)
		return d
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
		d.err = fmt.Errorf("the collector's address must be an http(s) URL such as https://otel.example.org:4318/v1/logs, not %q", o.URL)
		return d
	}
	cfg, err := clientTLS(o.TLS, u.Host)
	if err != nil {
		d.err = err
		return d
	}
	if o.TLS.ServerName == "" {
		cfg.ServerName = u.Hostname()
	}
	d.client = &http.Client{
		Timeout: 10 * time.Second,
		// Rows go only to the address the settings name: a redirect
		// elsewhere is refused, not followed.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Transport: &http.Transport{
			TLSClientConfig:     cfg,
			DialContext:         (&net.Dialer{Timeout: dialWait}).DialContext,
			TLSHandshakeTimeout: dialWait,
			MaxIdleConns:        1,
			IdleConnTimeout:     time.Minute,
			ForceAttemptHTTP2:   true,
		},
	}
	return d
}

func loopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func (d *otlpDestination) key() string        { return d.opts.URL }
func (d *otlpDestination) whole() bool        { return true }
func (d *otlpDestination) acknowledged() bool { return true }
func (d *otlpDestination) broken() error      { return nil }

func (d *otlpDestination) close() error {
	if d.client != nil {
		d.client.CloseIdleConnections()
	}
	return nil
}

// open asks the collector to take an empty request: it answers, or it does not.
func (d *otlpDestination) open(ctx context.Context) error {
	if d.err != nil {
		return d.err
	}
	return d.post(ctx, []byte(`{"resourceLogs":[]}`), 0)
}

func (d *otlpDestination) deliver(ctx context.Context, rows []record) error {
	if d.err != nil {
		return d.err
	}
	body, err := json.Marshal(d.request(rows))
	if err != nil {
		return err
	}
	return d.post(ctx, body, len(rows))
}

// post sends one request and reads the collector's answer.
func (d *otlpDestination) post(ctx context.Context, body []byte, n int) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.opts.URL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range d.opts.Headers {
		req.Header.Set(k, v)
	}
	resp, err := d.client.Do(req)
	if err != nil {
		var ce *tls.CertificateVerificationError
		if errors.As(err, &ce) {
			return explainTLS(ce.Err, &d.opts.TLS)
		}
		return fmt.Errorf("it does not answer: %v", err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	switch {
	case resp.StatusCode == http.StatusOK:
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusBadGateway ||
		resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusGatewayTimeout:
		return fmt.Errorf("it is busy (%s); the rows are sent again", resp.Status)
	default:
		// OTLP says such a request must not be retried; an audit row is
		// never dropped, so it is, slowly, and the person is told.
		return fmt.Errorf("it refused the rows (%s: %s); check the collector's address and its settings", resp.Status, oneLine(answer))
	}
	var r struct {
		PartialSuccess *struct {
			RejectedLogRecords json.Number `json:"rejectedLogRecords"`
			ErrorMessage       string      `json:"errorMessage"`
		} `json:"partialSuccess"`
	}
	if len(bytes.TrimSpace(answer)) > 0 && json.Unmarshal(answer, &r) == nil && r.PartialSuccess != nil {
		if rej, _ := r.PartialSuccess.RejectedLogRecords.Int64(); rej > 0 {
			return fmt.Errorf("it rejected %d of %d rows (%s); the rows are sent again", rej, n, oneLine([]byte(r.PartialSuccess.ErrorMessage)))
		}
	}
	return nil
}

func oneLine(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// The OTLP/JSON shapes of ExportLogsServiceRequest, as far as rows need
// them: field names in lowerCamelCase, 64-bit integers as decimal strings.
type (
	otlpRequest struct {
		ResourceLogs []otlpResourceLogs `json:"resourceLogs"`
	}
	otlpResourceLogs struct {
		Resource  otlpResource    `json:"resource"`
		ScopeLogs []otlpScopeLogs `json:"scopeLogs"`
	}
	otlpResource struct {
		Attributes []otlpKeyValue `json:"attributes"`
	}
	otlpScopeLogs struct {
		Scope      otlpScope       `json:"scope"`
		LogRecords []otlpLogRecord `json:"logRecords"`
	}
	otlpScope struct {
		Name string `json:"name"`
	}
	otlpLogRecord struct {
		TimeUnixNano         string         `json:"timeUnixNano,omitempty"`
		ObservedTimeUnixNano string         `json:"observedTimeUnixNano,omitempty"`
		SeverityNumber       int            `json:"severityNumber,omitempty"`
		SeverityText         string         `json:"severityText,omitempty"`
		Body                 *otlpAnyValue  `json:"body,omitempty"`
		Attributes           []otlpKeyValue `json:"attributes"`
	}
	otlpKeyValue struct {
		Key   string       `json:"key"`
		Value otlpAnyValue `json:"value"`
	}
	otlpAnyValue struct {
		StringValue *string `json:"stringValue,omitempty"`
		IntValue    string  `json:"intValue,omitempty"` // int64, as proto3's JSON writes it
	}
)

func otlpString(s string) otlpAnyValue { return otlpAnyValue{StringValue: &s} }

// request is rows as one ExportLogsServiceRequest. The resource names the
// log (reins.audit.db) and the computer; each record's time is the row's,
// its body the row's sentence, and its attributes every column.
func (d *otlpDestination) request(rows []record) otlpRequest {
	now := strconv.FormatInt(time.Now().UnixNano(), 10)
	recs := make([]otlpLogRecord, len(rows))
	for i := range rows {
		r := &rows[i]
		rec := otlpLogRecord{ObservedTimeUnixNano: now, SeverityNumber: 9, SeverityText: "INFO"}
		if t, err := time.Parse(time.RFC3339Nano, r.time); err == nil {
			rec.TimeUnixNano = strconv.FormatInt(t.UnixNano(), 10)
		}
		if r.outcome == "refused" || r.outcome == "denied" {
			rec.SeverityNumber, rec.SeverityText = 13, "WARN"
		}
		body := r.detail
		if body == "" {
			body = r.actKind + " " + r.outcome
		}
		b := otlpString(body)
		rec.Body = &b
		for _, f := range rowFields {
			if !f.present(r) {
				continue
			}
			kv := otlpKeyValue{Key: OTLPAttrPrefix + f.name}
			if f.text != nil {
				kv.Value = otlpString(*f.text(r))
			} else {
				kv.Value = otlpAnyValue{IntValue: strconv.FormatInt(*f.num(r), 10)}
			}
			rec.Attributes = append(rec.Attributes, kv)
		}
		recs[i] = rec
	}
	host := d.host
	if host == "" {
		host, _ = os.Hostname()
	}
	return otlpRequest{ResourceLogs: []otlpResourceLogs{{
		Resource: otlpResource{Attributes: []otlpKeyValue{
			{Key: "service.name", Value: otlpString("reins")},
			{Key: "host.name", Value: otlpString(host)},
			{Key: OTLPAttrPrefix + "db", Value: otlpString(d.id)},
		}},
		ScopeLogs: []otlpScopeLogs{{Scope: otlpScope{Name: OTLPScope}, LogRecords: recs}},
	}}}
}
