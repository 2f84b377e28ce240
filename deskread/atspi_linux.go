package deskread

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"

	gdesktop "github.com/reins-app/reins/grounding/desktop"
)

// AT-SPI2 over D-Bus, as at-spi2-core 2.46 (Debian 12) and its ATK bridge
// (GTK 3) speak it: the accessibility bus's address is asked of the session
// bus; its registry lists the applications; each application answers for
// its own elements.
const (
	a11yBusName  = "org.a11y.Bus"
	a11yBusPath  = "/org/a11y/bus"
	registryName = "org.a11y.atspi.Registry"
	registryPath = "/org/a11y/atspi/registry"
	rootPath     = "/org/a11y/atspi/accessible/root"
	nullPath     = "/org/a11y/atspi/null"
	cachePath    = "/org/a11y/atspi/cache"

	ifaceAccessible   = "org.a11y.atspi.Accessible"
	ifaceComponent    = "org.a11y.atspi.Component"
	ifaceEditableText = "org.a11y.atspi.EditableText"
	ifaceText         = "org.a11y.atspi.Text"
	ifaceValue        = "org.a11y.atspi.Value"
	ifaceCache        = "org.a11y.atspi.Cache"
	ifaceProperties   = "org.freedesktop.DBus.Properties"

	coordScreen = 0 // ATSPI_COORD_TYPE_SCREEN

	// rolePasswordText is ATSPI_ROLE_PASSWORD_TEXT.
	rolePasswordText     = 40
	rolePasswordTextName = "password text"
)

// AtspiStateType bit numbers.
const (
	stateActive             = 1
	stateChecked            = 4
	stateEditable           = 7
	stateEnabled            = 8
	stateExpandable         = 9
	stateExpanded           = 10
	stateFocusable          = 11
	stateFocused            = 12
	stateSelected           = 23
	stateSensitive          = 24
	stateShowing            = 25
	stateVisible            = 30
	stateManagesDescendants = 31
	stateCheckable          = 41
)

// AccessibleSource chooses how an application's elements are read.
type AccessibleSource int

const (
	// AccessibleAuto reads through the application's Cache interface where
	// it offers one, else element by element.
	AccessibleAuto AccessibleSource = iota
	// AccessibleCache reads through the Cache interface only: one call for
	// roles, names and states, then one per element for its box.
	AccessibleCache
	// AccessibleWalk asks each element for its role, name, states,
	// children and box.
	AccessibleWalk
)

// AccessibleOptions configures [OpenAccessible] and [ReadAccessible].
type AccessibleOptions struct {
	SessionBus  string           // optional: the session bus address; default $DBUS_SESSION_BUS_ADDRESS
	Source      AccessibleSource // optional: default AccessibleAuto
	MaxElements int              // optional: elements read per window; default 5,000 (see limits.go)
	MaxDepth    int              // optional: depth below the window; default 64
	MaxValue    int              // optional: characters of an element's text read; default 1000
	CallTimeout time.Duration    // optional: the deadline of each call to an application; default 2s
}

func (o *AccessibleOptions) defaults() {
	fillBounds(&o.MaxElements, &o.MaxDepth, &o.MaxValue, &o.CallTimeout)
}

// Errors a reader of the desktop may see.
var (
	ErrNoAccessibilityBus = errors.New("the desktop's accessibility bus cannot be reached; without it native applications cannot be read (is at-spi2-core installed and a session bus running?)")
	ErrNoAccessibleApp    = errors.New("the application is not on the accessibility bus; it may not support accessibility, or not have started it yet (GTK 3: NO_AT_BRIDGE must be unset; Qt: QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1)")
	ErrNoAccessibleWindow = errors.New("the application shows no window on the accessibility bus")
	ErrNoCache            = errors.New("the application offers no accessibility cache; read it element by element")
	// errCacheShort: the cache lacks elements the application has.
	errCacheShort = errors.New("the application's accessibility cache does not hold all its elements; read it element by element")
)

// AccessibleReader reads applications' accessibility elements over one
// connection to the accessibility bus. It is safe for concurrent use.
type AccessibleReader struct {
	opts AccessibleOptions
	bus  *dbus.Conn
}

