package policy

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

var packaged = filepath.Join("..", "packaging", "policy")

func schema(t *testing.T) *jsonschema.Resolved {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(packaged, "reins-policy.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("the schema is not a JSON Schema: %v", err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("the schema does not resolve: %v", err)
	}
	return r
}

func instance(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// The committed example, and the example configuration profile for
// macOS, are policies Reins honours and the schema accepts, and they say
// the same.
func TestExamplesAgreeWithSchemaAndReins(t *testing.T) {
	rs := schema(t)
	example, err := os.ReadFile(filepath.Join(packaged, "policy.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := rs.Validate(instance(t, example)); err != nil {
		t.Fatalf("the schema refuses the example: %v", err)
	}
	p, err := Parse(example)
	if err != nil {
		t.Fatalf("Reins refuses the example: %v", err)
	}

	profile, err := os.ReadFile(filepath.Join(packaged, "Reins.mobileconfig"))
	if err != nil {
		t.Fatal(err)
	}
	payload := reinsPayload(t, profile)
	b, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	if err := rs.Validate(instance(t, b)); err != nil {
		t.Fatalf("the schema refuses the profile's payload: %v", err)
	}
	q, err := Parse(b)
	if err != nil {
		t.Fatalf("Reins refuses the profile's payload: %v", err)
	}
	if a, b := strings.Join(p.Lines(), "\n"), strings.Join(q.Lines(), "\n"); a != b {
		t.Fatalf("the profile and policy.json differ:\n%s\n---\n%s", a, b)
	}
	if len(p.Lines()) < 10 {
		t.Fatalf("the example shows too few of the rules:\n%s", strings.Join(p.Lines(), "\n"))
	}
}

// The schema and Reins' reading agree on the top-level keys and on what
// they refuse.
func TestSchemaAndReinsRefuseAlike(t *testing.T) {
	rs := schema(t)
	var props []string
	for k := range rs.Schema().Properties {
		props = append(props, k)
	}
	keys := slices.Clone(Keys)
	slices.Sort(props)
	slices.Sort(keys)
	if !slices.Equal(props, keys) {
		t.Fatalf("the schema's keys %v, Reins' %v", props, keys)
	}
	for _, bad := range []string{
		`{"allowOnTabs": false}`,
		`{"sites": {"nevr": []}}`,
		`{"sites": {"never": ["https://bank.example/login"]}}`,
		`{"sites": {"maxLevel": {"mail.example.com": "write"}}}`,
		`{"desktop": "full"}`,
		`{"agents": [{"program": "claude"}]}`,
		`{"agents": [{"script": "/x.js"}]}`,
		`{"maxPlanSteps": 0}`,
		`{"maxPlanSteps": 31}`,
		`{"approvalTimeoutSeconds": {"max": 3600}}`,
		`{"audit": {"syslog": {"address": "logs.example.org"}}}`,
		`{"audit": {"syslog": {"address": "a:1", "tls": {"cert": "/c.pem"}}}}`,
		`{"audit": {"otlp": {"url": "ftp://x"}}}`,
		`{"retention": {"megabytes": 5}}`,
		`{"retention": {"days": -1}}`,
		`{"heartbeatMinutes": 0}`,
		`{"allowOnTab": "no"}`,
	} {
		_, perr := Parse([]byte(bad))
		serr := rs.Validate(instance(t, []byte(bad)))
		if perr == nil || serr == nil {
			t.Errorf("%s: Reins says %v, the schema %v; both must refuse it", bad, perr, serr)
		}
	}
	for _, ok := range []string{
		`{}`,
		`{"sites": {"only": []}, "agents": []}`,
		`{"sites": {"never": ["*", "http://[::1]:8080", "*.bank.example:443"]}}`,
		`{"retention": {"days": 0, "megabytes": 0}}`,
		`{"audit": {"otlp": {"url": "http://127.0.0.1:4318/v1/logs", "headers": {"Authorization": "Bearer x"}}}}`,
	} {
		_, perr := Parse([]byte(ok))
		serr := rs.Validate(instance(t, []byte(ok)))
		if perr != nil || serr != nil {
			t.Errorf("%s: Reins says %v, the schema %v; both must accept it", ok, perr, serr)
		}
	}
}

// reinsPayload is the payload of type BundleID in a configuration
// profile, without its Payload… keys: the managed preferences it sets.
func reinsPayload(t *testing.T, profile []byte) map[string]any {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(profile))
	var root any
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the profile is not XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "plist" {
			root = plistValue(t, d, nextStart(t, d))
			break
		}
	}
	top, _ := root.(map[string]any)
	if top["PayloadType"] != "Configuration" {
		t.Fatalf("the profile is not a Configuration: %v", top["PayloadType"])
	}
	content, _ := top["PayloadContent"].([]any)
	for _, c := range content {
		m, _ := c.(map[string]any)
		if m["PayloadType"] != BundleID {
			continue
		}
		out := map[string]any{}
		for k, v := range m {
			if !strings.HasPrefix(k, "Payload") {
				out[k] = v
			}
		}
		return out
	}
	t.Fatalf("the profile has no payload of type %s", BundleID)
	return nil
}

func nextStart(t *testing.T, d *xml.Decoder) xml.StartElement {
	t.Helper()
	for {
		tok, err := d.Token()
		if err != nil {
			t.Fatalf("reading the profile: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			return se
		}
	}
}

// plistValue reads one XML property list value: dict, array, string,
// integer, true, false.
func plistValue(t *testing.T, d *xml.Decoder, se xml.StartElement) any {
	t.Helper()
	switch se.Name.Local {
	case "dict":
		m := map[string]any{}
		for {
			tok, err := d.Token()
			if err != nil {
				t.Fatal(err)
			}
			switch tok := tok.(type) {
			case xml.EndElement:
				return m
			case xml.StartElement:
				if tok.Name.Local != "key" {
					t.Fatalf("a dict holds <%s> where a key belongs", tok.Name.Local)
				}
				var k string
				if err := d.DecodeElement(&k, &tok); err != nil {
					t.Fatal(err)
				}
				m[k] = plistValue(t, d, nextStart(t, d))
			}
		}
	case "array":
		var a []any
		for {
			tok, err := d.Token()
			if err != nil {
				t.Fatal(err)
			}
			switch tok := tok.(type) {
			case xml.EndElement:
				return a
			case xml.StartElement:
				a = append(a, plistValue(t, d, tok))
			}
		}
	case "string":
		var s string
		if err := d.DecodeElement(&s, &se); err != nil {
			t.Fatal(err)
		}
		return s
	case "integer":
		var s string
		if err := d.DecodeElement(&s, &se); err != nil {
			t.Fatal(err)
		}
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return n
	case "true", "false":
		d.Skip()
		return se.Name.Local == "true"
	}
	t.Fatalf("the profile holds <%s>, which a policy does not use", se.Name.Local)
	return nil
}
