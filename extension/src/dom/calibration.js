// Calibration: a trusted pointermove gives this frame's exact screen origin.
//
// DOM side. Imports dom/channel.js and dom/window.js.

import { send } from "./channel.js";
import { windowMetrics } from "./window.js";

export function startCalibration() {
  let lastCal = 0;
  addEventListener(
    "pointermove",
    (e) => {
      if (!e.isTrusted || !e.isPrimary) return;
      const now = performance.now();
      if (now - lastCal < 250) return;
      lastCal = now;
      send({
        type: "calibration",
        screenX: e.screenX,
        screenY: e.screenY,
        clientX: e.clientX,
        clientY: e.clientY,
        window: windowMetrics(),
      });
    },
    { capture: true, passive: true }
  );
}
