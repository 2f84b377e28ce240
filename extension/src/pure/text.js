// Page text made safe to report: one readable line, with nothing a person
// cannot see, and secret values masked.
//
// Pure: no DOM, no chrome.*, no page globals. Imports nothing.

// clean makes page text one line a person can read as it is: line breaks
// and tabs become spaces, and what cannot be seen goes (C0 and C1 controls
// such as ESC, bidi overrides and isolates, zero-width and other format
// characters), so a name cannot move a terminal's cursor or reorder what
// is shown. The app renders every text again; this is the first layer.
export function clean(s) {
  return String(s || "")
    .replace(/[\u0085\u2028\u2029]/g, " ")
    .replace(/[\p{Cc}\p{Cf}]/gu, (c) => (/\s/.test(c) ? " " : ""))
    .replace(/\s+/g, " ")
    .trim();
}

// maskSecrets replaces each secret value found in name with dots (at most
// eight, so the mask does not tell the length), in the order given.
export function maskSecrets(name, values) {
  for (const v of values) {
    if (v.length >= 1 && name.includes(v)) name = name.split(v).join("•".repeat(Math.min(v.length, 8)));
  }
  return name;
}
