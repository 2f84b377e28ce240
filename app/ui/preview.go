package ui

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// MenuPreview draws the tray menu as it opens under the menu bar: the bar
// with the icon, the menu, and the submenus along open (indexes of items
// with children, one per level). It is how the menu is reviewed and
// screenshotted where there is no tray host; the items are live.
func MenuPreview(items []Item, open []int, icon Icon) fyne.CanvasObject {
	menus := []*widget.Menu{widget.NewMenu(FyneMenu(items))}
	level := items
	var rows []int
	for _, i := range open {
		if i < 0 || i >= len(level) || len(level[i].Children) == 0 {
			break
		}
		rows = append(rows, i)
		level = level[i].Children
		menus = append(menus, widget.NewMenu(fyne.NewMenu("", fyneItems(level)...)))
	}
	bar := canvas.NewRectangle(color.NRGBA{R: 0xe8, G: 0xe8, B: 0xeb, A: 0xff})
	img := canvas.NewImageFromResource(TrayIcon(icon))
	img.FillMode = canvas.ImageFillContain
	objs := []fyne.CanvasObject{bar, img}
	for _, m := range menus {
		objs = append(objs, m)
	}
	return container.New(&previewLayout{menus: menus, rows: rows}, objs...)
}

const barHeight = 26

type previewLayout struct {
	menus []*widget.Menu
	rows  []int
}

func (l *previewLayout) MinSize([]fyne.CanvasObject) fyne.Size {
	w, h := float32(0), float32(0)
	for _, m := range l.menus {
		s := m.MinSize()
		w += s.Width
		if s.Height > h {
			h = s.Height
		}
	}
	return fyne.NewSize(w+40, h+barHeight+40)
}

func (l *previewLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	objs[0].Move(fyne.NewPos(0, 0))
	objs[0].Resize(fyne.NewSize(size.Width, barHeight))
	x := float32(24)
	y := float32(barHeight + 2)
	objs[1].Resize(fyne.NewSize(20, 20))
	objs[1].Move(fyne.NewPos(x+12, 3))
	for i, m := range l.menus {
		ms := m.MinSize()
		m.Move(fyne.NewPos(x, y))
		m.Resize(ms)
		if i < len(l.rows) && l.rows[i] < len(m.Items) {
			y += m.Items[l.rows[i]].Position().Y
		}
		x += ms.Width - 4
	}
}
