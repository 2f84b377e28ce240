package e2e

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"strings"
	"testing"
	"time"
)

// payPage is a payment form: a name, a card number (autocomplete
// cc-number) and, in a frame of another site, the card's security code
// (cc-csc), each filled in by the page. It reports the fields' boxes.
func payPage(frame string) string {
	return strings.NewReplacer("{{REPORT}}", reportJS, "{{FRAME}}", frame).Replace(`<!doctype html>
<html><head><title>Pay — Shop</title>
<style>
  body { margin: 0; font: 20px sans-serif; }
  input { display: block; margin: 12px; width: 420px; height: 40px; font: 24px monospace; }
  iframe { margin: 12px; width: 460px; height: 90px; border: 0; }
</style></head>
<body>
<input id="name" aria-label="Name on card" value="ADA LOVELACE">
<input id="card" aria-label="Card number" autocomplete="cc-number" value="4111 1111 1111 1111">
<iframe id="pay" src="{{FRAME}}/cvc.html" title="Security code"></iframe>
<script>
{{REPORT}}
const rect = (el) => { const r = el.getBoundingClientRect(); return {x: r.x, y: r.y, w: r.width, h: r.height}; };
window.addEventListener('message', (e) => {
  if (!e.data || e.data.type !== 'cvc') return;
  const f = rect(document.getElementById('pay'));
  report({type: 'loaded', run: location.search, name: rect(document.getElementById('name')), card: rect(document.getElementById('card')),
    cvc: {x: f.x + e.data.x, y: f.y + e.data.y, w: e.data.w, h: e.data.h}, width: innerWidth});
});
</script>
</body></html>`)
}

const cvcPage = `<!doctype html><html><body style="margin:0">
<input id="cvc" aria-label="Security code" autocomplete="cc-csc" value="737" style="margin:8px;width:120px;height:40px;font:24px monospace">
<script>
const r = document.getElementById('cvc').getBoundingClientRect();
parent.postMessage({type: 'cvc', x: r.x, y: r.y, w: r.width, h: r.height}, '*');
</script></body></html>`

// TestAScreenshotOfAPaymentFormHasNoCardDigits takes a screenshot of a
// payment form in real Chromium: the card number's and the security code's
// boxes are black in the picture the agent gets; the name is not.
func TestAScreenshotOfAPaymentFormHasNoCardDigits(t *testing.T) {
	cross := ""
	files := map[string]string{}
	r := newPageRigWith(t, func(serve func(map[string]string) string) (map[string]string, string) {
		cross = serve(map[string]string{"/cvc.html": cvcPage})
		files["/pay.html"] = payPage(cross)
		return files, "/pay.html"
	}, "?pay")
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	loaded, err := r.witness.Wait(ctx, "loaded", func(m map[string]any) bool { return m["run"] == "?pay" && m["cvc"] != nil })
	if err != nil {
		t.Fatal(err)
	}
	pic, err := r.agent.Screenshot(context.Background(), r.tab)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(pic))
	if err != nil {
		t.Fatal(err)
	}
	scale := float64(img.Bounds().Dx()) / loaded["width"].(float64)
	box := func(name string) image.Rectangle {
		m := loaded[name].(map[string]any)
		f := func(k string) float64 { return m[k].(float64) * scale }
		// A little inside the field: its edge is the page's.
		return image.Rect(int(f("x"))+2, int(f("y"))+2, int(f("x")+f("w"))-2, int(f("y")+f("h"))-2)
	}
	for _, field := range []string{"card", "cvc"} {
		if n, all := dark(img, box(field)); n != all {
			t.Errorf("the %s field shows in the agent's picture: %d of %d pixels black", field, n, all)
		}
	}
	if n, all := dark(img, box("name")); n == all || all == 0 {
		t.Errorf("the name field was hidden too (%d of %d pixels black)", n, all)
	}
	t.Logf("screenshot %dx%d, scale %.2f: card and security code black, name shown", img.Bounds().Dx(), img.Bounds().Dy(), scale)
}

// dark counts the black pixels of r in img, and all of them.
func dark(img image.Image, r image.Rectangle) (n, all int) {
	r = r.Intersect(img.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			all++
			if cr, cg, cb, _ := img.At(x, y).RGBA(); cr|cg|cb == 0 {
				n++
			}
		}
	}
	return n, all
}