// OpenAccessible connects to the accessibility bus, asking the session bus
// for its address, and listens for one kind of event (see listen). ctx
// bounds the opening only; each step also has the CallTimeout.
func OpenAccessible(ctx context.Context, opts AccessibleOptions) (*AccessibleReader, error) {
	opts.defaults()
	session := opts.SessionBus
	if session == "" {
		session = os.Getenv("DBUS_SESSION_BUS_ADDRESS")
	}
	if session == "" {
		return nil, fmt.Errorf("%w: DBUS_SESSION_BUS_ADDRESS is not set", ErrNoAccessibilityBus)
	}
	step := func() (context.Context, context.CancelFunc) { return context.WithTimeout(ctx, opts.CallTimeout) }
	sctx, cancel := step()
	defer cancel()
	sconn, err := connectBus(sctx, session)
	if err != nil {
		return nil, fmt.Errorf("%w: session bus: %v", ErrNoAccessibilityBus, err)
	}
	defer sconn.Close()
	actx, cancel := step()
	defer cancel()
	var addr string
	// GetAddress starts the accessibility bus if it is not running.
	if err := sconn.Object(a11yBusName, a11yBusPath).CallWithContext(actx, a11yBusName+".GetAddress", 0).Store(&addr); err != nil {
		return nil, fmt.Errorf("%w: %s.GetAddress: %v", ErrNoAccessibilityBus, a11yBusName, err)
	}
	bctx, cancel := step()
	defer cancel()
	bus, err := connectBus(bctx, addr)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrNoAccessibilityBus, addr, err)
	}
	lctx, cancel := step()
	defer cancel()
	if err := listen(lctx, bus); err != nil {
		bus.Close()
		return nil, fmt.Errorf("%w: %s.RegisterEvent: %v", ErrNoAccessibilityBus, registryName, err)
	}
	return &AccessibleReader{opts: opts, bus: bus}, nil
}

// listen registers this connection for one kind of event. The ATK bridge
// (GTK 3) offers its Cache only once some client listens to events, as a
// screen reader does; the registry forgets the listener when the
// connection closes. "window:activate" is rare, so it costs the desktop
// next to nothing.
func listen(ctx context.Context, bus *dbus.Conn) error {
	reg := bus.Object(registryName, registryPath)
	err := reg.CallWithContext(ctx, registryName+".RegisterEvent", 0, "window:activate").Err
	var de dbus.Error
	if errors.As(err, &de) && de.Name == "org.freedesktop.DBus.Error.InvalidArgs" {
		// Newer registries take the properties wanted and an application.
		err = reg.CallWithContext(ctx, registryName+".RegisterEvent", 0, "window:activate", []string{}, "").Err
	}
	return err
}

// connectBus dials, authenticates and says hello within ctx.
func connectBus(ctx context.Context, addr string) (*dbus.Conn, error) {
	type result struct {
		conn *dbus.Conn
		err  error
	}
	got := make(chan result, 1)
	go func() {
		c, err := dbus.Connect(addr)
		got <- result{c, err}
	}()
	select {
	case r := <-got:
		return r.conn, r.err
	case <-ctx.Done():
		go func() {
			if r := <-got; r.conn != nil {
				r.conn.Close()
			}
		}()
		return nil, ctx.Err()
	}
}

// Close closes the connection to the accessibility bus.
func (r *AccessibleReader) Close() error { return r.bus.Close() }

