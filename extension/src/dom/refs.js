// The ref map: element → {id, role, name} and id → element. An element
// keeps its id while its role and name do not change; ids are never reused
// within this document, and every id is forgotten on a navigation signal.
//
// DOM side (WeakRef to page elements). Imports nothing.

let refs = new WeakMap();
let byId = new Map();
let nextId = 1;

// idFor is el's id as shown with this role and name.
export function idFor(el, role, name) {
  const known = refs.get(el);
  if (known && known.role === role && known.name === name) return known.id;
  const id = nextId++;
  refs.set(el, { id, role, name });
  byId.set(id, new WeakRef(el));
  return id;
}

// shownAs is the {id, role, name} el last had, if any.
export function shownAs(el) {
  return refs.get(el);
}

// elementOf is the element an id was given to, if it is still alive.
export function elementOf(id) {
  const ref = byId.get(id);
  return ref && ref.deref();
}

// forgetRefs drops every id: each element gets a new one from now on.
export function forgetRefs() {
  refs = new WeakMap();
  byId = new Map();
}
