package core

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/reins-app/reins/approvals"
	"github.com/reins-app/reins/internal/peercred"
	"github.com/reins-app/reins/vocab"
)

// A tab shared on a loopback origin (http://localhost:8000) is pinned to the
// program listening there when the person shared it: its executable and
// working directory, not its pid, so a restart in place keeps the share and
// another program on the port ends it. The shares keep the pin as a string
// and only compare it; the lookup is the OS's, here in core.

// programLookup names the programs that would answer a connection to host
// (a loopback name or address) on port.
type programLookup func(host string, port int) ([]peercred.Program, error)

func osPrograms(host string, port int) ([]peercred.Program, error) {
	return peercred.Listening(loopbackIPs(host), port)
}

// loopbackIPs is where Chrome connects for host: an address is itself;
// localhost and its subdomains are both 127.0.0.1 and ::1.
func loopbackIPs(host string) []net.IP {
	if ip := net.ParseIP(host); ip != nil {
		return []net.IP{ip}
	}
	return []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
}

func hostPort(host string, port int) string { return net.JoinHostPort(host, strconv.Itoa(port)) }

// pinOf writes programs down as the shares keep them: each executable and
// directory quoted, so no path can pass for two.
func pinOf(ps []peercred.Program) string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(strconv.Quote(p.Exe) + " " + strconv.Quote(p.Dir))
	}
	return b.String()
}

// describePin reads a pin back as a person reads it.
func describePin(pin string) string {
	var ps []peercred.Program
	for pin != "" {
		exe, err := strconv.QuotedPrefix(pin)
		if err != nil {
			return pin
		}
		pin = strings.TrimPrefix(pin[len(exe):], " ")
		dir, err := strconv.QuotedPrefix(pin)
		if err != nil {
			return pin
		}
		pin = strings.TrimPrefix(pin[len(dir):], "; ")
		p := peercred.Program{}
		p.Exe, _ = strconv.Unquote(exe)
		p.Dir, _ = strconv.Unquote(dir)
		ps = append(ps, p)
	}
	return describe(ps)
}

func describe(ps []peercred.Program) string {
	words := make([]string, len(ps))
	for i, p := range ps {
		words[i] = p.String()
	}
	return strings.Join(words, " and ")
}

// pinFor is what a share of origin is pinned to: "" with a note for the
// person when origin is not loopback (no note) or the OS cannot name the
// program (a note saying so). A loopback origin whose program cannot be
// named on an OS that can name programs is refused: nothing listens there,
// or a program Reins may not inspect (another user's) does, and pinning to
// "whatever is there" would be pinning to nothing.
func (e *Engine) pinFor(origin string) (pin, note string, err error) {
	host, port, ok := approvals.Loopback(origin)
	if !ok {
		return "", "", nil
	}
	where := hostPort(host, port)
	ps, err := e.programs(host, port)
	switch {
	case errors.Is(err, peercred.ErrUnsupported):
		return "", "not pinned to a program: Reins cannot tell on this system which program listens on " + where + ", so if another program takes that port the share goes on", nil
	case err != nil:
		return "", "", &vocab.Error{Code: vocab.CodeProgramUnknown, Message: fmt.Sprintf("Reins could not tell which program listens on %s (%v), so the tab was not shared; try again", where, err), Err: err}
	case len(ps) == 0:
		return "", "", &vocab.Error{Code: vocab.CodeProgramUnknown, Message: fmt.Sprintf("nothing listens on %s now, so Reins cannot tell which program the tab would be shared with; start it, reload the tab and share again", where)}
	}
	for _, p := range ps {
		if !p.Known() {
			return "", "", &vocab.Error{Code: vocab.CodeProgramUnknown, Message: fmt.Sprintf("%s listens on %s, so Reins cannot pin the share to it and did not share the tab; stop that program, or serve the page from one of your own", p, where)}
		}
	}
	return pinOf(ps), "pinned to " + describe(ps) + " on " + where, nil
}
