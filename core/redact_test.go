package core_test

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"strings"
	"testing"
	"time"

	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/vocab"
)

func pixel(t *testing.T, pic []byte, x, y int) (r, g, b uint32) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(pic))
	if err != nil {
		t.Fatal(err)
	}
	r, g, b, _ = img.At(img.Bounds().Min.X+x, img.Bounds().Min.Y+y).RGBA()
	return r, g, b
}

func TestAScreenshotHidesPasswordFields(t *testing.T) {
	f := newFixture(t, time.Second)
	f.SetShare(f.tab, vocab.ReadOnly)
	pic, err := f.agent.Screenshot(context.Background(), f.tab)
	if err != nil {
		t.Fatal(err)
	}
	// The password field is at (100, 300), 200×30, in the fake's CSS
	// pixels, which its capture has one to one; the search field at
	// (100, 100).
	for _, p := range []image.Point{{100, 300}, {199, 314}, {299, 329}, {98, 298}} {
		if r, g, b := pixel(t, pic, p.X, p.Y); r|g|b != 0 {
			t.Errorf("the password field shows at %v: %x %x %x", p, r, g, b)
		}
	}
	if r, g, b := pixel(t, pic, 150, 110); r != 0xffff || g != 0xffff || b != 0xffff {
		t.Errorf("the search field was hidden too: %x %x %x", r, g, b)
	}
	if r, _, _ := pixel(t, pic, 150, 200); r != 0xffff {
		t.Error("the page around the fields was hidden")
	}

	// Cropped to the password field, the picture is all black.
	ref, snap := f.snapRef("Password")
	crop, err := f.agent.ScreenshotOf(context.Background(), f.tab, ref, snap)
	if err != nil {
		t.Fatal(err)
	}
	if r, g, b := pixel(t, crop, 10, 10); r|g|b != 0 {
		t.Errorf("the password field's own picture shows it: %x %x %x", r, g, b)
	}
}

func TestNoScreenshotWhileAFrameSaysNothing(t *testing.T) {
	f := newFixture(t, time.Second)
	f.SetShare(f.tab, vocab.ReadOnly)
	f.Browser.Mutate(7, func(p *coretest.Page) {
		p.Frames = append(p.Frames, protocol.FrameReport{Frame: 5, Parent: 0, URL: "https://pay.example/card", Index: -1, Error: "frame 5 timed out"})
	})
	if _, err := f.agent.Screenshot(context.Background(), f.tab); codeOf(err) != vocab.CodeFailed || !strings.Contains(err.Error(), "cannot tell whether a password or payment field is in it") {
		t.Fatalf("a screenshot with a frame that did not report: %v", err)
	}
}