// ReadAccessible reads the elements of the active (else the first) window
// of the application with process id pid, over a connection of its own.
func ReadAccessible(ctx context.Context, pid int, opts AccessibleOptions) (*gdesktop.Tree, error) {
	r, err := OpenAccessible(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.Read(ctx, pid)
}

// Read reads the elements of the active (else the first) window of the
// application with process id pid: roles, names, states, boxes on screen
// (device pixels on X) and the text of editable fields. A password field's
// text is never asked for: the element is marked Secret instead. Every
// call has the reader's CallTimeout, so an application that hangs fails
// the read with an error that names it. A container that manages its
// descendants (a huge table) is read without its children.
func (r *AccessibleReader) Read(ctx context.Context, pid int) (*gdesktop.Tree, error) {
	a, err := r.find(ctx, pid)
	if err != nil {
		return nil, err
	}
	var tree *gdesktop.Tree
	switch r.opts.Source {
	case AccessibleWalk:
		tree, err = a.walkTree(ctx)
	case AccessibleCache:
		tree, err = a.cacheTree(ctx)
	default:
		tree, err = a.cacheTree(ctx)
		if errors.Is(err, ErrNoCache) || errors.Is(err, errCacheShort) {
			tree, err = a.walkTree(ctx)
		}
	}
	if err != nil {
		return nil, err
	}
	tree.PID = pid
	tree.App = a.name
	return tree, nil
}

// ref is an AT-SPI object reference: a bus name and an object path.
type ref struct {
	Bus  string
	Path dbus.ObjectPath
}

func (f ref) null() bool { return f.Path == "" || f.Path == nullPath }

// app is one application being read.
type app struct {
	r    *AccessibleReader
	pid  int
	root ref
	name string // learnt from the application; "" until then
	comm string // the process's command name, to name it before then
}

func (a *app) String() string {
	if a.name != "" {
		return fmt.Sprintf("application %q (pid %d, %s)", a.name, a.pid, a.root.Bus)
	}
	if a.comm != "" {
		return fmt.Sprintf("application %s (pid %d, %s)", a.comm, a.pid, a.root.Bus)
	}
	return fmt.Sprintf("the application with pid %d (%s)", a.pid, a.root.Bus)
}

// fail says which application did not answer which call.
func (a *app) fail(method string, err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%v did not answer %s within %v; it may be hung: try again, or read it from a screenshot: %w", a, method, a.r.opts.CallTimeout, err)
	}
	return fmt.Errorf("%v: %s: %w", a, method, err)
}

// find looks the application up in the registry by its process id. Only
// the registry and the bus daemon are asked, so a hung application
// elsewhere on the desktop cannot stall it.
func (r *AccessibleReader) find(ctx context.Context, pid int) (*app, error) {
	cctx, cancel := context.WithTimeout(ctx, r.opts.CallTimeout)
	defer cancel()
	var apps []ref
	if err := r.bus.Object(registryName, rootPath).CallWithContext(cctx, ifaceAccessible+".GetChildren", 0).Store(&apps); err != nil {
		return nil, fmt.Errorf("%w: the registry did not list applications: %v", ErrNoAccessibilityBus, err)
	}
	daemon := r.bus.BusObject()
	calls := make([]*dbus.Call, len(apps))
	done := make(chan *dbus.Call, len(apps))
	for i, ap := range apps {
		calls[i] = daemon.GoWithContext(cctx, "org.freedesktop.DBus.GetConnectionUnixProcessID", 0, done, ap.Bus)
	}
	for range apps {
		<-done
	}
	for i, c := range calls {
		var got uint32
		if c.Err != nil || c.Store(&got) != nil || int(got) != pid {
			continue
		}
		comm, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
		return &app{r: r, pid: pid, root: apps[i], comm: strings.TrimSpace(string(comm))}, nil
	}
	return nil, fmt.Errorf("%w (pid %d)", ErrNoAccessibleApp, pid)
}

// maxInFlight bounds the calls a batch has outstanding, under the bus
// daemon's limit on pending replies per connection.
const maxInFlight = 256

// batch issues calls to the application without waiting for each answer:
// the application's main loop answers them back to back. Each call has
// its own deadline.
type batch struct {
	a        *app
	ctx      context.Context
	calls    []*dbus.Call
	names    []string
	cancels  []context.CancelFunc
	done     chan *dbus.Call
	inFlight int
}

// batch returns a batch for at most n calls.
func (a *app) batch(ctx context.Context, n int) *batch {
	return &batch{a: a, ctx: ctx, done: make(chan *dbus.Call, n)}
}

// add issues method on obj and returns the index of its answer.
func (b *batch) add(obj ref, method string, args ...any) int {
	if b.inFlight >= maxInFlight {
		<-b.done
		b.inFlight--
	}
	ctx, cancel := context.WithTimeout(b.ctx, b.a.r.opts.CallTimeout)
	c := b.a.r.bus.Object(obj.Bus, obj.Path).GoWithContext(ctx, method, 0, b.done, args...)
	b.calls = append(b.calls, c)
	b.names = append(b.names, method)
	b.cancels = append(b.cancels, cancel)
	b.inFlight++
	return len(b.calls) - 1
}

