// The service worker's side of swprobe: over CDP, it times in the worker
// itself (mean of many calls, since a worker's clock is coarse) the parts a
// snapshot request passes through. Parts an older extension lacks are left
// out. Usage: node swprobe/probe.mjs <CDP endpoint> <tab id>
import { chromium } from "playwright-core";

const browser = await chromium.connectOverCDP(process.argv[2]);
const tab = Number(process.argv[3]);
const context = browser.contexts()[0];
const sw = context.serviceWorkers()[0] || (await context.waitForEvent("serviceworker"));
for (let round = 0; round < 3; round++) {
  const out = await sw.evaluate(async (tab) => {
    const mean = async (n, f) => {
      const t = performance.now();
      for (let i = 0; i < n; i++) await f();
      return +((performance.now() - t) / n).toFixed(3);
    };
    const res = {};
    const full = await HANDLERS.snapshot({ tab });
    const known = {};
    for (const f of full.frames) if (f.doc) known[f.frame] = `${f.doc}:${f.version}`;
    res.frames = full.frames.length;
    res.repeatHandlerMs = await mean(20, () => HANDLERS.snapshot({ tab, known }));
    const reply = JSON.stringify({ id: "a1", result: await HANDLERS.snapshot({ tab, known }) });
    res.replyBytes = reply.length;
    res.tabsGetMs = await mean(200, () => chrome.tabs.get(tab));
    if (typeof mirror === "function") res.shareCheckMs = await mean(200, () => mirror("snapshot", { tab }));
    if (typeof ReinsSession !== "undefined" && ReinsSession.Sealed) {
      const key = new Uint8Array(32);
      const ours = new ReinsSession.Sealed(key, ReinsSession.EXTENSION_TO_APP);
      const app = new ReinsSession.Sealed(key, ReinsSession.APP_TO_EXTENSION);
      res.sealAnswerMs = await mean(200, () => ours.seal(reply));
      const request = JSON.stringify({ id: "a1", method: "snapshot", params: { tab, known } });
      const sealed = [];
      for (let i = 0; i < 200; i++) sealed.push(await app.seal(request));
      let i = 0;
      res.openRequestMs = await mean(200, () => ours.open(sealed[i++]));
    }
    return res;
  }, tab);
  console.log("in the service worker:", JSON.stringify(out));
}
await browser.close().catch(() => {});
process.exit(0);
