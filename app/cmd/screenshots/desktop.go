//go:build linux

package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/reins-app/reins/executor/xdesk"
	"github.com/reins-app/reins/internal/testrig/hosttest"
	"github.com/reins-app/reins/internal/testrig/xvfb"
)

// errNoDesktop means a program the desktop picture needs is missing.
var errNoDesktop = errors.New("no desktop picture")

// desktopHeight is the pictured desktop's height; its panel runs along
// the bottom.
const desktopHeight = 800

// desktopShot takes the picture of a real desktop: Xvfb, a private session
// bus, xfce4-panel with its systray plugin along the bottom, the real
// reins binary (built here) in it, and Reins' menu opened by a click on its
// icon, as a person opens it.
func desktopShot(path string) error {
	for _, p := range []string{"Xvfb", "dbus-daemon", "xfce4-panel"} {
		if _, err := exec.LookPath(p); err != nil {
			return fmt.Errorf("%w: %s is missing (make deps installs it)", errNoDesktop, p)
		}
	}
	tmp, err := os.MkdirTemp("", "reins-desktop")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "reins")
	build := exec.Command("go", "build", "-o", bin, "./app/cmd/reins")
	if b, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("building reins for the desktop picture: %v\n%s", err, b)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	x, err := xvfb.Start(ctx, xvfb.Options{Screen: fmt.Sprintf("1280x%dx24", desktopHeight)})
	if err != nil {
		return err
	}
	defer x.Close()

	conf := filepath.Join(tmp, "config")
	if err := hosttest.WritePanelConfig(conf, desktopHeight); err != nil {
		return err
	}
	runtimeDir := filepath.Join(tmp, "run")
	if err := os.Mkdir(runtimeDir, 0o700); err != nil {
		return err
	}
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "DBUS_SESSION_BUS_ADDRESS=") || strings.HasPrefix(kv, "XDG_")
	})
	env = append(env, "DISPLAY="+x.Display, "XDG_CONFIG_HOME="+conf, "XDG_RUNTIME_DIR="+runtimeDir, "NO_AT_BRIDGE=1")

	daemon := exec.Command("dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address=1")
	daemon.Env = env
	out, err := daemon.StdoutPipe()
	if err != nil {
		return err
	}
	stop, err := startGroup(daemon)
	if err != nil {
		return err
	}
	defer stop()
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		return fmt.Errorf("dbus-daemon printed no address: %w", err)
	}
	addr = strings.TrimSpace(addr)
	env = append(env, "DBUS_SESSION_BUS_ADDRESS="+addr)
	bus, err := dbus.Connect(addr)
	if err != nil {
		return err
	}
	defer bus.Close()

	panel := exec.Command("xfce4-panel", "--disable-wm-check")
	panel.Env = env
	stopPanel, err := startGroup(panel)
	if err != nil {
		return err
	}
	defer stopPanel()
	if err := until(ctx, "a tray host on the bus", func() bool { return hosttest.HasWatcher(bus) }); err != nil {
		return err
	}

	reins := exec.Command(bin, "-mcp-port", "-1")
	reins.Env = append(env, "REINS_DATA_DIR="+filepath.Join(tmp, "data"))
	stopReins, err := startGroup(reins)
	if err != nil {
		return err
	}
	defer stopReins()
	if err := until(ctx, "Reins' item on the panel", func() bool {
		_, ok := hosttest.Registered(bus, reins.Process.Pid)
		return ok
	}); err != nil {
		return err
	}

	var icon image.Rectangle
	if err := until(ctx, "Reins' icon drawn on the panel", func() bool {
		img, err := xdesk.Capture(x.Display)
		if err != nil {
			return false
		}
		icon = darkShape(img, 30)
		return icon.Dx() >= 10 && icon.Dy() >= 10 && icon.Dx() <= 40
	}); err != nil {
		return err
	}
	before, err := xdesk.Menus(x.Display)
	if err != nil {
		return err
	}
	// The panel draws the icon before its item answers clicks: a click that
	// opened nothing is made again, once the menu has had time to open.
	var clicked time.Time
	var clickErr error
	if err := until(ctx, "Reins' menu to open", func() bool {
		if n, err := xdesk.Menus(x.Display); err == nil && n > before {
			return true
		}
		if time.Since(clicked) >= menuOpens {
			clickErr = xdesk.Click(x.Display, (icon.Min.X+icon.Max.X)/2, (icon.Min.Y+icon.Max.Y)/2)
			clicked = time.Now()
		}
		return false
	}); err != nil {
		return errors.Join(err, clickErr)
	}
	// The menu opens in a few hundred milliseconds and draws over a few
	// frames; wait for the screen to stop changing.
	var img *image.RGBA
	var last []byte
	if err := until(ctx, "the menu to finish drawing", func() bool {
		next, err := xdesk.Capture(x.Display)
		if err != nil {
			return false
		}
		same := last != nil && slices.Equal(last, next.Pix)
		img, last = next, next.Pix
		return same
	}); err != nil {
		return err
	}
	return writePNG(path, img)
}

// startGroup starts cmd in its own process group; stop ends the group by
// the child's pid and reaps it.
func startGroup(cmd *exec.Cmd) (stop func(), err error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	return func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	}, nil
}

// menuOpens is how long a click on the icon is given to open the menu
// (about 370 ms, measured) before it is made again.
const menuOpens = 2 * time.Second

func until(ctx context.Context, what string, ok func() bool) error {
	for !ok() {
		select {
		case <-ctx.Done():
			return fmt.Errorf("desktop picture: timed out waiting for %s", what)
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil
}

// darkShape is the box around the dark pixels in the bottom rows: Reins'
// black icon on the light panel.
func darkShape(img *image.RGBA, rows int) image.Rectangle {
	var box image.Rectangle
	b := img.Bounds()
	for y := b.Max.Y - rows; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := img.RGBAAt(x, y)
			if c.R < 80 && c.G < 80 && c.B < 80 {
				box = box.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return box
}
