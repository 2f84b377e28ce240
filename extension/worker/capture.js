// One queue for every picture of a tab, held to Chrome's rate of captures.
// Imports failure.js.
import { Failure } from "./failure.js";

// Chrome allows an extension MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND (2)
// captures a second and fails the rest. Every capture (approval pictures,
// screenshots) waits its turn here instead: at most two end in any window of
// a little over a second, measured from when each call returned, which is
// after Chrome counted it. A request that cannot get a turn before its
// deadline, which is shorter than the app's wait for an answer (10 s), fails
// with a clear "busy".
const CAPTURES_PER_WINDOW = 2;
const CAPTURE_WINDOW_MS = 1000 + 40;
const CAPTURE_DEADLINE_MS = 8000;
const captureLine = []; // {tab, deadline, resolve, reject}, oldest first
const captureEnds = []; // when the last captures returned, newest last
let capturing = false;

export function captureTab(tab) {
  return new Promise((resolve, reject) => {
    captureLine.push({ tab, deadline: performance.now() + CAPTURE_DEADLINE_MS, resolve, reject });
    pumpCaptures();
  });
}

function busy(waiting) {
  return new Failure(
    "busy",
    `Chrome takes at most ${CAPTURES_PER_WINDOW} pictures a second and this one found no turn within ${CAPTURE_DEADLINE_MS / 1000} s ` +
      `(${waiting} more were waiting); try again in a moment`
  );
}

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function pumpCaptures() {
  if (capturing) return;
  capturing = true;
  try {
    while (captureLine.length) {
      const job = captureLine[0];
      const now = performance.now();
      const turn =
        captureEnds.length < CAPTURES_PER_WINDOW ? now : captureEnds[captureEnds.length - CAPTURES_PER_WINDOW] + CAPTURE_WINDOW_MS;
      if (turn > job.deadline) {
        captureLine.shift();
        job.reject(busy(captureLine.length));
        continue;
      }
      if (turn > now) {
        await pause(turn - now);
        continue;
      }
      captureLine.shift();
      try {
        // The tab must still be the one on screen: the window shows
        // whichever tab is active now, which may not be the one asked for.
        const t = await chrome.tabs.get(job.tab);
        if (!t.active) throw new Failure("unsupported", "the tab is not the visible one in its window");
        job.resolve(await chrome.tabs.captureVisibleTab(t.windowId, { format: "png" }));
      } catch (e) {
        if (/MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND/.test(e.message || "")) captureLine.unshift(job); // try again at the next turn
        else job.reject(e);
      } finally {
        captureEnds.push(performance.now());
        if (captureEnds.length > CAPTURES_PER_WINDOW) captureEnds.shift();
      }
    }
  } finally {
    capturing = false;
  }
}
