package bridge_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/reins-app/reins/bridge"
	"github.com/reins-app/reins/bridge/protocol"
)

func pairOfSessions(t testing.TB) (app, ext *bridge.Session) {
	key := bridge.SessionKey(newSecret(t), bridge.Transcript{Port: 4242, AppNonce: strings.Repeat("a1", 32), ExtNonce: strings.Repeat("b2", 32), Profile: "p"})
	return bridge.NewSession(key, bridge.AppToExtension), bridge.NewSession(key, bridge.ExtensionToApp)
}

func TestSealedMessagesOpenInOrder(t *testing.T) {
	app, ext := pairOfSessions(t)
	for i, msg := range []string{`{"method":"shares","params":{}}`, `{"id":"a1","method":"tabs"}`, "", strings.Repeat("é", 5000)} {
		frame := app.Seal([]byte(msg))
		body, err := ext.Open(frame)
		if err != nil || string(body) != msg {
			t.Fatalf("message %d: opened %q, %v", i, body, err)
		}
	}
	// And the other way, with its own numbers.
	frame := ext.Seal([]byte(`{}`))
	if !bytes.HasPrefix(frame, []byte("1 ")) {
		t.Errorf("the extension's first message is numbered %q", frame[:2])
	}
	if _, err := app.Open(frame); err != nil {
		t.Fatal(err)
	}
}

// Every way a message can be changed on its way is refused, and a session
// never opens a message twice.
func TestSealedMessagesRefuseTamperingReplayAndReordering(t *testing.T) {
	msg := []byte(`{"id":"a1","method":"snapshot","params":{"tab":3}}`)
	cases := []struct {
		name string
		// frames returns what reaches the receiver, given a sender.
		frames func(send *bridge.Session) [][]byte
		want   error
	}{
		{"a byte of the message changed", func(s *bridge.Session) [][]byte {
			f := s.Seal(msg)
			f[len(f)-3] ^= 1
			return [][]byte{f}
		}, bridge.ErrTampered},
		{"a byte of the MAC changed", func(s *bridge.Session) [][]byte {
			f := s.Seal(msg)
			if f[5] == '0' {
				f[5] = '1'
			} else {
				f[5] = '0'
			}
			return [][]byte{f}
		}, bridge.ErrTampered},
		{"the number changed", func(s *bridge.Session) [][]byte {
			f := s.Seal(msg)
			return [][]byte{append([]byte("2"), f[1:]...)}
		}, bridge.ErrTampered},
		{"a message appended", func(s *bridge.Session) [][]byte {
			return [][]byte{append(s.Seal(msg), `{"id":"x"}`...)}
		}, bridge.ErrTampered},
		{"replayed", func(s *bridge.Session) [][]byte {
			f := s.Seal(msg)
			return [][]byte{f, f}
		}, bridge.ErrOutOfOrder},
		{"reordered", func(s *bridge.Session) [][]byte {
			a, b := s.Seal(msg), s.Seal(msg)
			return [][]byte{b, a}
		}, bridge.ErrOutOfOrder},
		{"one dropped", func(s *bridge.Session) [][]byte {
			s.Seal(msg)
			return [][]byte{s.Seal(msg)}
		}, bridge.ErrOutOfOrder},
		{"not sealed", func(*bridge.Session) [][]byte { return [][]byte{msg} }, bridge.ErrMalformed},
		{"numbered 0", func(*bridge.Session) [][]byte {
			return [][]byte{append([]byte("0 "+strings.Repeat("0", 64)+"\n"), msg...)}
		}, bridge.ErrMalformed},
		{"the MAC in capitals", func(s *bridge.Session) [][]byte {
			f := s.Seal(msg)
			i := bytes.IndexByte(f, '\n')
			copy(f[2:i], bytes.ToUpper(f[2:i]))
			return [][]byte{f}
		}, bridge.ErrMalformed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			app, ext := pairOfSessions(t)
			frames := c.frames(app)
			var err error
			for _, f := range frames {
				if _, err = ext.Open(f); err != nil {
					break
				}
			}
			if !errors.Is(err, c.want) {
				t.Errorf("err = %v, want %v", err, c.want)
			}
		})
	}

	t.Run("sent back the way it came", func(t *testing.T) {
		app, _ := pairOfSessions(t)
		if _, err := app.Open(app.Seal(msg)); !errors.Is(err, bridge.ErrTampered) {
			t.Errorf("the app opened its own message: %v", err)
		}
	})
	t.Run("another session's key", func(t *testing.T) {
		app, _ := pairOfSessions(t)
		_, other := pairOfSessions(t)
		if _, err := other.Open(app.Seal(msg)); !errors.Is(err, bridge.ErrTampered) {
			t.Errorf("err = %v", err)
		}
	})
}

