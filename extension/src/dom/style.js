// Computed styles, memoised for one snapshot: each element's style is read
// once, and the library's name computation shares the memo. Styles are live
// objects, so the memo must not outlive the snapshot.
//
// DOM side. Imports nothing.

let styles = new Map();

export function styleOf(el, pseudo) {
  if (pseudo) return getComputedStyle(el, pseudo);
  let s = styles.get(el);
  if (!s) {
    s = getComputedStyle(el);
    styles.set(el, s);
  }
  return s;
}

// forgetStyles empties the memo.
export function forgetStyles() {
  styles = new Map();
}
