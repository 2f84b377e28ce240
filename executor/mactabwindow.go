package executor

// The macOS side of finding a tab's window and checking that an act's
// input lands in it, over CGWindowList's records: pure, so that it is
// tested on any OS. Unverified on a Mac: written from Apple's documented
// keys (kCGWindowNumber, kCGWindowBounds, kCGWindowOwnerPID, the layer),
// not yet run against a real window server.

// macTabCandidates are the visible normal-layer windows of ws at b (in
// points, which are DIP), each with its application (app) and whether it
// is the front window of the application with the keyboard focus.
func macTabCandidates(ws []macWindowInfo, b Bounds, focusPID int, app func(macWindowInfo) App) []tabCandidate {
	key, hasKey := macKeyWindow(ws, focusPID)
	var out []tabCandidate
	for _, w := range ws {
		if w.Layer != 0 || w.Alpha <= 0 || !b.Fits(w.Bounds.X, w.Bounds.Y, w.Bounds.Width, w.Bounds.Height) {
			continue
		}
		out = append(out, tabCandidate{
			id:    uint64(w.Number),
			app:   app(w),
			title: w.Name,
			front: hasKey && key.Number == w.Number,
		})
	}
	return out
}

// macKeyWindow is the window that takes the keys of the application with
// process pid: its front visible normal-layer window, listed front to
// back. An application keeps one key window, and brings it to its front.
func macKeyWindow(ws []macWindowInfo, pid int) (macWindowInfo, bool) {
	if pid <= 0 {
		return macWindowInfo{}, false
	}
	for _, w := range ws {
		if w.OwnerPID == pid && w.Layer == 0 && w.Alpha > 0 && w.Bounds.Width > 0 && w.Bounds.Height > 0 {
			return w, true
		}
	}
	return macWindowInfo{}, false
}
