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

// lookup cannot ask the menu bar which items it shows: the status item is
// the app's own, and only the app can say it made one.
func lookup(int) (Host, error) { return Host{Listed: true}, nil }