// wait waits for every call and returns the first that timed out, named.
func (b *batch) wait() error {
	for ; b.inFlight > 0; b.inFlight-- {
		<-b.done
	}
	for _, cancel := range b.cancels {
		cancel()
	}
	for i, c := range b.calls {
		if c.Err != nil && errors.Is(c.Err, context.DeadlineExceeded) {
			return b.a.fail(b.names[i], c.Err)
		}
	}
	return nil
}

// node is what is known of an element before it is placed in the tree.
type node struct {
	ref        ref
	parent     ref
	index      int
	role       uint32
	roleName   string
	name       string
	states     []uint32
	interfaces []string
	children   []ref // from GetChildren, or from an old-style cache item
	// childCount is the number of children the application says the node
	// has, from a cache item; -1 when unknown.
	childCount int
}

func (n *node) has(state uint) bool {
	w := int(state / 32)
	return w < len(n.states) && n.states[w]&(1<<(state%32)) != 0
}

func (n *node) implements(iface string) bool {
	for _, s := range n.interfaces {
		if s == iface {
			return true
		}
	}
	return false
}

func (n *node) secret() bool {
	return n.role == rolePasswordText || n.roleName == rolePasswordTextName
}

func (n *node) element() gdesktop.Element {
	return gdesktop.Element{
		ID:     string(n.ref.Path),
		Role:   n.roleName,
		Name:   n.name,
		Secret: n.secret(),
		State: gdesktop.States{
			Enabled:    n.has(stateEnabled) && n.has(stateSensitive),
			Focusable:  n.has(stateFocusable),
			Focused:    n.has(stateFocused),
			Checkable:  n.has(stateCheckable),
			Checked:    n.has(stateChecked),
			Expandable: n.has(stateExpandable),
			Expanded:   n.has(stateExpanded),
			Selected:   n.has(stateSelected),
			Editable:   n.has(stateEditable),
			Showing:    n.has(stateShowing),
			Visible:    n.has(stateVisible),
			Active:     n.has(stateActive),
		},
	}
}

// pickWindow returns the active window, else the first showing one, else
// the first.
func pickWindow(windows []*node) *node {
	if len(windows) == 0 {
		return nil
	}
	for _, w := range windows {
		if w.has(stateActive) {
			return w
		}
	}
	for _, w := range windows {
		if w.has(stateShowing) {
			return w
		}
	}
	return windows[0]
}

// readNodes asks each element for what the walk needs, all at once.
func (a *app) readNodes(ctx context.Context, refs []ref) ([]*node, error) {
	b := a.batch(ctx, 6*len(refs))
	type idx struct{ role, roleName, name, state, ifaces, children int }
	ids := make([]idx, len(refs))
	for i, f := range refs {
		ids[i] = idx{
			role:     b.add(f, ifaceAccessible+".GetRole"),
			roleName: b.add(f, ifaceAccessible+".GetRoleName"),
			name:     b.add(f, ifaceProperties+".Get", ifaceAccessible, "Name"),
			state:    b.add(f, ifaceAccessible+".GetState"),
			ifaces:   b.add(f, ifaceAccessible+".GetInterfaces"),
			children: b.add(f, ifaceAccessible+".GetChildren"),
		}
	}
	if err := b.wait(); err != nil {
		return nil, err
	}
	nodes := make([]*node, len(refs))
	for i, f := range refs {
		n := &node{ref: f}
		id := ids[i]
		_ = b.calls[id.role].Store(&n.role)
		_ = b.calls[id.roleName].Store(&n.roleName)
		var name dbus.Variant
		if b.calls[id.name].Store(&name) == nil {
			n.name, _ = name.Value().(string)
		}
		_ = b.calls[id.state].Store(&n.states)
		_ = b.calls[id.ifaces].Store(&n.interfaces)
		_ = b.calls[id.children].Store(&n.children)
		nodes[i] = n
	}
	return nodes, nil
}

