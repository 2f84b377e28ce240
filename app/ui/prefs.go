package ui

import (
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// NewPreferences shows the current settings. The core has no setters for
// them yet, so the window is read-only and says so; every change, once
// possible, goes through the core and is audited.
func NewPreferences(s Settings) fyne.CanvasObject {
	row := func(label string, value fyne.CanvasObject) fyne.CanvasObject {
		return container.NewBorder(nil, nil,
			sized(rich(seg{text: label, color: colorSecondary}), 190, 10), nil, value)
	}
	text := func(v string) fyne.CanvasObject { return rich(seg{text: v}) }
	deny := "—"
	if len(s.DenyList) > 0 {
		deny = strings.Join(s.DenyList, ", ")
	}
	hotkey := s.PauseHotkey
	if hotkey == "" {
		hotkey = "None registered (use the menu's “Pause all agents”)"
	}
	login := "Off"
	if s.StartAtLogin {
		login = "On"
	}
	port := "Picked when Reins starts"
	if s.BridgePort != 0 {
		port = fmt.Sprintf("127.0.0.1:%d", s.BridgePort)
	}
	group := func(title string, rows ...fyne.CanvasObject) fyne.CanvasObject {
		return container.NewVBox(rich(seg{text: title, bold: true, size: theme.SizeNameCaptionText, color: colorSecondary}),
			card(container.NewVBox(rows...)))
	}
	return inset(container.NewVBox(
		heading("Preferences"),
		group("APPROVALS",
			row("Time to answer", text(fmt.Sprintf("%s, then the act is denied", words(s.approvalTimeout())))),
			widget.NewSeparator(),
			row("“Allow on this tab” lasts", text(words(s.rememberFor())+"; never for passwords or payments")),
		),
		group("PROTECTION",
			rich(seg{text: "Never touched, even when an act is approved", color: colorSecondary}),
			para(seg{text: deny}),
			widget.NewSeparator(),
			row("Pause all agents", text(hotkey)),
		),
		group("THIS COMPUTER",
			row("Chrome extension port", text(port)),
			widget.NewSeparator(),
			row("Start at login", text(login)),
			widget.NewSeparator(),
			row("Data folder", text(s.DataDir)),
		),
		secondary("These are shown read-only for now: Reins cannot change them from here yet. When it can, every change will be written to the audit log."),
	))
}

// words says a duration the way a person would: "30 seconds", "10 minutes".
func words(d time.Duration) string {
	switch {
	case d%time.Minute == 0 && d >= time.Minute:
		n := int(d / time.Minute)
		if n == 1 {
			return "1 minute"
		}
		return fmt.Sprintf("%d minutes", n)
	default:
		n := int(d.Round(time.Second) / time.Second)
		if n == 1 {
			return "1 second"
		}
		return fmt.Sprintf("%d seconds", n)
	}
}
