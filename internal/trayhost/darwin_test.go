//go:build darwin

package trayhost

import (
	"context"
	"testing"
)

func TestTheMenuBarIsAlwaysAHost(t *testing.T) {
	if has, err := Present(); err != nil || !has {
		t.Fatalf("Present() = %t, %v; want true, nil", has, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := Watch(ctx)
	if err != nil || !<-ch {
		t.Fatalf("Watch: %v; want a first true", err)
	}
	cancel()
	for range ch {
	}
}
