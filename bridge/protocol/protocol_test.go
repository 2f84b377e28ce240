package protocol_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/reins-app/reins/bridge/protocol"
)

// sized returns a valid event of exactly n bytes, padding a string param, so
// the size limit can be probed on both sides of its edge.
func sized(t testing.TB, n int) []byte {
	t.Helper()
	const head, tail = `{"method":"zoom","params":{"pad":"`, `"}}`
	pad := n - len(head) - len(tail)
	if pad < 0 {
		t.Fatalf("cannot build a %d byte message", n)
	}
	b := make([]byte, 0, n)
	b = append(b, head...)
	b = append(b, strings.Repeat("x", pad)...)
	b = append(b, tail...)
	return b
}

func TestDecodeRejects(t *testing.T) {
	long := strings.Repeat("i", 65)
	cases := []struct {
		name string
		in   string
	}{
		{"empty input", ``},
		{"not JSON", `hello there`},
		{"truncated JSON", `{"id":"a1","method":"tabs"`},
		{"a JSON array", `[{"id":"a1","method":"tabs"}]`},
		{"a JSON string", `"tabs"`},
		{"JSON null", `null`},
		{"an empty object", `{}`},
		{"id of the wrong type", `{"id":7,"method":"tabs"}`},
		{"response with both result and error", `{"id":"a1","result":{},"error":{"code":"internal","message":"x"}}`},
		{"response with neither result nor error", `{"id":"a1"}`},
		{"response whose error is null", `{"id":"a1","error":null}`},
		{"error without a code", `{"id":"a1","error":{"message":"no code"}}`},
		{"error with an empty code", `{"id":"a1","error":{"code":"","message":"x"}}`},
		{"request carrying a result", `{"id":"a1","method":"tabs","result":{}}`},
		{"request carrying an error", `{"id":"a1","method":"tabs","error":{"code":"internal","message":"x"}}`},
		{"event carrying a result", `{"method":"zoom","result":{}}`},
		{"event carrying an error", `{"method":"zoom","error":{"code":"internal","message":"x"}}`},
		{"params only", `{"params":{}}`},
		{"id over 64 bytes", `{"id":"` + long + `","method":"tabs"}`},
		{"response id over 64 bytes", `{"id":"` + long + `","result":{}}`},
		{"method over 64 bytes", `{"method":"` + long + `"}`},
		// Invalid UTF-8 decodes to U+FFFD (3 bytes each), so the limit must
		// apply to what the program sees, not to the raw input.
		{"id that grows over 64 bytes when decoded", "{\"id\":\"" + strings.Repeat("\xff", 30) + "\",\"result\":{}}"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := protocol.Decode([]byte(c.in))
			if err == nil {
				t.Fatalf("Decode accepted %s as %+v", c.in, m)
			}
			if !errors.Is(err, protocol.ErrMalformed) {
				t.Errorf("error %v does not wrap ErrMalformed", err)
			}
		})
	}
}

func TestDecodeRejectsMessagesOverTheLimit(t *testing.T) {
	_, err := protocol.Decode(sized(t, protocol.MaxMessageBytes+1))
	if !errors.Is(err, protocol.ErrMalformed) {
		t.Fatalf("a message one byte over the limit: err = %v, want ErrMalformed", err)
	}
	m, err := protocol.Decode(sized(t, protocol.MaxMessageBytes))
	if err != nil {
		t.Fatalf("a message of exactly the limit was refused: %v", err)
	}
	if m.Kind() != protocol.KindEvent {
		t.Fatalf("Kind = %v", m.Kind())
	}
}

func TestDecodeAccepts(t *testing.T) {
	id64 := strings.Repeat("i", 64)
	cases := []struct {
		name   string
		in     string
		kind   protocol.Kind
		id     string
		method string
	}{
		{"request", `{"id":"a1","method":"tabs","params":{}}`, protocol.KindRequest, "a1", "tabs"},
		{"request without params", `{"id":"a1","method":"keepalive"}`, protocol.KindRequest, "a1", "keepalive"},
		{"result", `{"id":"a1","result":{"tabs":[]}}`, protocol.KindResponse, "a1", ""},
		{"empty result", `{"id":"a1","result":{}}`, protocol.KindResponse, "a1", ""},
		{"error", `{"id":"a1","error":{"code":"no_tab","message":"No tab with id 3"}}`, protocol.KindResponse, "a1", ""},
		{"error without a message", `{"id":"a1","error":{"code":"internal"}}`, protocol.KindResponse, "a1", ""},
		{"event", `{"method":"zoom","params":{"tab":1,"zoom":1.5}}`, protocol.KindEvent, "", "zoom"},
		{"event without params", `{"method":"tabs.changed"}`, protocol.KindEvent, "", "tabs.changed"},
		{"id of exactly 64 bytes", `{"id":"` + id64 + `","result":{}}`, protocol.KindResponse, id64, ""},
		{"unknown fields are ignored", `{"id":"a1","result":{},"jsonrpc":"2.0"}`, protocol.KindResponse, "a1", ""},
		{"surrounding whitespace", " \n{\"method\":\"zoom\"}\n", protocol.KindEvent, "", "zoom"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := protocol.Decode([]byte(c.in))
			if err != nil {
				t.Fatalf("Decode(%s): %v", c.in, err)
			}
			if m.Kind() != c.kind || m.ID != c.id || m.Method != c.method {
				t.Errorf("got kind %v id %q method %q, want %v %q %q", m.Kind(), m.ID, m.Method, c.kind, c.id, c.method)
			}
		})
	}
}

func TestErrorReadsAsCodeAndMessage(t *testing.T) {
	var err error = &protocol.Error{Code: protocol.CodeStale, Message: "the page changed"}
	if got := err.Error(); got != "stale_ref: the page changed" {
		t.Errorf("Error() = %q", got)
	}
}

// FuzzDecode holds Decode to its promise: no input panics it, and whatever it
// accepts survives being sent again, which is what the bridge does with it.
func FuzzDecode(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		``, `null`, `{}`, `{"id":"a1"}`, `{"id":"a1","result":null}`,
		`{"id":"a1","error":{"code":"x"}}`, `{"method":"m","params":[1,"<&>"]}`,
		"{\"id\":\"\xff\",\"method\":\"\u2028\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := protocol.Decode(data)
		if err != nil {
			if m != nil {
				t.Fatalf("Decode returned a message and an error")
			}
			if !errors.Is(err, protocol.ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		again, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("an accepted message does not re-encode: %v", err)
		}
		m2, err := protocol.Decode(again)
		if err != nil {
			t.Fatalf("re-encoded %q is refused: %v (input %q)", again, err, data)
		}
		if m2.Kind() != m.Kind() || m2.ID != m.ID || m2.Method != m.Method {
			t.Fatalf("round trip changed the message: %v %q %q → %v %q %q",
				m.Kind(), m.ID, m.Method, m2.Kind(), m2.ID, m2.Method)
		}
		if (m.Error == nil) != (m2.Error == nil) || (m.Error != nil && !reflect.DeepEqual(m.Error, m2.Error)) {
			t.Fatalf("round trip changed the error: %+v → %+v", m.Error, m2.Error)
		}
	})
}
