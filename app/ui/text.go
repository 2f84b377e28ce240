package ui

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// seg is one run of text in a [rich] paragraph.
type seg struct {
	text  string
	color fyne.ThemeColorName // default: foreground
	size  fyne.ThemeSizeName  // default: body text
	bold  bool
	mono  bool
}

// rich makes one line of styled runs, cut short with an ellipsis when it
// does not fit.
func rich(segs ...seg) *widget.RichText {
	rt := widget.NewRichText()
	setRich(rt, segs...)
	rt.Truncation = fyne.TextTruncateEllipsis
	return rt
}

// para makes a paragraph of styled runs that wraps at word boundaries; put
// it where it has the full width (a VBox), not beside other objects.
func para(segs ...seg) *widget.RichText {
	rt := widget.NewRichText()
	setRich(rt, segs...)
	rt.Wrapping = fyne.TextWrapWord
	return rt
}

func setRich(rt *widget.RichText, segs ...seg) {
	out := make([]widget.RichTextSegment, 0, len(segs))
	for i, s := range segs {
		out = append(out, &widget.TextSegment{Text: s.text, Style: widget.RichTextStyle{
			ColorName: s.color, SizeName: s.size, TextStyle: fyne.TextStyle{Bold: s.bold, Monospace: s.mono},
			Inline: i < len(segs)-1,
		}})
	}
	rt.Segments = out
	rt.Refresh()
}

// setPara writes paragraphs, each a list of runs, into rt.
func setPara(rt *widget.RichText, paras ...[]seg) {
	var out []widget.RichTextSegment
	for _, ps := range paras {
		for i, s := range ps {
			out = append(out, &widget.TextSegment{Text: s.text, Style: widget.RichTextStyle{
				ColorName: s.color, SizeName: s.size, TextStyle: fyne.TextStyle{Bold: s.bold, Monospace: s.mono},
				Inline: i < len(ps)-1,
			}})
		}
	}
	rt.Segments = out
	rt.Refresh()
}

// secondary is a line of secondary text.
func secondary(text string) *widget.RichText {
	return para(seg{text: text, color: colorSecondary, size: theme.SizeNameCaptionText})
}

// heading is a window's title inside the window.
func heading(text string) *widget.RichText {
	return para(seg{text: text, size: theme.SizeNameSubHeadingText, bold: true})
}

// card puts content on a white rounded panel with a hairline border.
func card(content fyne.CanvasObject) fyne.CanvasObject {
	bg := canvas.NewRectangle(themeColor(colorPanel))
	bg.CornerRadius = 10
	bg.StrokeColor = themeColor(colorHairline)
	bg.StrokeWidth = 1
	return container.NewStack(bg, container.NewPadded(content))
}

// inset adds generous margins around a window's content.
func inset(content fyne.CanvasObject) fyne.CanvasObject {
	return container.New(layout.NewCustomPaddedLayout(14, 14, 16, 16), content)
}

// themeColor is one of the Reins theme's colours in the app's variant.
func themeColor(n fyne.ThemeColorName) color.Color {
	return NewTheme().Color(n, fyne.CurrentApp().Settings().ThemeVariant())
}

// dot is a small filled circle, e.g. the mark before an agent's name.
func dot(c color.Color, d float32) fyne.CanvasObject {
	circle := canvas.NewCircle(c)
	return container.New(layout.NewCenterLayout(), sized(circle, d, d))
}

// sized gives an object a minimum size.
func sized(o fyne.CanvasObject, w, h float32) fyne.CanvasObject {
	return container.New(&minSize{fyne.NewSize(w, h)}, o)
}

type minSize struct{ size fyne.Size }

func (m *minSize) MinSize(objs []fyne.CanvasObject) fyne.Size {
	s := m.size
	for _, o := range objs {
		s = s.Max(o.MinSize())
	}
	return s
}

func (m *minSize) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
}

// tight stacks lines of text closer than a VBox would: each RichText pads
// itself, so neighbours share some of that padding.
func tight(objs ...fyne.CanvasObject) *fyne.Container {
	return container.New(tightLayout{}, objs...)
}

type tightLayout struct{}

func (tightLayout) overlap() float32 { return theme.InnerPadding() * 1.1 }

func (l tightLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var s fyne.Size
	for i, o := range objs {
		m := o.MinSize()
		s.Width = max(s.Width, m.Width)
		s.Height += m.Height
		if i > 0 {
			s.Height -= l.overlap()
		}
	}
	return s
}

func (l tightLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	y := float32(0)
	for _, o := range objs {
		h := o.MinSize().Height
		o.Move(fyne.NewPos(0, y))
		o.Resize(fyne.NewSize(size.Width, h))
		y += h - l.overlap()
	}
}
