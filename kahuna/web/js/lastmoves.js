// What the last turn changed on the board, so the page can mark it until the next move: new and
// removed bridges, claimed and lost stones. Built from the events the server sends (live), or from
// two boards (coming back to a game: what changed since this browser last saw it).

const TURN_ENDS = new Set(["card_taken", "declined", "turn_ended", "game_over"]);
const SEEN_KEY = "kahuna.seen";

export class LastMoves {
  constructor() {
    this.changes = [];
    this.turnOver = true;
  }

  /** Before an action's events: the first action of a new turn clears the old turn's marks. */
  startAction() {
    if (this.turnOver) this.changes = [];
    this.turnOver = false;
  }

  /** Take one event into account; true if the marks changed. */
  note(ev) {
    if (TURN_ENDS.has(ev.type)) this.turnOver = true;
    if (ev.type === "bridge_built") return this.put({ kind: "built", line: ev.line, seat: ev.seat });
    if (ev.type === "bridge_removed" || ev.type === "bridge_returned")
      return this.put({ kind: "removed", line: ev.line, seat: ev.owner });
    if (ev.type === "island_claimed") return this.put({ kind: "claimed", island: ev.island, seat: ev.seat });
    if (ev.type === "stone_lost") return this.put({ kind: "lost", island: ev.island, seat: ev.owner });
    return false;
  }

  /** A later change of the same line or island replaces the earlier one (built, then swept: removed). */
  put(change) {
    const where = change.line || change.island;
    const before = this.changes.find((c) => (c.line || c.island) === where);
    this.changes = this.changes.filter((c) => c !== before);
    // Built and swept away within the turn, or lost and claimed back: nothing is left to show.
    const undone =
      before &&
      ((before.kind === "built" && change.kind === "removed" && before.seat === change.seat) ||
        (before.kind === "claimed" && change.kind === "lost" && before.seat === change.seat));
    if (!undone) this.changes.push(change);
    return true;
  }

  /**
   * Show these changes instead (a sync's); turnOver is false when the view was taken in the middle
   * of a turn, whose next actions then add to them rather than clear them.
   */
  replaceWith(changes, turnOver = true) {
    this.changes = changes;
    this.turnOver = turnOver;
  }
}

/** The changes between a board seen earlier and a view now (bridges and stones keyed by line and island). */
export function changesBetween(seen, view) {
  const changes = [];
  const diff = (before, after, gained, lost, key) => {
    for (const [where, owner] of Object.entries(before))
      if (after[where] !== owner) changes.push({ kind: lost, [key]: where, seat: owner });
    for (const [where, owner] of Object.entries(after))
      if (before[where] !== owner) changes.push({ kind: gained, [key]: where, seat: owner });
  };
  diff(seen.bridges, view.bridges, "built", "removed", "line");
  diff(seen.stones, view.stones, "claimed", "lost", "island");
  // A line that changed hands shows the new bridge only.
  return changes.filter((c) => !(c.kind === "removed" && view.bridges[c.line] !== undefined));
}

function seenKey(gameId, seat) {
  return `${SEEN_KEY}.${gameId}.${seat ?? "watch"}`;
}

/** The board this browser last showed for a game and seat: {version, bridges, stones}, or null. */
export function loadSeen(gameId, seat) {
  try {
    const seen = JSON.parse(localStorage.getItem(seenKey(gameId, seat)) || "null");
    return seen && typeof seen.version === "number" ? seen : null;
  } catch {
    return null;
  }
}

export function saveSeen(gameId, seat, view) {
  if (!view) return;
  const seen = { version: view.history.length, bridges: view.bridges, stones: view.stones };
  localStorage.setItem(seenKey(gameId, seat), JSON.stringify(seen));
}
