package executor

import "context"

// HotkeyOptions configures [WatchHotkey]. Which chords may pause every
// agent is keychord's to say ([keychord.CanonicalHotkey]).
type HotkeyOptions struct {
	Chord   string // required: e.g. keychord.PauseChord
	Display string // optional, X11: default $DISPLAY
	// Pressed is called, on the watcher's goroutine, each time the person
	// presses the chord. Required.
	Pressed func()
	// Ready, if set, is called once the chord is taken.
	Ready func()
}

// WatchHotkey takes the chord for Reins across the whole desktop and calls
// opts.Pressed whenever the person presses it, until ctx ends. It returns an
// error at once when the chord cannot be taken (another program holds it,
// no display), and nil when ctx ends.
func WatchHotkey(ctx context.Context, opts HotkeyOptions) error {
	c, err := parseChord(opts.Chord)
	if err != nil {
		return err
	}
	return watchHotkey(ctx, c, opts)
}
