package e2e

import (
	"fmt"
	"strings"
)

// The pages report every click, input and socket attempt to /witness on
// their own origin; the test reads those reports as the page's own word.
const reportJS = `
function report(m) { fetch('/witness', {method: 'POST', body: JSON.stringify(m)}); }
function watch(el, frame) {
  el.addEventListener('click', (e) => {
    const r = el.getBoundingClientRect();
    report({type: 'click', id: el.id, frame, trusted: e.isTrusted, x: e.clientX, y: e.clientY,
      cx: r.x + r.width / 2, cy: r.y + r.height / 2, detail: e.detail, button: e.button});
  });
}
`

func mainPage(bridgePort int, crossOrigin string) string {
	return strings.NewReplacer("{{PORT}}", fmt.Sprint(bridgePort), "{{CROSS}}", crossOrigin, "{{REPORT}}", reportJS).Replace(`<!doctype html>
<html><head><title>Reins test page</title>
<style>
  body { margin: 0; font: 16px sans-serif; }
  h1 { margin: 4px; font-size: 20px; }
  button { width: 150px; height: 40px; margin: 6px; }
  iframe { width: 320px; height: 90px; border: 3px solid #888; padding: 5px; margin: 4px; vertical-align: top; }
  #scroller { width: 320px; height: 100px; overflow: auto; border: 1px solid #444; margin: 4px; }
</style></head>
<body>
<h1>Test page</h1>
<button id="main">Main button</button>
<input id="field" aria-label="Search" style="width:200px">
<input id="pw" type="password" aria-label="Password" style="width:120px">
<br>
<iframe id="same" src="/frame.html?same" title="Same-origin frame"></iframe>
<iframe id="cross" src="{{CROSS}}/frame.html?cross" title="Cross-origin frame"></iframe>
<div id="scroller"><div style="height:250px">spacer</div><button id="scrolled">Scrolled button</button><div style="height:200px"></div></div>
<button id="pushB">Push B</button>
<button id="pushA">Push A</button>
<a id="next" href="/next.html">Next page</a>
<script>
{{REPORT}}
document.querySelectorAll('button').forEach((b) => watch(b, 'top'));
document.getElementById('scroller').scrollTop = 200;
document.getElementById('pushB').addEventListener('click', () => history.pushState({}, '', '/b'));
document.getElementById('pushA').addEventListener('click', () => history.pushState({}, '', '/index.html'));
for (const id of ['field', 'pw']) {
  const el = document.getElementById(id);
  el.addEventListener('input', (e) => report({type: 'input', id, trusted: e.isTrusted, value: id === 'pw' ? String(el.value.length) : el.value}));
  el.addEventListener('keydown', (e) => { if (e.key === 'Enter') report({type: 'enter', id, trusted: e.isTrusted, value: el.value.length}); });
}
// A page may try the bridge itself; it must be refused.
try {
  const s = new WebSocket('ws://127.0.0.1:{{PORT}}/bridge');
  s.onopen = () => report({type: 'ws', result: 'open'});
  s.onerror = () => report({type: 'ws', result: 'error'});
} catch (e) { report({type: 'ws', result: 'throw'}); }
// The window's load waits for both frames, so the rig never reads a frame
// still being parsed.
addEventListener('load', () => report({type: 'loaded', page: 'main'}));
</script>
</body></html>`)
}

func framePage() string {
	return `<!doctype html><html><head><style>body{margin:0} button{width:140px;height:36px;margin:8px}</style></head>
<body><button id="framebtn">Frame button</button>
<script>` + reportJS + `
watch(document.getElementById('framebtn'), location.search.slice(1));
</script></body></html>`
}

func nextPage() string {
	return `<!doctype html><html><head><title>Next page</title></head><body>
<button id="main">Main button</button>
<script>` + reportJS + `watch(document.getElementById('main'), 'next'); report({type: 'loaded', page: 'next'});</script>
</body></html>`
}
