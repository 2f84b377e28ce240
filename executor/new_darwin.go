package executor

// New returns the executor for macOS. Options.Display and Options.Scale are
// for X11 and ignored here: CGEvent works in points.
func New(opts Options) (Executor, error) {
	return NewMac(MacOptions{DenyList: opts.DenyList, SheetFocus: opts.SheetFocus})
}
