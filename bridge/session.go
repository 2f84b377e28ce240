package bridge

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Transcript is what a handshake binds its proofs and the session key to:
// the port the extension dialled (for the app: the port it listens on),
// both nonces and the profile the hello names. A relay that takes the
// extension's hello on one port to Reins on another changes the port, so
// neither side's proof checks and no session key is shared.
type Transcript struct {
	Port     int
	AppNonce string
	ExtNonce string
	Profile  string
}

// text is the transcript as the proofs and the key cover it, after a label
// naming the role or purpose: label, port, app nonce, extension nonce and
// profile, each on its own line. The nonces are hex and the profile is
// checked for newlines before anything is computed, so no two transcripts
// share a text.
func (t Transcript) text(label string) string {
	return label + "\n" + strconv.Itoa(t.Port) + "\n" + t.AppNonce + "\n" + t.ExtNonce + "\n" + t.Profile
}

func hmacOf(key []byte, text string) []byte {
	m := hmac.New(sha256.New, key)
	io.WriteString(m, text)
	return m.Sum(nil)
}

// Labels of the three things a handshake derives; the two proofs name the
// role that makes them, so neither side's proof can be reflected as the
// other's.
const (
	labelExtension = "reins-extension"
	labelApp       = "reins-app"
	labelSession   = "reins-session"
)

// ExtensionProof is what the extension sends in hello.
func ExtensionProof(secret []byte, t Transcript) string {
	return hex.EncodeToString(hmacOf(secret, t.text(labelExtension)))
}

// AppProof is what the app answers, proving it knows the secret too.
func AppProof(secret []byte, t Transcript) string {
	return hex.EncodeToString(hmacOf(secret, t.text(labelApp)))
}

// SessionKey is the key every message after the handshake is sealed with,
// in both directions.
func SessionKey(secret []byte, t Transcript) []byte {
	return hmacOf(secret, t.text(labelSession))
}

// Directions a sealed message travels; each is part of what its MAC
// covers, so a message cannot be sent back the way it came.
const (
	AppToExtension = "app-to-extension"
	ExtensionToApp = "extension-to-app"
)

// Errors [Session.Open] wraps.
var (
	ErrTampered   = errors.New("a message failed its check: it was changed, forged or sealed with another session's key")
	ErrOutOfOrder = errors.New("a message came out of order: it was replayed, reordered or one before it was lost")
)

// maxSealHeader bounds a sealed message's first line: a sequence number of
// up to 20 digits, a space and 64 hex digits.
const maxSealHeader = 20 + 1 + 64

// SealOverhead is how many bytes a sealed message adds to the message it
// carries, at most.
const SealOverhead = maxSealHeader + 1

// Session authenticates every message after the handshake. A sealed
// message is one line of header and the message itself:
//
//	<seq> <mac>\n<message JSON>
//
// where seq counts the messages one side sent on the connection, from 1,
// in decimal, and mac is hex(HMAC-SHA256(key, direction + "\n" + seq + "\n"
// + message JSON)) over the very bytes sent. A receiver accepts only the
// next number of its direction, so a replayed, reordered or dropped
// message ends the connection; so does a changed byte.
//
// Seal and Open may be used at the same time, but each by one goroutine
// at a time.
type Session struct {
	key        []byte
	sendDir    string
	recvDir    string
	sent, recv uint64
}

// NewSession is the session of the side that sends in direction send.
func NewSession(key []byte, send string) *Session {
	recv := ExtensionToApp
	if send == ExtensionToApp {
		recv = AppToExtension
	}
	return &Session{key: bytes.Clone(key), sendDir: send, recvDir: recv}
}

func (s *Session) mac(dir string, seq uint64, body []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	io.WriteString(m, dir+"\n"+strconv.FormatUint(seq, 10)+"\n")
	m.Write(body)
	return m.Sum(nil)
}

// Seal returns body sealed as the next message this side sends.
func (s *Session) Seal(body []byte) []byte {
	s.sent++
	seq := strconv.FormatUint(s.sent, 10)
	out := make([]byte, 0, len(seq)+1+64+1+len(body))
	out = append(out, seq...)
	out = append(out, ' ')
	out = hex.AppendEncode(out, s.mac(s.sendDir, s.sent, body))
	out = append(out, '\n')
	return append(out, body...)
}

// Open checks a sealed message from the other side and returns the
// message it carries. An error wraps [ErrTampered], [ErrOutOfOrder] or
// ErrMalformed; after one the connection cannot be trusted and should end.
func (s *Session) Open(frame []byte) ([]byte, error) {
	seq, mac, body, err := SplitSealed(frame)
	if err != nil {
		return nil, err
	}
	if !hmac.Equal(mac, s.mac(s.recvDir, seq, body)) {
		return nil, ErrTampered
	}
	if seq != s.recv+1 {
		return nil, fmt.Errorf("%w (number %d where %d was due)", ErrOutOfOrder, seq, s.recv+1)
	}
	s.recv = seq
	return body, nil
}

// ErrMalformed is wrapped by the errors of [SplitSealed].
var ErrMalformed = errors.New("not a sealed message")

// SplitSealed takes a sealed message apart without checking it. It never
// panics, whatever the input.
func SplitSealed(frame []byte) (seq uint64, mac, body []byte, err error) {
	head, body, ok := bytes.Cut(frame[:min(len(frame), maxSealHeader+1)], []byte("\n"))
	if !ok {
		return 0, nil, nil, fmt.Errorf("%w: no header line", ErrMalformed)
	}
	body = frame[len(head)+1:]
	num, hexMAC, ok := bytes.Cut(head, []byte(" "))
	if !ok || len(num) == 0 || len(num) > 20 || (num[0] == '0') || len(hexMAC) != 64 {
		return 0, nil, nil, fmt.Errorf("%w: the header is not <seq> <mac>", ErrMalformed)
	}
	for _, c := range num {
		if c < '0' || c > '9' {
			return 0, nil, nil, fmt.Errorf("%w: the sequence number is not decimal", ErrMalformed)
		}
	}
	seq, perr := strconv.ParseUint(string(num), 10, 64)
	if perr != nil {
		return 0, nil, nil, fmt.Errorf("%w: the sequence number is out of range", ErrMalformed)
	}
	for _, c := range hexMAC {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return 0, nil, nil, fmt.Errorf("%w: the MAC is not lowercase hex", ErrMalformed)
		}
	}
	mac, herr := hex.DecodeString(string(hexMAC))
	if herr != nil {
		return 0, nil, nil, fmt.Errorf("%w: the MAC is not hex", ErrMalformed)
	}
	return seq, mac, body, nil
}
