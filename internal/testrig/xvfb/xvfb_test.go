//go:build unix

package xvfb

import (
	"context"
	"errors"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/reins-app/reins/internal/testrig/testenv"
)

func TestStartServesTheRequestedScreen(t *testing.T) {
	for _, tc := range []struct {
		screen string
		w, h   uint16
	}{
		{"", 1280, 800},
		{"2560x1600x24", 2560, 1600},
	} {
		s := StartT(t, tc.screen)
		c, err := xgb.NewConnDisplay(s.Display)
		if err != nil {
			t.Fatalf("connect to %s: %v", s.Display, err)
		}
		scr := xproto.Setup(c).DefaultScreen(c)
		if scr.WidthInPixels != tc.w || scr.HeightInPixels != tc.h {
			t.Errorf("screen %q: got %dx%d, want %dx%d", tc.screen, scr.WidthInPixels, scr.HeightInPixels, tc.w, tc.h)
		}
		c.Close()
	}
}

func TestParallelServersGetTheirOwnDisplays(t *testing.T) {
	a := StartT(t, "")
	b := StartT(t, "")
	if a.Display == b.Display {
		t.Fatalf("both servers claim display %s", a.Display)
	}
}

func TestCloseStopsTheServerAndItsSocket(t *testing.T) {
	testenv.NeedCommand(t, "Xvfb")
	s, err := Start(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	sock := "/tmp/.X11-unix/X" + strings.TrimPrefix(s.Display, ":")
	if c, err := net.Dial("unix", sock); err != nil {
		t.Fatalf("server not reachable at %s: %v", sock, err)
	} else {
		c.Close()
	}
	pid := s.cmd.Process.Pid
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("pid %d still exists after Close (kill 0: %v)", pid, err)
	}
	if _, err := os.Stat(sock); err == nil {
		t.Errorf("socket %s left behind", sock)
	}
}

func TestStartReportsWhyXvfbFailed(t *testing.T) {
	testenv.NeedCommand(t, "Xvfb")
	_, err := Start(context.Background(), Options{Screen: "nonsense"})
	if err == nil {
		t.Fatal("Start with a bad screen succeeded")
	}
	if !strings.Contains(err.Error(), "Xvfb said") {
		t.Errorf("error does not carry Xvfb's own words: %v", err)
	}
}

func TestStartGivesUpWhenTheContextEnds(t *testing.T) {
	testenv.NeedCommand(t, "Xvfb")
	ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-ctx.Done()
	s, err := Start(ctx, Options{})
	if err == nil {
		s.Close()
		t.Fatal("Start with an ended context succeeded")
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v, want an error wrapping context.DeadlineExceeded", err)
	}
}
