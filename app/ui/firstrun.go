package ui

import (
	"encoding/json"
	"fmt"
	"runtime"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/reins-app/reins/persondoor"
)

// AccessibilityPane is System Settings › Privacy & Security › Accessibility.
const AccessibilityPane = "x-apple.systempreferences:com.apple.preference.security?Privacy_Accessibility"

// InputMonitoringPane is System Settings › Privacy & Security › Input
// Monitoring.
const InputMonitoringPane = "x-apple.systempreferences:com.apple.preference.security?Privacy_ListenEvent"

// FirstRunOptions configures [NewFirstRun].
type FirstRunOptions struct {
	Settings        Settings
	Engine          persondoor.Door        // required: ticks come from its state
	RevealExtension func() (string, error) // optional: writes the extension out and opens its folder
	OpenURL         func(url string) error // optional: opens chrome://extensions or System Settings
	Copy            func(text string)      // optional: the clipboard
	Accessibility   func() bool            // optional: whether Reins may post input (macOS)
	GOOS            string                 // optional: default runtime.GOOS
	// RequestAccessibility has macOS ask the person to let Reins post
	// input, at most once, and reports whether it may now. optional:
	// without it the Accessibility button only opens System Settings.
	RequestAccessibility func() bool
	// InputMonitoring reports whether Reins may watch the keyboard and
	// mouse, which telling the person's hand from its own input needs
	// (macOS). optional: without it the step asks for Accessibility only.
	InputMonitoring func() bool
	// RequestInputMonitoring has macOS ask the person for it, at most
	// once, and reports whether Reins may now. optional.
	RequestInputMonitoring func() bool
}

// FirstRun is the three steps that make Reins work, each with one button
// and a tick when done.
type FirstRun struct {
	opts    FirstRunOptions
	ticks   [3]*canvas.Text
	nums    [3]*canvas.Text
	notes   [3]*widget.RichText
	access  *widget.Button
	asked   bool // the access button has had macOS ask once for Accessibility
	askedIn bool // …and once for Input Monitoring
	agent   *widget.Select
	content fyne.CanvasObject
}

// MCPConfig is the snippet that adds Reins to an agent.
func MCPConfig(agent, exe string) string {
	if exe == "" {
		exe = "reins"
	}
	switch agent {
	case "Claude Code":
		return fmt.Sprintf("claude mcp add reins -- %s mcp", shellQuote(exe))
	case "Codex":
		return fmt.Sprintf("[mcp_servers.reins]\ncommand = %q\nargs = [\"mcp\"]\n", exe)
	}
	b, _ := json.MarshalIndent(map[string]any{"mcpServers": map[string]any{"reins": map[string]any{"command": exe, "args": []string{"mcp"}}}}, "", "  ")
	return string(b)
}

func shellQuote(s string) string {
	for _, r := range s {
		if !(r == '/' || r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return "'" + s + "'"
		}
	}
	return s
}

// NewFirstRun builds the first-run window's content.
func NewFirstRun(opts FirstRunOptions) *FirstRun {
	if opts.GOOS == "" {
		opts.GOOS = runtime.GOOS
	}
	f := &FirstRun{opts: opts}
	for i := range f.ticks {
		f.ticks[i] = canvas.NewText("", themeColor(colorAccent))
		f.ticks[i].TextSize = 18
		f.ticks[i].TextStyle.Bold = true
		f.notes[i] = para()
		f.notes[i].Hide()
	}
	reveal := widget.NewButton("Reveal the extension", func() {
		if opts.RevealExtension == nil {
			return
		}
		dir, err := opts.RevealExtension()
		if err != nil {
			setRich(f.notes[0], seg{text: err.Error(), color: colorRed, size: theme.SizeNameCaptionText})
			f.notes[0].Show()
			return
		}
		if opts.OpenURL != nil {
			opts.OpenURL("chrome://extensions")
		}
		setRich(f.notes[0], seg{text: "Written to " + dir + ". In chrome://extensions, turn on Developer mode, choose “Load unpacked” and pick that folder.", color: colorSecondary, size: theme.SizeNameCaptionText})
		f.notes[0].Show()
	})
	access := widget.NewButton("Open Accessibility settings", f.allowAccess)
	if opts.RequestAccessibility != nil {
		access.SetText("Allow Reins…")
	}
	f.access = access
	f.agent = widget.NewSelect([]string{"Claude Code", "Codex", "Cursor"}, nil)
	f.agent.Selected = "Claude Code"
	copyBtn := widget.NewButton("Copy the MCP config", func() {
		text := MCPConfig(f.agent.Selected, opts.Settings.Executable)
		if opts.Copy != nil {
			opts.Copy(text)
		}
		setRich(f.notes[2], seg{text: "Copied. ", bold: true, size: theme.SizeNameCaptionText},
			seg{text: hintFor(f.agent.Selected), color: colorSecondary, size: theme.SizeNameCaptionText})
		f.notes[2].Show()
	})

	accessTitle, accessBody := "Allow Reins to control the pointer", "Reins clicks and types only after you approve each act. macOS asks you to allow it once, in System Settings › Privacy & Security › Accessibility."
	if opts.InputMonitoring != nil {
		accessBody += " Then, under Input Monitoring, allow Reins to tell your own keyboard and mouse from its input, so that an act stops the moment you reach for them; Reins keeps no keys."
	}
	if opts.GOOS != "darwin" {
		accessTitle, accessBody = "Control the pointer", "On Linux (X11) Reins needs no extra permission to click and type; it still asks you before each act."
		access.Hide()
	}
	warning := canvas.NewRectangle(themeColor(colorAmber))
	warning.CornerRadius = 2
	f.content = inset(container.NewVBox(
		heading("Welcome to Reins"),
		secondary("Three steps, and agents can ask to use the Chrome tabs you share — each click and keystroke waits for your approval."),
		f.step(0, "Load the Chrome extension", "It only looks: it reads the tabs you share and never clicks or types itself.", reveal),
		f.step(1, accessTitle, accessBody, access),
		f.step(2, "Connect an agent", "Add Reins to Claude Code, Codex or Cursor as an MCP server.", container.NewHBox(f.agent, copyBtn)),
		container.NewBorder(nil, nil, sized(warning, 4, 10), nil,
			para(seg{text: "Do not give an agent's terminal Accessibility permission. ", bold: true},
				seg{text: "A program with that permission can click and type anywhere without asking, and Reins cannot stop it.", color: colorSecondary})),
	))
	f.Refresh()
	return f
}