// The proofs and the key bind every part of the transcript: change any one
// and all three change.
func TestTheTranscriptBindsPortNoncesAndProfile(t *testing.T) {
	secret := newSecret(t)
	base := bridge.Transcript{Port: 4242, AppNonce: strings.Repeat("a1", 32), ExtNonce: strings.Repeat("b2", 32), Profile: "p"}
	for name, change := range map[string]func(*bridge.Transcript){
		"port":            func(t *bridge.Transcript) { t.Port = 4243 },
		"app nonce":       func(t *bridge.Transcript) { t.AppNonce = strings.Repeat("a2", 32) },
		"extension nonce": func(t *bridge.Transcript) { t.ExtNonce = strings.Repeat("b3", 32) },
		"profile":         func(t *bridge.Transcript) { t.Profile = "q" },
		"nonces swapped":  func(t *bridge.Transcript) { t.AppNonce, t.ExtNonce = t.ExtNonce, t.AppNonce },
	} {
		other := base
		change(&other)
		if bridge.ExtensionProof(secret, base) == bridge.ExtensionProof(secret, other) ||
			bridge.AppProof(secret, base) == bridge.AppProof(secret, other) ||
			bytes.Equal(bridge.SessionKey(secret, base), bridge.SessionKey(secret, other)) {
			t.Errorf("changing the %s leaves a proof or the key the same", name)
		}
	}
}

// FuzzOpenSealed: whatever arrives, Open never panics, and what it accepts
// is exactly what the sender sealed: sealing the opened message again gives
// the very bytes that arrived.
func FuzzOpenSealed(f *testing.F) {
	fuzzKey := bridge.SessionKey(make([]byte, 32), bridge.Transcript{Port: 1})
	f.Add(bridge.NewSession(fuzzKey, bridge.AppToExtension).Seal([]byte(`{"method":"shares","params":{"seq":1,"paused":false,"tabs":[]}}`)))
	f.Add([]byte("1 " + strings.Repeat("0", 64) + "\n{}"))
	f.Add([]byte("18446744073709551616 " + strings.Repeat("f", 64) + "\n"))
	f.Add([]byte("\n"))
	f.Fuzz(func(t *testing.T, frame []byte) {
		key := bridge.SessionKey(make([]byte, 32), bridge.Transcript{Port: 1})
		_, ext := bridge.NewSession(key, bridge.AppToExtension), bridge.NewSession(key, bridge.ExtensionToApp)
		seq, _, body, err := bridge.SplitSealed(frame)
		if err != nil {
			if !errors.Is(err, bridge.ErrMalformed) {
				t.Fatalf("SplitSealed: %v does not wrap ErrMalformed", err)
			}
			return
		}
		opened, err := ext.Open(frame)
		if err != nil {
			return
		}
		again := bridge.NewSession(key, bridge.AppToExtension)
		for range seq - 1 {
			again.Seal(nil)
		}
		if !bytes.Equal(again.Seal(opened), frame) || !bytes.Equal(opened, body) {
			t.Fatalf("Open accepted %q, which is not what sealing %q gives", frame, opened)
		}
	})
}

// FuzzCheckHello: the first message on a connection comes from anyone. It
// never panics, is held to the handshake's size, and pairs only with the
// proof for this port.
func FuzzCheckHello(f *testing.F) {
	secret := make([]byte, 32)
	const port, appNonce = 4242, "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90"
	extNonce := strings.Repeat("0f", 32)
	good := bridge.ExtensionProof(secret, bridge.Transcript{Port: port, AppNonce: appNonce, ExtNonce: extNonce, Profile: "p"})
	f.Add([]byte(`{"id":"h1","method":"hello","params":{"version":2,"port":4242,"profile":"p","browserSession":"s","nonce":"` + extNonce + `","proof":"` + good + `"}}`))
	f.Add([]byte(`{"id":"h1","method":"hello","params":{"version":2,"port":4243,"profile":"p","browserSession":"s","nonce":"` + extNonce + `","proof":"` + good + `"}}`))
	f.Add([]byte(`{"id":"h1","method":"hello","params":{"version":1}}`))
	f.Add([]byte(`{"method":"hello"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, h, tr, err := bridge.CheckHello(secret, port, appNonce, data)
		if err != nil {
			return
		}
		if len(data) > protocol.MaxHandshakeBytes {
			t.Fatalf("a hello of %d bytes paired", len(data))
		}
		if tr.Port != port || tr.AppNonce != appNonce || h.Proof != bridge.ExtensionProof(secret, tr) {
			t.Fatalf("paired a hello %+v with transcript %+v", h, tr)
		}
	})
}
