// The browser's tabs as the app sees them: the list, numbered as it is
// read, pushed to the app when it changes; and the content script put into
// tabs that were open before the extension came. Imports pairing.js.
import { emit } from "./pairing.js";

// Tabs opened before the extension was installed have no content script.
export async function injectIntoOpenTabs() {
  const tabs = await chrome.tabs.query({});
  for (const t of tabs) {
    if (!/^https?:|^file:/.test(t.url || "")) continue;
    chrome.scripting
      .executeScript({ target: { tabId: t.id, allFrames: true }, files: ["content.js"] })
      .catch(() => {});
  }
}

export function tabInfo(t, focusedWindow) {
  return {
    id: t.id,
    windowId: t.windowId,
    url: t.url || "",
    title: t.title || "",
    active: !!t.active,
    focused: t.windowId === focusedWindow,
    status: t.status || "",
    ...(t.openerTabId ? { opener: t.openerTabId } : {}),
  };
}

// Tab lists are numbered as they are read, so Reins can tell an answer read
// before a list pushed after it, whichever reaches it first.
let tabListSeq = 0;

export async function listTabs() {
  const [tabs, win] = await Promise.all([
    chrome.tabs.query({}),
    chrome.windows.getLastFocused().catch(() => null),
  ]);
  return { seq: ++tabListSeq, tabs: tabs.map((t) => tabInfo(t, win && win.focused ? win.id : -1)) };
}

let tabsTimer = null;
export function pushTabs() {
  clearTimeout(tabsTimer);
  tabsTimer = setTimeout(async () => emit("tabs.changed", await listTabs()), 50);
}
