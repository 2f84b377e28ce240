package e2e

import "github.com/reins-app/reins/executor/xdesk"

// personClick clicks at (x, y) as the person does, with the X server's own
// mouse: to Reins, unlike a plain XTEST click, the person's hand.
func personClick(display string, x, y int) error {
	p, err := xdesk.NewPerson(display)
	if err != nil {
		return err
	}
	defer p.Close()
	return p.Click(x, y)
}
