// Package hotkey takes the pause chord for Reins across the whole desktop,
// so that the person can pause every agent from any application: an X key
// grab on the root window on Linux, a Carbon hot key on macOS. Which
// chords may pause is keychord's to say; which key a chord names on this
// keyboard, the executor's. Core starts it.
package hotkey

import (
	"context"

	"github.com/reins-app/reins/keychord"
)

// Options configures [Watch]. Which chords may pause every agent is
// keychord's to say ([keychord.CanonicalHotkey]).
type Options struct {
	Chord   string // required: e.g. keychord.PauseChord
	Display string // optional, X11: default $DISPLAY
	// Pressed is called, on the watcher's goroutine, each time the person
	// presses the chord. Required.
	Pressed func()
	// Ready, if set, is called once the chord is taken.
	Ready func()
}

// Watch takes the chord for Reins across the whole desktop and calls
// opts.Pressed whenever the person presses it, until ctx ends. It returns an
// error at once when the chord cannot be taken (another program holds it,
// no display), and nil when ctx ends.
func Watch(ctx context.Context, opts Options) error {
	c, err := keychord.Parse(opts.Chord)
	if err != nil {
		return err
	}
	return watch(ctx, c, opts)
}
