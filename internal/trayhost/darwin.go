//go:build darwin

package trayhost

import "context"

// The menu bar is always there to hold the item.

func present() (bool, error) { return true, nil }

func watch(ctx context.Context) (<-chan bool, error) {
	out := make(chan bool, 1)
	out <- true
	go func() {
		<-ctx.Done()
		close(out)
	}()
	return out, nil
}