// walkTree reads the window element by element, a level at a time.
func (a *app) walkTree(ctx context.Context) (*gdesktop.Tree, error) {
	roots, err := a.readNodes(ctx, []ref{a.root})
	if err != nil {
		return nil, err
	}
	a.name = roots[0].name
	windows, err := a.readNodes(ctx, live(roots[0].children))
	if err != nil {
		return nil, err
	}
	win := pickWindow(windows)
	if win == nil {
		return nil, fmt.Errorf("%v: %w", a, ErrNoAccessibleWindow)
	}
	tree := &gdesktop.Tree{Source: "walk"}
	// Breadth first, so that each level's calls go out together. seen
	// guards against an application that lists an ancestor as a child.
	type item struct {
		n      *node
		parent ref
		depth  int
	}
	seen := map[ref]bool{win.ref: true}
	children := map[ref][]*node{}
	nodes := []*node{win}
	level := []item{{n: win}}
	for len(level) > 0 {
		var next []item
		var refs []ref
		for _, it := range level {
			if it.n.has(stateManagesDescendants) {
				continue
			}
			for _, c := range live(it.n.children) {
				if seen[c] {
					continue
				}
				if it.depth >= a.r.opts.MaxDepth || len(nodes)+len(refs) >= a.r.opts.MaxElements {
					tree.Truncated = true
					break
				}
				seen[c] = true
				refs = append(refs, c)
				next = append(next, item{parent: it.n.ref, depth: it.depth + 1})
			}
		}
		if len(refs) == 0 {
			break
		}
		read, err := a.readNodes(ctx, refs)
		if err != nil {
			return nil, err
		}
		for i, n := range read {
			next[i].n = n
			children[next[i].parent] = append(children[next[i].parent], n)
		}
		nodes = append(nodes, read...)
		level = next
	}
	root, err := a.build(ctx, win, children, nodes)
	if err != nil {
		return nil, err
	}
	tree.Root = root
	tree.Count = len(nodes)
	return tree, nil
}

// live drops null references.
func live(refs []ref) []ref {
	out := refs[:0:0]
	for _, f := range refs {
		if !f.null() {
			out = append(out, f)
		}
	}
	return out
}

// build asks every node of the window for its box and, where allowed, its
// value, all at once, and assembles the elements under win.
func (a *app) build(ctx context.Context, win *node, children map[ref][]*node, nodes []*node) (gdesktop.Element, error) {
	b := a.batch(ctx, 2*len(nodes))
	boxAt := make(map[ref]int, len(nodes))
	textAt := map[ref]int{}
	valueAt := map[ref]int{}
	for _, n := range nodes {
		// A walked node lists its interfaces; ask for a box even when it
		// lists none, as an old bridge may not say.
		if n.implements(ifaceComponent) || len(n.interfaces) == 0 {
			boxAt[n.ref] = b.add(n.ref, ifaceComponent+".GetExtents", uint32(coordScreen))
		}
		if n.secret() {
			continue
		}
		switch {
		case n.implements(ifaceEditableText) && n.implements(ifaceText):
			textAt[n.ref] = b.add(n.ref, ifaceText+".GetText", int32(0), int32(a.r.opts.MaxValue))
		case n.implements(ifaceValue):
			valueAt[n.ref] = b.add(n.ref, ifaceProperties+".Get", ifaceValue, "CurrentValue")
		}
	}
	if err := b.wait(); err != nil {
		return gdesktop.Element{}, err
	}
	var elementOf func(n *node) gdesktop.Element
	elementOf = func(n *node) gdesktop.Element {
		e := n.element()
		if i, ok := boxAt[n.ref]; ok {
			var box struct{ X, Y, W, H int32 }
			if b.calls[i].Store(&box) == nil && box.W > 0 && box.H > 0 {
				e.Box = gdesktop.Rect{X: int(box.X), Y: int(box.Y), W: int(box.W), H: int(box.H)}
			}
		}
		if i, ok := textAt[n.ref]; ok {
			_ = b.calls[i].Store(&e.Value)
		}
		if i, ok := valueAt[n.ref]; ok {
			var v dbus.Variant
			if b.calls[i].Store(&v) == nil {
				if f, ok := v.Value().(float64); ok {
					e.Value = strconv.FormatFloat(f, 'g', -1, 64)
				}
			}
		}
		for _, c := range children[n.ref] {
			e.Children = append(e.Children, elementOf(c))
		}
		return e
	}
	return elementOf(win), nil
}