// allowAccess is the Accessibility step's button. The first press has macOS
// ask, with its own dialog; later presses, or the first when macOS cannot be
// made to ask, open the settings pane.
func (f *FirstRun) allowAccess() {
	if f.accessibilityAllowed() && f.opts.InputMonitoring != nil && !f.opts.InputMonitoring() {
		f.allowInputMonitoring()
		return
	}
	f.askOrOpen(&f.asked, f.opts.RequestAccessibility, "Open Accessibility settings",
		"macOS is asking: choose “Open System Settings” and turn Reins on. If no dialog appeared, open the settings with this button.",
		AccessibilityPane)
}

// allowInputMonitoring is the step's button once Accessibility is given:
// the first press has macOS ask for Input Monitoring, later ones open its
// pane. A grant there takes effect when Reins is reopened.
func (f *FirstRun) allowInputMonitoring() {
	f.askOrOpen(&f.askedIn, f.opts.RequestInputMonitoring, "Open Input Monitoring settings",
		"macOS is asking to let Reins watch the keyboard and mouse: choose “Open System Settings”, turn Reins on under Input Monitoring, then quit and reopen Reins.",
		InputMonitoringPane)
}

// askOrOpen is a permission step's press: the first, when request is set,
// has macOS ask (the button then says it opens the settings, and note
// shows unless the grant came at once); later ones open pane.
func (f *FirstRun) askOrOpen(asked *bool, request func() bool, button, note, pane string) {
	if request != nil && !*asked {
		*asked = true
		f.access.SetText(button)
		if request() {
			f.notes[1].Hide()
			f.Refresh()
			return
		}
		setRich(f.notes[1], seg{text: note, color: colorSecondary, size: theme.SizeNameCaptionText})
		f.notes[1].Show()
		f.Refresh()
		return
	}
	if f.opts.OpenURL != nil {
		f.opts.OpenURL(pane)
	}
	f.Refresh()
}

// accessibilityAllowed reports whether Reins may post input.
func (f *FirstRun) accessibilityAllowed() bool {
	if f.opts.Accessibility != nil {
		return f.opts.Accessibility()
	}
	return f.opts.GOOS != "darwin"
}

func hintFor(agent string) string {
	switch agent {
	case "Claude Code":
		return "Paste it in a terminal."
	case "Codex":
		return "Paste it into ~/.codex/config.toml."
	}
	return "Paste it into ~/.cursor/mcp.json."
}

func (f *FirstRun) step(i int, title, body string, action fyne.CanvasObject) fyne.CanvasObject {
	num := canvas.NewText(fmt.Sprint(i+1), themeColor(colorSecondary))
	num.TextSize = 18
	num.TextStyle.Bold = true
	f.nums[i] = num
	badge := container.NewStack(container.NewCenter(num), container.NewCenter(f.ticks[i]))
	return card(container.NewBorder(nil, nil, container.NewVBox(sized(badge, 28, 36)), nil,
		container.NewVBox(
			para(seg{text: title, bold: true}, seg{text: "\n"}, seg{text: body, color: colorSecondary, size: theme.SizeNameCaptionText}),
			container.NewHBox(action, layout.NewSpacer()),
			f.notes[i],
		)))
}

// Done reports which steps are done: extension connected, pointer control
// allowed (and, where asked, the watch on the person's hand), an agent
// connected.
func (f *FirstRun) Done() [3]bool {
	e := f.opts.Engine
	access := f.accessibilityAllowed()
	if access && f.opts.InputMonitoring != nil {
		access = f.opts.InputMonitoring()
	}
	return [3]bool{e.Connected(), access, len(e.Agents()) > 0}
}

// Refresh re-reads the steps' ticks, and names what the permission step's
// button does next.
func (f *FirstRun) Refresh() {
	if f.opts.InputMonitoring != nil && f.access != nil && f.accessibilityAllowed() && !f.opts.InputMonitoring() {
		label := "Open Input Monitoring settings"
		if f.opts.RequestInputMonitoring != nil && !f.askedIn {
			label = "Allow Input Monitoring…"
		}
		f.access.SetText(label)
	}
	for i, done := range f.Done() {
		if done {
			f.ticks[i].Text = "✓"
			f.nums[i].Hide()
		} else {
			f.ticks[i].Text = ""
			f.nums[i].Show()
		}
		f.ticks[i].Refresh()
	}
}

// Content is what the first-run window shows.
func (f *FirstRun) Content() fyne.CanvasObject { return f.content }
