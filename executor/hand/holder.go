package hand

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Holder keeps a listener: opened when first needed, opened again after
// its display failed it, closed with its owner (the executor, or the
// person's door). The zero Holder is ready to use; its methods are safe for
// concurrent use.
type Holder struct {
	mu     sync.Mutex
	l      *Listener // guarded by mu: nil until needed, and after it failed
	closed bool      // guarded by mu
}

// Watch starts the watch for one act on a listener of opts, opening one
// when none is open or the last one failed.
func (h *Holder) Watch(ctx context.Context, opts Options) (*Watch, error) {
	return h.start(ctx, opts, func(l *Listener) (*Watch, error) { return l.Watch(ctx) })
}

// WatchPresses starts a watch of presses ([Listener.WatchPresses]) on a
// listener of opts, as Watch does.
func (h *Holder) WatchPresses(ctx context.Context, opts Options, p PressOptions) (*Watch, error) {
	return h.start(ctx, opts, func(l *Listener) (*Watch, error) { return l.WatchPresses(ctx, p) })
}

// start runs watch on the listener, once more on a new one when the
// display failed the old.
func (h *Holder) start(ctx context.Context, opts Options, watch func(*Listener) (*Watch, error)) (*Watch, error) {
	for try := 0; ; try++ {
		l, err := h.listener(ctx, opts)
		if err != nil {
			return nil, err
		}
		w, err := watch(l)
		if err == nil {
			return w, nil
		}
		if !errors.Is(err, ErrNoWatch) || try > 0 {
			return nil, err
		}
		h.drop(l) // lost its display: once more, on a new connection
	}
}

func (h *Holder) listener(ctx context.Context, opts Options) (*Listener, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, fmt.Errorf("%w: it is closed", ErrNoWatch)
	}
	if h.l == nil {
		l, err := NewListener(ctx, opts)
		if err != nil {
			return nil, err
		}
		h.l = l
	}
	return h.l, nil
}

func (h *Holder) drop(l *Listener) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.l == l {
		h.l = nil
		l.Close()
	}
}

// Close closes the listener, if one is open; no watch starts after it.
func (h *Holder) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	if h.l == nil {
		return nil
	}
	err := h.l.Close()
	h.l = nil
	return err
}

// Unwatched opens h's listener, if none is open, and says why it cannot
// (an error wrapping ErrNoWatch), or nil.
func (h *Holder) Unwatched(opts Options) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err := h.listener(ctx, opts)
	return err
}
