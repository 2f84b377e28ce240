// Requests in flight: the page requests (fetch and XHR) of each
// tab shared at control, so that an act's settle can wait for the answers
// the act asked for. Only tabs the person shared at control are followed,
// one listener each, and only when each request began and ended is kept;
// nothing is read from a request and nothing is sent anywhere. The
// listeners only observe: they never block, change or delay a request.
// Imports nothing.

// FOLLOW_MAX is the most requests of one tab remembered as open: a page
// that opens more without their ending (long polls, streams) is not
// followed further until some end.
export const FOLLOW_MAX = 256;

const followed = new Map(); // tab → { open: Map<requestId, startedAt>, stop() }
const waiters = new Set(); // functions told each time a followed request ends

// followRequests follows exactly the tabs in ids (shared at control) from
// now on, and stops following any other.
export function followRequests(ids) {
  const want = new Set(chrome.webRequest ? ids : []); // a browser that withholds webRequest: none followed
  for (const [tab, f] of followed) {
    if (!want.has(tab)) {
      f.stop();
      followed.delete(tab);
    }
  }
  for (const tab of want) {
    if (!followed.has(tab)) followed.set(tab, follow(tab));
  }
}

function follow(tab) {
  const open = new Map();
  const filter = { urls: ["<all_urls>"], types: ["xmlhttprequest"], tabId: tab };
  const began = (d) => {
    if (d.tabId === tab && open.size < FOLLOW_MAX) open.set(d.requestId, d.timeStamp);
  };
  const ended = (d) => {
    if (d.tabId === tab && open.delete(d.requestId)) for (const w of [...waiters]) w();
  };
  const wr = chrome.webRequest;
  wr.onBeforeRequest.addListener(began, filter);
  wr.onCompleted.addListener(ended, filter);
  wr.onErrorOccurred.addListener(ended, filter);
  return {
    open,
    stop() {
      wr.onBeforeRequest.removeListener(began);
      wr.onCompleted.removeListener(ended);
      wr.onErrorOccurred.removeListener(ended);
      open.clear();
      for (const w of [...waiters]) w(); // a wait on this tab ends: it is no longer followed
    },
  };
}

// openSince is how many of tab's followed requests that began at or after
// since (milliseconds since the epoch, as the browser stamps requests) have
// not ended.
export function openSince(tab, since) {
  const f = followed.get(tab);
  if (!f) return 0;
  let n = 0;
  for (const at of f.open.values()) if (at >= since) n++;
  return n;
}

// answered waits until every request of tab that began at or after since
// has ended, or until deadline (performance.now() time). It says "none"
// when none was open, "answered" once they ended (or the tab stopped being
// followed) and "waiting" with how many were still open at the deadline.
export function answered(tab, since, deadline) {
  if (openSince(tab, since) === 0) return Promise.resolve({ ended: "none" });
  return new Promise((resolve) => {
    const check = () => {
      if (openSince(tab, since) === 0) finish({ ended: "answered" });
    };
    const timer = setTimeout(() => {
      const n = openSince(tab, since);
      finish(n === 0 ? { ended: "answered" } : { ended: "waiting", open: n });
    }, Math.max(0, deadline - performance.now()));
    function finish(r) {
      clearTimeout(timer);
      waiters.delete(check);
      resolve(r);
    }
    waiters.add(check);
  });
}

// forgetRequests drops what is known of a closed tab.
export function forgetRequests(tab) {
  const f = followed.get(tab);
  if (!f) return;
  f.stop();
  followed.delete(tab);
}
