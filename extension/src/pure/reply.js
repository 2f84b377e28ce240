// The shape of a refusal the content script answers with.
//
// Pure: no DOM, no chrome.*, no page globals. Imports nothing.

// fail is the answer {error: {code, message}}; the code is one the bridge
// protocol names (stale_ref, changed, disabled, not_visible, obscured, …).
// A changed element's answer also says what it is now: now, its
// {id, role, name}.
export function fail(code, message, now) {
  return now ? { error: { code, message, now } } : { error: { code, message } };
}
