// The Playwright side of the corpus benchmark. It connects over CDP to the
// Chromium the Go driver started and answers one JSON line per request on
// stdin: {"goto": url} loads a page in the tab Reins reads too; {"snap": true}
// times page.ariaSnapshot({mode: "ai"}) there.
import { chromium } from "playwright-core";
import readline from "node:readline";

const endpoint = process.argv[2];
const browser = await chromium.connectOverCDP(endpoint);
const context = browser.contexts()[0];
let page = context.pages().find((p) => p.url().startsWith("http://127.0.0.1")) || context.pages()[0];

const out = (m) => process.stdout.write(JSON.stringify(m) + "\n");
out({ ready: true, version: browser.version() });

const rl = readline.createInterface({ input: process.stdin });
for await (const lineText of rl) {
  const m = JSON.parse(lineText);
  try {
    if (m.goto) {
      await page.goto(m.goto, { waitUntil: "load", timeout: 60000 });
      out({ ok: true });
    } else if (m.snap) {
      const t0 = performance.now();
      const text = await page.ariaSnapshot({ mode: "ai" });
      const ms = performance.now() - t0;
      out({ text, ms });
    } else if (m.quit) {
      break;
    }
  } catch (e) {
    out({ error: String(e && e.message ? e.message : e) });
  }
}
await browser.close().catch(() => {});
process.exit(0);
