package grounding

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/reins-app/reins/bridge/protocol"
)

// ErrMissingTree is returned by Reader.Build when a frame answered "same" for
// a tree the reader no longer holds; ask again without Known.
var ErrMissingTree = errors.New("a frame sent no tree and none is held for it")

// Reader keeps the trees a tab's frames last sent, so that repeat snapshots
// of a page that barely changed cost little: a frame whose tree text is the
// version the app holds answers "same" and sends nothing, and a tab none of
// whose frames, zoom or window changed reuses the last stitched rendering.
type Reader struct {
	mu      sync.Mutex
	frames  map[int]held // guarded by mu; by frame id
	last    *Snapshot    // guarded by mu
	lastKey string       // guarded by mu
}

type held struct {
	doc     string
	version int
	root    *protocol.Node
}

// NewReader makes the reader of one tab.
func NewReader() *Reader { return &Reader{frames: map[int]held{}} }

// Known is what to send as SnapshotParams.Known.
func (r *Reader) Known() map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]string, len(r.frames))
	for id, h := range r.frames {
		out[strconv.Itoa(id)] = h.doc + ":" + strconv.Itoa(h.version)
	}
	return out
}

// Forget drops everything held, so the next snapshot is read in full.
func (r *Reader) Forget() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.frames = map[int]held{}
	r.last, r.lastKey = nil, ""
}

// Build is [Build] with the held trees: frames that answered Same get their
// held tree back, new trees are held for next time, and an unchanged tab gets
// the last snapshot again under the new id.
func (r *Reader) Build(res *protocol.SnapshotResult, refs *Refs, opts BuildOptions) (*Snapshot, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	live := make(map[int]held, len(res.Frames))
	for i := range res.Frames {
		f := &res.Frames[i]
		if f.Same {
			h, ok := r.frames[f.Frame]
			if !ok || h.doc != f.Doc || h.version != f.Version {
				r.frames = map[int]held{}
				return nil, fmt.Errorf("%w (frame %d)", ErrMissingTree, f.Frame)
			}
			f.Root = h.root
			live[f.Frame] = h
			continue
		}
		if err := f.Decode(); err != nil {
			f.Error = err.Error()
			continue
		}
		if f.Root != nil && f.Version > 0 {
			live[f.Frame] = held{doc: f.Doc, version: f.Version, root: f.Root}
		}
	}
	r.frames = live
	key := buildKey(res, opts)
	if r.last != nil && key != "" && key == r.lastKey {
		again := *r.last
		again.ID, again.Tab, again.Title = opts.ID, opts.Tab, opts.Title
		return &again, nil
	}
	s, err := Build(res, refs, opts)
	if err != nil {
		r.last, r.lastKey = nil, ""
		return nil, err
	}
	r.last, r.lastKey = s, key
	return s, nil
}

// buildKey names everything a stitched snapshot depends on; frames without a
// version (an older extension) never match.
func buildKey(res *protocol.SnapshotResult, opts BuildOptions) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%g|%s|%s", res.Zoom, opts.Tab, opts.Title)
	for _, f := range res.Frames {
		if f.Version == 0 {
			return ""
		}
		fmt.Fprintf(&b, "|%d.%d.%d.%s.%d.%d.%s.%v.%v.%t", f.Frame, f.Parent, f.Index, f.Doc, f.Epoch, f.Version, f.URL, f.Viewport, f.Window, f.Truncated)
	}
	return b.String()
}
