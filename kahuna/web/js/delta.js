// Protocol 2 (docs/protocol.md): an update carries only what changed in the recipient's view. The
// connection keeps the view of its last sync and brings it up to date here, so that the page reads
// whole views and never knows which protocol it speaks (kahuna/bot/follow.py does the same in Python).

export const PROTOCOL = 2;

// The view's maps whose changes list only the keys whose value changed.
const MERGED = new Set(["bridges", "stones", "unseen"]);

// The fields an update leaves out when they have these values.
const DEFAULTS = { legal: [], why_not: {}, status: "playing", result: null, can_take_back: false };

/** The view after `update`, a new object (`view` is left as it was). */
export function applyDelta(view, update) {
  const after = { ...view };
  for (const [key, value] of Object.entries(update.changed)) {
    after[key] = MERGED.has(key) ? { ...view[key], ...value } : value;
  }
  after.history = [...view.history, update.action];
  return after;
}

/** The update as protocol 1 sends it: the whole view in place of `changed`, every field present. */
export function wholeUpdate(view, update) {
  const out = { ...structuredClone(DEFAULTS), ...update, view: applyDelta(view, update) };
  delete out.changed;
  return out;
}
