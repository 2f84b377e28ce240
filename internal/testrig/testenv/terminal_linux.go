package testenv

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Terminal is a pseudo-terminal for a program under test to write to, as
// a person's terminal is: TTY is the terminal side to hand the program,
// and what reaches the screen side is kept for the test to read. Output
// processing is off, so the screen gets exactly the bytes written: a
// carriage return read there is the program's own, never the line
// discipline's.
type Terminal struct {
	TTY *os.File

	screen *os.File

	mu      sync.Mutex
	b       strings.Builder // guarded by mu: what reached the screen
	changed chan struct{}
}

// OpenTerminal opens a pseudo-terminal, closed when the test ends.
func OpenTerminal(t testing.TB) *Terminal {
	t.Helper()
	screen, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	Need(t, err == nil, fmt.Sprintf("a pseudo-terminal (%v)", err))
	fd := int(screen.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlocking the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("naming the pseudo-terminal: %v", err)
	}
	tty, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("opening the terminal side: %v", err)
	}
	tio, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	tio.Oflag &^= unix.OPOST
	tio.Lflag &^= unix.ECHO
	if err := unix.IoctlSetTermios(int(tty.Fd()), unix.TCSETS, tio); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close(); screen.Close() })
	term := &Terminal{TTY: tty, screen: screen, changed: make(chan struct{}, 1)}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := screen.Read(buf)
			if n > 0 {
				term.mu.Lock()
				term.b.Write(buf[:n])
				term.mu.Unlock()
				select {
				case term.changed <- struct{}{}:
				default:
				}
			}
			if err != nil {
				return
			}
		}
	}()
	return term
}

// Type sends text to the program as keys typed at the terminal.
func (s *Terminal) Type(text string) error {
	_, err := s.screen.WriteString(text)
	return err
}

// String is everything that has reached the screen so far.
func (s *Terminal) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Wait returns the first match of the regular expression re on the
// screen, waiting for it as long as within; the test fails past that.
func (s *Terminal) Wait(t testing.TB, re string, within time.Duration) []string {
	t.Helper()
	rx := regexp.MustCompile(re)
	return s.until(t, "the terminal never showed "+re, within, func(text string) []string { return rx.FindStringSubmatch(text) })
}

// Next returns the first group of the first match of re whose group is
// not in seen yet, waiting for one as long as within.
func (s *Terminal) Next(t testing.TB, re string, seen []string, within time.Duration) string {
	t.Helper()
	rx := regexp.MustCompile(re)
	m := s.until(t, "the terminal never showed a new "+re, within, func(text string) []string {
		for _, m := range rx.FindAllStringSubmatch(text, -1) {
			if !slices.Contains(seen, m[1]) {
				return m
			}
		}
		return nil
	})
	return m[1]
}

// until waits, woken by each read, for match to find something on the
// screen.
func (s *Terminal) until(t testing.TB, fail string, within time.Duration, match func(string) []string) []string {
	t.Helper()
	timeout := time.After(within)
	for {
		if m := match(s.String()); m != nil {
			return m
		}
		select {
		case <-s.changed:
		case <-timeout:
			t.Fatalf("%s within %v; it shows:\n%s", fail, within, s.String())
		}
	}
}