// cacheTree reads the window through the application's Cache interface:
// one call for every element's role, name, states and place in the tree,
// then one per element for its box.
func (a *app) cacheTree(ctx context.Context) (*gdesktop.Tree, error) {
	b := a.batch(ctx, 2)
	items := b.add(ref{a.root.Bus, cachePath}, ifaceCache+".GetItems")
	name := b.add(a.root, ifaceProperties+".Get", ifaceAccessible, "Name")
	if err := b.wait(); err != nil {
		return nil, err
	}
	var v dbus.Variant
	if b.calls[name].Store(&v) == nil {
		a.name, _ = v.Value().(string)
	}
	call := b.calls[items]
	if call.Err != nil {
		var de dbus.Error
		if errors.As(call.Err, &de) && (de.Name == "org.freedesktop.DBus.Error.UnknownMethod" || de.Name == "org.freedesktop.DBus.Error.UnknownObject" || de.Name == "org.freedesktop.DBus.Error.UnknownInterface") {
			return nil, fmt.Errorf("%v: %w", a, ErrNoCache)
		}
		return nil, a.fail(ifaceCache+".GetItems", call.Err)
	}
	if len(call.Body) != 1 {
		return nil, fmt.Errorf("%v: %s answered %d values, not 1", a, ifaceCache+".GetItems", len(call.Body))
	}
	raw, ok := call.Body[0].([][]any)
	if !ok {
		if list, ok2 := call.Body[0].([]any); ok2 {
			for _, it := range list {
				fields, ok3 := it.([]any)
				if !ok3 {
					break
				}
				raw = append(raw, fields)
			}
			ok = len(raw) == len(list)
		}
	}
	if !ok {
		return nil, fmt.Errorf("%v: %s answered %s, which is not a list of items", a, ifaceCache+".GetItems", dbus.SignatureOf(call.Body[0]))
	}
	byRef := make(map[ref]*node, len(raw))
	var all []*node
	for _, fields := range raw {
		n, err := cacheItem(fields)
		if err != nil {
			return nil, fmt.Errorf("%v: %s: %w", a, ifaceCache+".GetItems", err)
		}
		byRef[n.ref] = n
		all = append(all, n)
	}
	children := map[ref][]*node{}
	for _, n := range all {
		if n.children != nil { // an old-style item lists its children
			for _, c := range n.children {
				if cn, ok := byRef[c]; ok {
					children[n.ref] = append(children[n.ref], cn)
				}
			}
			continue
		}
		if !n.parent.null() {
			children[n.parent] = append(children[n.parent], n)
		}
	}
	for _, cs := range children {
		sort.SliceStable(cs, func(i, j int) bool { return cs[i].index < cs[j].index })
	}
	root := ref{a.root.Bus, a.root.Path}
	win := pickWindow(children[root])
	if win == nil {
		return nil, fmt.Errorf("%v: %w", a, ErrNoAccessibleWindow)
	}
	// Keep the window's part of the tree, within the bounds.
	tree := &gdesktop.Tree{Source: "cache"}
	kept := map[ref][]*node{}
	nodes := []*node{win}
	seen := map[ref]bool{win.ref: true}
	type item struct {
		n     *node
		depth int
	}
	queue := []item{{win, 0}}
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		if it.n.has(stateManagesDescendants) {
			continue
		}
		if it.n.childCount > len(children[it.n.ref]) && it.depth < a.r.opts.MaxDepth {
			// The application has more than its cache holds: Chromium
			// and Electron apps cache their own window but not the
			// page's elements, made when first asked for.
			return nil, fmt.Errorf("%v: %w: %q has %d children, %d of them cached", a, errCacheShort, it.n.name, it.n.childCount, len(children[it.n.ref]))
		}
		for _, c := range children[it.n.ref] {
			if seen[c.ref] {
				continue
			}
			if it.depth >= a.r.opts.MaxDepth || len(nodes) >= a.r.opts.MaxElements {
				tree.Truncated = true
				break
			}
			seen[c.ref] = true
			kept[it.n.ref] = append(kept[it.n.ref], c)
			nodes = append(nodes, c)
			queue = append(queue, item{c, it.depth + 1})
		}
	}
	// The role names: one call per role the window holds, not per element.
	names, err := a.roleNames(ctx, nodes)
	if err != nil {
		return nil, err
	}
	for _, n := range nodes {
		n.roleName = names[n.role]
	}
	e, err := a.build(ctx, win, kept, nodes)
	if err != nil {
		return nil, err
	}
	tree.Root = e
	tree.Count = len(nodes)
	return tree, nil
}

