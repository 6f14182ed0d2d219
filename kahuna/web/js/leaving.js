// A real-time game the opponent has left (issue 51): once the opponent's seat has had no
// connection for the server's grace (`claim_after` of the `presence` message, 30 s by default),
// the player may claim the win or call it a draw, as on lichess (`claim_victory`, `claim_draw`:
// docs/protocol.md). The server decides; the page only offers the choice when it would be accepted.

import { h } from "./dom.js";
import { t } from "./i18n.js";

/** Remember a `presence` message's absences on `entry`, timed from now. */
export function heardPresence(entry, msg) {
  entry.online = msg.online;
  entry.away = msg.away || null;
  entry.claimAfter = msg.claim_after ?? null;
  entry.awayHeard = performance.now();
}

/**
 * Milliseconds until the player of `entry` may claim (0: now), or null when no claim can come:
 * not a seat, not a running real-time game against a person, or the opponent connected.
 */
export function claimableIn(entry) {
  const seat = entry.seat;
  if (seat === null || seat === undefined || !entry.view || entry.view.result || entry.status !== "playing") return null;
  const clock = entry.clock;
  if (!clock || clock.running === null || clock.running === undefined || clock.control?.days) return null;
  const other = 1 - seat;
  if (entry.kinds?.[other] !== "human" || entry.online?.[other] !== false) return null;
  const away = entry.away?.[other];
  if (away === null || away === undefined || entry.claimAfter === null) return null;
  const gone = away * 1000 + (performance.now() - entry.awayHeard);
  return Math.max(0, entry.claimAfter * 1000 - gone);
}

/** "Your opponent left — Claim the win / Call it a draw", once the grace has passed. */
export function leftItems(entry, send) {
  if (claimableIn(entry) !== 0) return [];
  return [
    h("div", { class: "opponent-left", role: "status", "data-testid": "opponent-left" }, [
      h("span", { class: "hint", text: t("left.opponent_left") }),
      h("button", {
        type: "button",
        class: "btn primary",
        "data-testid": "claim-victory",
        onclick: () => send({ type: "claim_victory" }),
        text: t("left.claim_victory"),
      }),
      h("button", {
        type: "button",
        class: "btn",
        "data-testid": "claim-draw",
        onclick: () => send({ type: "claim_draw" }),
        text: t("left.claim_draw"),
      }),
    ]),
  ];
}
