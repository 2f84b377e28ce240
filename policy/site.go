package policy

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// Site is a pattern over web origins, as the policy's site lists write
// them. It is the one matcher every share check uses.
//
//   - every origin
//     bank.example           http or https, any port, that host alone
//     *.bank.example         bank.example and every name under it
//     https://bank.example   that scheme only
//     bank.example:8443      that port only (443 for https and 80 for http
//     when the origin names none)
//
// Hosts are matched in lower case; a name outside ASCII is written as the
// browser does, in punycode (xn--…). An IPv6 address goes in brackets.
type Site struct {
	text   string // as written
	all    bool   // "*"
	scheme string // "" for http and https
	host   string
	sub    bool // "*." before host: host and every name under it
	port   int  // 0 for any
}

// String is the pattern as the policy wrote it.
func (s Site) String() string { return s.text }

// ParseSite reads a pattern.
func ParseSite(text string) (Site, error) {
	s := Site{text: text}
	p := strings.TrimSpace(text)
	if p == "*" {
		s.all = true
		return s, nil
	}
	if scheme, rest, ok := strings.Cut(p, "://"); ok {
		scheme = strings.ToLower(scheme)
		if scheme != "http" && scheme != "https" {
			return Site{}, fmt.Errorf("%q: only http:// and https:// sites can be shared, not %s://", text, scheme)
		}
		s.scheme, p = scheme, rest
	}
	if strings.ContainsAny(p, "/?#@") {
		return Site{}, fmt.Errorf("%q: a site is a scheme, a host and a port at most, such as https://*.bank.example:8443, without a path", text)
	}
	host := p
	if strings.HasPrefix(p, "[") {
		end := strings.Index(p, "]")
		if end < 0 {
			return Site{}, fmt.Errorf("%q: an IPv6 address needs its closing ]", text)
		}
		host = p[1:end]
		rest := p[end+1:]
		if rest != "" {
			port, ok := strings.CutPrefix(rest, ":")
			if !ok {
				return Site{}, fmt.Errorf("%q: only :port may follow an IPv6 address", text)
			}
			n, err := parsePort(text, port)
			if err != nil {
				return Site{}, err
			}
			s.port = n
		}
		if ip := net.ParseIP(host); ip == nil || ip.To4() != nil {
			return Site{}, fmt.Errorf("%q: %s is not an IPv6 address", text, host)
		}
		s.host = strings.ToLower(net.ParseIP(host).String())
		return s, nil
	}
	if h, port, ok := strings.Cut(p, ":"); ok {
		n, err := parsePort(text, port)
		if err != nil {
			return Site{}, err
		}
		host, s.port = h, n
	}
	if rest, ok := strings.CutPrefix(host, "*."); ok {
		s.sub, host = true, rest
	}
	host = strings.ToLower(host)
	if host == "" {
		return Site{}, fmt.Errorf("%q names no host", text)
	}
	for _, label := range strings.Split(host, ".") {
		if label == "" {
			return Site{}, fmt.Errorf("%q: the host %q has an empty part", text, host)
		}
		for _, r := range label {
			switch {
			case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-':
			case r == '*':
				return Site{}, fmt.Errorf("%q: * stands only alone or as the first part of a host (*.bank.example)", text)
			case r > 0x7f:
				return Site{}, fmt.Errorf("%q: write a name outside ASCII as the browser does, in punycode (xn--…)", text)
			default:
				return Site{}, fmt.Errorf("%q: %q cannot be part of a host name", text, r)
			}
		}
	}
	s.host = host
	return s, nil
}

func parsePort(text, port string) (int, error) {
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != port {
		return 0, fmt.Errorf("%q: the port must be a number from 1 to 65535", text)
	}
	return n, nil
}

// Match reports whether origin ("https://mail.example.com", as the share
// checks write origins) is one the pattern names. An origin that is not
// http or https matches only "*".
func (s Site) Match(origin string) bool {
	if s.all {
		return true
	}
	scheme, host, port, ok := splitOrigin(origin)
	if !ok {
		return false
	}
	if s.scheme != "" && s.scheme != scheme {
		return false
	}
	if s.port != 0 && s.port != port {
		return false
	}
	if host == s.host {
		return true
	}
	return s.sub && strings.HasSuffix(host, "."+s.host)
}

// splitOrigin reads an origin's scheme, host (lower case, an IPv6 address
// without brackets) and port (the scheme's default when it names none).
func splitOrigin(origin string) (scheme, host string, port int, ok bool) {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", "", 0, false
	}
	host = strings.ToLower(u.Hostname())
	if ip := net.ParseIP(host); ip != nil && ip.To4() == nil {
		host = ip.String()
	}
	port = 80
	if u.Scheme == "https" {
		port = 443
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return "", "", 0, false
		}
		port = n
	}
	return u.Scheme, host, port, true
}
