package ui

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// The one accent, and the two warning colours: amber marks a refusal in the
// activity strip, red only what is refused or dangerous.
var (
	Accent = color.NRGBA{R: 0x1f, G: 0x5f, B: 0xd1, A: 0xff}
	Amber  = color.NRGBA{R: 0xc4, G: 0x7d, B: 0x05, A: 0xff}
	Red    = color.NRGBA{R: 0xc4, G: 0x32, B: 0x2b, A: 0xff}
)

// Colour and size names of the Reins theme beyond fyne's own.
const (
	colorSecondary fyne.ThemeColorName = "reinsSecondary" // secondary text
	colorAmber     fyne.ThemeColorName = "reinsAmber"
	colorRed       fyne.ThemeColorName = "reinsRed"
	colorAccent    fyne.ThemeColorName = "reinsAccent"
	colorPanel     fyne.ThemeColorName = "reinsPanel" // a card on the window's background
	colorHairline  fyne.ThemeColorName = "reinsHairline"

	sizeAct fyne.ThemeSizeName = "reinsAct" // the act's sentence, ≈17 pt
)

// Theme is fyne's default theme with Reins' accent, calmer secondary text
// and the sizes UI.md asks for.
type Theme struct{ base fyne.Theme }

// NewTheme returns the Reins theme.
func NewTheme() fyne.Theme { return &Theme{base: theme.DefaultTheme()} }

var _ fyne.Theme = (*Theme)(nil)

func (t *Theme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	dark := v == theme.VariantDark
	switch n {
	case theme.ColorNamePrimary, colorAccent, theme.ColorNameHyperlink:
		if dark {
			return color.NRGBA{R: 0x4c, G: 0x8d, B: 0xff, A: 0xff}
		}
		return Accent
	case theme.ColorNameFocus:
		return color.NRGBA{R: Accent.R, G: Accent.G, B: Accent.B, A: 0x55}
	case theme.ColorNameSelection:
		return color.NRGBA{R: Accent.R, G: Accent.G, B: Accent.B, A: 0x30}
	case theme.ColorNameBackground:
		if dark {
			return color.NRGBA{R: 0x1e, G: 0x1e, B: 0x20, A: 0xff}
		}
		return color.NRGBA{R: 0xf6, G: 0xf6, B: 0xf7, A: 0xff}
	case colorPanel, theme.ColorNameMenuBackground, theme.ColorNameOverlayBackground:
		if dark {
			return color.NRGBA{R: 0x2a, G: 0x2a, B: 0x2d, A: 0xff}
		}
		return color.White
	case theme.ColorNameInputBackground:
		if dark {
			return color.NRGBA{R: 0x33, G: 0x33, B: 0x36, A: 0xff}
		}
		return color.White
	case theme.ColorNameInputBorder, colorHairline, theme.ColorNameSeparator:
		if dark {
			return color.NRGBA{R: 0x44, G: 0x44, B: 0x48, A: 0xff}
		}
		return color.NRGBA{R: 0xdd, G: 0xdd, B: 0xe1, A: 0xff}
	case theme.ColorNameButton:
		if dark {
			return color.NRGBA{R: 0x3a, G: 0x3a, B: 0x3e, A: 0xff}
		}
		return color.NRGBA{R: 0xe9, G: 0xe9, B: 0xec, A: 0xff}
	case theme.ColorNameHeaderBackground:
		if dark {
			return color.NRGBA{R: 0x26, G: 0x26, B: 0x29, A: 0xff}
		}
		return color.NRGBA{R: 0xee, G: 0xee, B: 0xf1, A: 0xff}
	case theme.ColorNameForeground:
		if dark {
			return color.NRGBA{R: 0xf2, G: 0xf2, B: 0xf4, A: 0xff}
		}
		return color.NRGBA{R: 0x1d, G: 0x1d, B: 0x1f, A: 0xff}
	case colorSecondary, theme.ColorNamePlaceHolder:
		if dark {
			return color.NRGBA{R: 0xa1, G: 0xa1, B: 0xa6, A: 0xff}
		}
		return color.NRGBA{R: 0x6e, G: 0x6e, B: 0x73, A: 0xff}
	case colorAmber, theme.ColorNameWarning:
		return Amber
	case colorRed, theme.ColorNameError:
		return Red
	}
	return t.base.Color(n, v)
}

func (t *Theme) Font(s fyne.TextStyle) fyne.Resource     { return t.base.Font(s) }
func (t *Theme) Icon(n fyne.ThemeIconName) fyne.Resource { return t.base.Icon(n) }

func (t *Theme) Size(n fyne.ThemeSizeName) float32 {
	switch n {
	case sizeAct:
		return 17
	case theme.SizeNameText:
		return 13
	case theme.SizeNameCaptionText:
		return 11.5
	case theme.SizeNameSubHeadingText:
		return 15
	case theme.SizeNameHeadingText:
		return 20
	case theme.SizeNamePadding:
		return 5
	case theme.SizeNameInnerPadding:
		return 9
	case theme.SizeNameInputRadius, theme.SizeNameSelectionRadius:
		return 6
	}
	return t.base.Size(n)
}
