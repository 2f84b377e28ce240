package approvals

import (
	"errors"
	"testing"

	"github.com/reins-app/reins/vocab"
)

const (
	shop = "https://shop.example.com"
	sso  = "https://login.example.net"
)

func handedOffShares(t *testing.T) *Shares {
	t.Helper()
	g := NewShares(nil)
	if err := g.Set("1", shop, vocab.Control); err != nil {
		t.Fatal(err)
	}
	if err := g.HandOff("1", shop); err != nil {
		t.Fatal(err)
	}
	return g
}

func TestAHandedOffTabKeepsItsShareOffItsOrigin(t *testing.T) {
	g := handedOffShares(t)
	if g.Observe("1", sso) {
		t.Fatal("leaving the origin withdrew a held share")
	}
	err := g.Check("1", sso, vocab.ReadOnly)
	var ce *vocab.Error
	if !errors.Is(err, ErrHandedOffElsewhere) || !errors.As(err, &ce) || ce.Code != vocab.CodeHandedOff {
		t.Fatalf("a read on the other site: want handed_off, got %v", err)
	}
	if got := g.Get("1"); got.Level != vocab.None {
		t.Fatalf("Get on the other site shows level %v, want none", got.Level)
	}
	if gr, now, held := g.HandedOff("1"); !held || gr.Origin != shop || gr.Level != vocab.Control || now != sso {
		t.Fatalf("Held = %+v %q %v", gr, now, held)
	}
	// Back home, the share reads and checks as before, still held.
	if g.Observe("1", shop) {
		t.Fatal("coming back withdrew the share")
	}
	if err := g.Check("1", shop, vocab.ReadOnly); err != nil {
		t.Fatalf("a read back on the origin: %v", err)
	}
	if err := g.Check("1", shop, vocab.Control); !errors.Is(err, ErrHandedOff) {
		t.Fatalf("an act back on the origin while held: %v, want ErrHandedOff", err)
	}
	if err := g.Resume("1", shop); err != nil {
		t.Fatal(err)
	}
	if err := g.Check("1", shop, vocab.Control); err != nil {
		t.Fatalf("an act after Resume: %v", err)
	}
	// Released: leaving withdraws the share again.
	if !g.Observe("1", sso) {
		t.Fatal("after Resume, leaving the origin kept the share")
	}
}

func TestResumeOffTheOriginNeedsARebind(t *testing.T) {
	g := handedOffShares(t)
	g.Observe("1", sso)
	if err := g.Resume("1", sso); !errors.Is(err, ErrMoved) {
		t.Fatalf("Resume on another site: %v, want ErrMoved", err)
	}
	if _, _, held := g.HandedOff("1"); !held {
		t.Fatal("a refused Resume ended the hold")
	}
	was, err := g.Rebind("1", sso, "")
	if err != nil || was.Origin != shop {
		t.Fatalf("Rebind: %+v %v", was, err)
	}
	if gr := g.Get("1"); gr.Origin != sso || gr.Level != vocab.Control {
		t.Fatalf("after Rebind the grant is %+v", gr)
	}
	if err := g.Check("1", sso, vocab.Control); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Rebind("1", sso, ""); !errors.Is(err, ErrNotHandedOff) {
		t.Fatalf("a second Rebind: %v", err)
	}
}

func TestDropOffTheOriginWithdrawsTheShare(t *testing.T) {
	g := handedOffShares(t)
	g.Observe("1", sso)
	if !g.Drop("1", sso) {
		t.Fatal("Drop on another site kept the share")
	}
	if g.Get("1").Level != vocab.None {
		t.Fatal("the share survived")
	}
	g = handedOffShares(t)
	if g.Drop("1", shop) || g.Get("1").Level != vocab.Control {
		t.Fatal("Drop on the share's own site withdrew it")
	}
}

func TestHandOffNeedsAShare(t *testing.T) {
	g := NewShares(nil)
	if err := g.HandOff("1", shop); !errors.Is(err, ErrNotShared) {
		t.Fatalf("Hold without a share: %v", err)
	}
	if err := g.HandOff(vocab.DesktopKey, ""); !errors.Is(err, ErrNotShared) {
		t.Fatalf("Hold of the desktop: %v", err)
	}
	g = handedOffShares(t)
	g.Forget("1")
	if _, _, held := g.HandedOff("1"); held {
		t.Fatal("a forgotten tab is still held")
	}
}

func TestAStaleReadDoesNotMoveAHandedOffTabBack(t *testing.T) {
	g := handedOffShares(t)
	g.Observe("1", sso) // the sign-on page, by navigation
	// A read begun on the shop site checks in after the navigation: the
	// tab is elsewhere now, so it is refused.
	if err := g.Check("1", shop, vocab.ReadOnly); err == nil {
		t.Fatal("a read that began on the shop site was let through while the tab shows the sign-on site")
	}
	if _, now, _ := g.HandedOff("1"); now != sso {
		t.Fatalf("a read's origin moved the held tab to %q", now)
	}
	if got := g.Get("1"); got.Level != vocab.None {
		t.Fatalf("the tab, on the sign-on site, lists as shared: %+v", got)
	}
}