// roleNames asks the application for the name of each distinct role among
// nodes, so that names are the platform's own and never a stale table.
func (a *app) roleNames(ctx context.Context, nodes []*node) (map[uint32]string, error) {
	first := map[uint32]ref{}
	for _, n := range nodes {
		if _, ok := first[n.role]; !ok {
			first[n.role] = n.ref
		}
	}
	b := a.batch(ctx, len(first))
	at := map[uint32]int{}
	for role, f := range first {
		at[role] = b.add(f, ifaceAccessible+".GetRoleName")
	}
	if err := b.wait(); err != nil {
		return nil, err
	}
	names := map[uint32]string{}
	for role, i := range at {
		var s string
		if b.calls[i].Store(&s) == nil {
			names[role] = s
		}
	}
	names[rolePasswordText] = rolePasswordTextName
	return names, nil
}

// cacheItem decodes one item of Cache.GetItems: a((so)(so)(so)iiassusau)
// since at-spi2-core 2.x (object, application, parent, index in parent,
// child count, interfaces, name, role, description, states), or the older
// a((so)(so)(so)a(so)assusau) with the children listed.
func cacheItem(f []any) (*node, error) {
	bad := func(what string) (*node, error) {
		return nil, fmt.Errorf("an item's %s is not as AT-SPI defines it (signature %s)", what, dbus.SignatureOf(f))
	}
	refOf := func(v any) (ref, bool) {
		s, ok := v.([]any)
		if !ok || len(s) != 2 {
			return ref{}, false
		}
		bus, ok1 := s[0].(string)
		path, ok2 := s[1].(dbus.ObjectPath)
		return ref{bus, path}, ok1 && ok2
	}
	if len(f) < 9 {
		return bad("length")
	}
	n := &node{}
	var ok bool
	if n.ref, ok = refOf(f[0]); !ok {
		return bad("reference")
	}
	if n.parent, ok = refOf(f[2]); !ok {
		return bad("parent")
	}
	rest := f[3:]
	switch idx := rest[0].(type) {
	case int32: // index, child count
		n.index = int(idx)
		count, ok := rest[1].(int32)
		if !ok {
			return bad("child count")
		}
		n.childCount = int(count)
		rest = rest[2:]
	case [][]any, []any: // children
		list, _ := idx.([]any)
		if l2, ok := idx.([][]any); ok {
			for _, x := range l2 {
				list = append(list, x)
			}
		}
		n.children = []ref{}
		n.childCount = -1
		for _, c := range list {
			cr, ok := refOf(c)
			if !ok {
				return bad("children")
			}
			n.children = append(n.children, cr)
		}
		rest = rest[1:]
	default:
		return bad("index in parent")
	}
	if len(rest) < 5 {
		return bad("length")
	}
	if n.interfaces, ok = rest[0].([]string); !ok {
		return bad("interfaces")
	}
	if n.name, ok = rest[1].(string); !ok {
		return bad("name")
	}
	if n.role, ok = rest[2].(uint32); !ok {
		return bad("role")
	}
	if n.states, ok = rest[4].([]uint32); !ok {
		return bad("states")
	}
	return n, nil
}

// maxAtDepth bounds how deep At follows GetAccessibleAtPoint.
const maxAtDepth = 64

// At returns the ID of the deepest element at the screen point (x, y), in
// device pixels, inside the element with ID window of the application with
// process id pid, asking the application itself (Component's
// GetAccessibleAtPoint, child by child): what it would hand the pointer to,
// not what the extents the reader read say.
func (r *AccessibleReader) At(ctx context.Context, pid int, window string, x, y int) (string, error) {
	a, err := r.find(ctx, pid)
	if err != nil {
		return "", err
	}
	cur := ref{Bus: a.root.Bus, Path: dbus.ObjectPath(window)}
	for range maxAtDepth {
		cctx, cancel := context.WithTimeout(ctx, r.opts.CallTimeout)
		var next ref
		err := r.bus.Object(cur.Bus, cur.Path).CallWithContext(cctx, ifaceComponent+".GetAccessibleAtPoint", 0, int32(x), int32(y), uint32(coordScreen)).Store(&next)
		cancel()
		if err != nil {
			return "", a.fail(ifaceComponent+".GetAccessibleAtPoint", err)
		}
		if next.null() || next == cur {
			break
		}
		cur = next
	}
	return string(cur.Path), nil
}
