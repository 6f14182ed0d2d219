// Protocols 2 and 3 (docs/protocol.md): an update carries only what changed in the recipient's view
// (2: `changed`), or only what its events do not say of it (3: `patch`). The connection keeps the
// view of its last sync and brings it up to date here, so that the page reads whole views and never
// knows which protocol it speaks. kahuna/bot/follow.py and kahuna/rules/view_patch.py do the same in
// Python, and must agree with this file (tests/server/test_update_deltas.py runs it under node).

export const PROTOCOL = 3;

// The fields an update leaves out when they have these values.
const DEFAULTS = { legal: [], why_not: {}, status: "playing", result: null, can_take_back: false };

const added = (cards, card) => [...cards, card].sort().join("");
const removed = (cards, card) => cards.replace(card, "");

/** `view` (left as it was) with the events' plain bookkeeping done (view_patch.expected). */
function expected(view, events) {
  const me = view.seat;
  const out = {
    ...view,
    bridges: { ...view.bridges },
    stones: { ...view.stones },
    supply: view.supply.map((s) => ({ ...s })),
    hand_sizes: [...view.hand_sizes],
    known: [...view.known],
    face_down_counts: [...view.face_down_counts],
  };
  const played = (seat, card) => {
    out.hand_sizes[seat] -= 1;
    out.discard_face_up = added(out.discard_face_up, card);
    out.known[seat] = removed(out.known[seat], card);
    if (seat === me) out.hand = removed(out.hand, card);
  };
  for (const e of events) {
    if (e.type === "bridge_built") {
      out.bridges[e.line] = e.seat;
      out.supply[e.seat].bridges -= 1;
      if (e.card !== null) played(e.seat, e.card);
    } else if (e.type === "bridge_removed") {
      out.bridges[e.line] = null;
      out.supply[e.owner].bridges += 1;
      for (const card of e.cards) played(e.seat, card);
    } else if (e.type === "bridge_returned") {
      out.bridges[e.line] = null;
      out.supply[e.owner].bridges += 1;
    } else if (e.type === "island_claimed") {
      out.stones[e.island] = e.seat;
      out.supply[e.seat].stones -= 1;
    } else if (e.type === "stone_lost") {
      out.stones[e.island] = null;
      out.supply[e.owner].stones += 1;
    } else if (e.type === "card_discarded") {
      out.hand_sizes[e.seat] -= 1;
      out.face_down_counts[e.seat] += 1;
      if (e.seat === me && e.card !== null) {
        out.hand = removed(out.hand, e.card);
        out.own_face_down = added(out.own_face_down, e.card);
      }
    } else if (e.type === "card_taken") {
      out.hand_sizes[e.seat] += 1;
      if (e.from_display) {
        out.display = removed(out.display, e.card);
        out.known[e.seat] = added(out.known[e.seat], e.card);
      } else {
        out.deck_size -= 1;
      }
      if (e.seat === me && e.card !== null) out.hand = added(out.hand, e.card);
      out.to_move = 1 - e.seat;
      out.declined = false;
    } else if (e.type === "display_refilled") {
      out.display = added(out.display, e.card);
      out.deck_size -= 1;
    } else if (e.type === "declined") {
      out.to_move = 1 - e.seat;
      out.declined = true;
    }
  }
  return out;
}

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/** `value` with `change` applied (view_patch.patched): an object merges into an object key by key,
 * an object into an array index by index, anything else replaces the value. */
function patched(value, change) {
  if (isObject(change) && (isObject(value) || Array.isArray(value))) {
    const out = Array.isArray(value) ? [...value] : { ...value };
    for (const [key, part] of Object.entries(change)) out[key] = patched(out[key], part);
    return out;
  }
  return change;
}

/** The view after `update`, a new object (`view` is left as it was). */
export function applyDelta(view, update) {
  const after = "changed" in update ? patched(view, update.changed) : patched(expected(view, update.events), update.patch ?? {});
  after.history = [...view.history, update.action];
  return after;
}

/** The update as protocol 1 sends it: the whole view in place of `changed` or `patch`, every field
 * present (protocol 3 leaves out `seat_acted` when it is the seat that was to move). */
export function wholeUpdate(view, update) {
  const out = { ...structuredClone(DEFAULTS), seat_acted: view.to_move, ...update, view: applyDelta(view, update) };
  delete out.changed;
  delete out.patch;
  return out;
}
