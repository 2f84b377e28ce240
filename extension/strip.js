// Reins strip model: what the toolbar badge and the side panel show for each
// tab, from the app's events (bridge/protocol: shares, tab.state, activity),
// and the extension's own mirror of the person's shares: the service worker
// refuses to read or act on a tab the latest table does not share.
// Pure: no chrome.* calls and no DOM, so that the service worker and the
// panel share it and a test can replay the protocol's golden messages.
"use strict";

const ReinsStrip = (() => {
  const ACCENT = "#1f5fd1"; // the app's accent
  const SHARED = "#3c4043";
  const MAX_LINES = 100; // per tab
  const MAX_AGENT = 200; // characters of an agent's name as the app rendered it

  const LEVEL_WORDS = {
    none: "This tab is not shared with agents.",
    read: "Agents may read this tab.",
    control: "Agents may read and act on this tab; each act is asked.",
  };

  class Model {
    constructor() {
      this.reset(false);
    }

    // reset forgets everything the app said: on a new connection the app
    // says it all again, and while there is none nothing is shared.
    reset(connected) {
      this.connected = connected;
      this.seq = 0;
      this.paused = false;
      this.levels = new Map(); // tab → "read" | "control"
      this.origins = new Map(); // tab → the origin its share is bound to
      this.agents = new Map(); // tab → the one agent it is shared with, as the app named it
      this.states = new Map(); // tab → "waiting" | "firing"
      this.lines = new Map(); // tab → activity, oldest first
    }

    // apply takes one event from the app and returns the tabs whose badge
    // or panel may have changed; "all" when every tab may have.
    apply(method, p) {
      if (!this.connected || !p || typeof p !== "object") return [];
      switch (method) {
        case "shares": {
          if (typeof p.seq !== "number" || p.seq <= this.seq || !Array.isArray(p.tabs)) return [];
          this.seq = p.seq;
          this.paused = p.paused === true;
          this.levels = new Map();
          this.origins = new Map();
          this.agents = new Map();
          for (const t of p.tabs) {
            if (!t || !Number.isInteger(t.tab) || (t.level !== "read" && t.level !== "control")) continue;
            this.levels.set(t.tab, t.level);
            if (typeof t.origin === "string" && t.origin) this.origins.set(t.tab, t.origin);
            if (typeof t.agent === "string" && t.agent) this.agents.set(t.tab, t.agent.slice(0, MAX_AGENT));
          }
          return "all";
        }
        case "tab.state":
          if (!Number.isInteger(p.tab)) return [];
          if (p.state === "waiting" || p.state === "firing") this.states.set(p.tab, p.state);
          else this.states.delete(p.tab);
          return [p.tab];
        case "activity": {
          if (!Number.isInteger(p.tab)) return [];
          const lines = this.lines.get(p.tab) || [];
          lines.push({
            time: Number(p.time) || 0,
            agent: String(p.agent || ""),
            act: String(p.act || ""),
            outcome: String(p.outcome || ""),
            refused: p.refused === true,
          });
          if (lines.length > MAX_LINES) lines.splice(0, lines.length - MAX_LINES);
          this.lines.set(p.tab, lines);
          return [p.tab];
        }
      }
      return [];
    }

    level(tab) {
      return this.levels.get(tab) || "none";
    }

    // levelWords says who may do what on tab: every allowed agent, or the
    // one agent the person shared it with.
    levelWords(tab) {
      const level = this.level(tab);
      const agent = this.agents.get(tab);
      if (!agent || level === "none") return LEVEL_WORDS[level];
      if (level === "read") return `Only ${agent} may read this tab; other agents do not see it.`;
      return `Only ${agent} may read and act on this tab; each act is asked. Other agents do not see it.`;
    }

    // refusal says why the extension itself refuses a request that needs
    // the level need ("read" or "control") on tab, which shows url; "" when
    // the latest share table allows it. It only ever takes away: a tab the
    // app would read is refused here too unless the person shared it.
    refusal(tab, need, url) {
      const fix = "the person shares it from the Reins menu";
      if (!this.connected) return "the Reins extension is not paired with Reins";
      const level = this.level(tab);
      if (level === "none") return `tab ${tab} is not shared in the extension's latest share table, so it is neither read nor acted on; ${fix}`;
      if (need === "control" && level !== "control") return `tab ${tab} is shared to read only, and this needs control; ${fix}`;
      if (need === "control" && this.paused) return `the person has paused all agents, so tab ${tab} is not acted on until they resume from the Reins menu`;
      const origin = this.origins.get(tab);
      if (origin && originOf(url) !== origin) return `tab ${tab} no longer shows ${origin}, the site it was shared on; ${fix} again`;
      return "";
    }

    // badge is the toolbar badge for tab: nothing when it is not shared,
    // R or C for its level, a dot in the accent colour while an approval
    // for it waits or an act on it fires.
    badge(tab) {
      if (!this.connected) return { text: "", color: SHARED, title: "Reins is not connected" };
      const level = this.level(tab);
      const state = this.states.get(tab);
      if (state) {
        return {
          text: "\u2022",
          color: ACCENT,
          title: state === "waiting" ? "Reins: an agent waits for your answer about this tab" : "Reins: an agent is acting on this tab",
        };
      }
      const only = this.agents.has(tab) ? ` with ${this.agents.get(tab)} alone` : "";
      if (level === "read") return { text: "R", color: SHARED, title: `Reins: this tab is shared to read${only}` };
      if (level === "control") return { text: "C", color: SHARED, title: `Reins: this tab is shared to control${only}` };
      return { text: "", color: SHARED, title: "Reins: this tab is not shared" };
    }

    // view is what the side panel shows for tab. Lines are newest first;
    // a run of identical attempts is one line with a count.
    view(tab) {
      const lines = [];
      const all = this.lines.get(tab) || [];
      for (let i = all.length - 1; i >= 0; i--) {
        const l = all[i];
        const last = lines[lines.length - 1];
        if (last && last.agent === l.agent && last.act === l.act && last.outcome === l.outcome) {
          last.count++;
          continue;
        }
        lines.push({ ...l, count: 1 });
      }
      return {
        tab,
        connected: this.connected,
        paused: this.paused,
        level: this.level(tab),
        levelWords: this.levelWords(tab),
        state: this.states.get(tab) || "idle",
        lines,
      };
    }
  }

  function originOf(url) {
    try {
      return new URL(url).origin;
    } catch {
      return "";
    }
  }

  return { Model };
})();

// The service worker's modules import this file for its one global.
globalThis.ReinsStrip = ReinsStrip;
