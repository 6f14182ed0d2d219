// A tournament's game page (/play/<id>?tournament=<tid>): once the game is over the player is taken
// back to the tournament's standings after a short pause, with a link to go at once, so that the
// next round's game (an Arena pairs at once) finds the player on the event's page. In
// screen-reader mode the page stays until the player follows the link: a screen reader may still
// be reading the outcome and the last actions when the pause is over, and a page that goes away
// cuts them off (docs/web.md, *Screen-reader mode*).

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { readerOn } from "./reader.js";

const BACK_AFTER_MS = 5000;

/** The tournament page to return to from this game page, or null (not a tournament game). */
export function tournamentOf() {
  const tid = new URLSearchParams(location.search).get("tournament");
  return tid ? `/tournaments/${encodeURIComponent(tid)}` : null;
}

/** Show "back to the tournament" in root and, unless screen-reader mode is on, go there after a pause (once). */
export function returnToTournament(root, back) {
  if (root.querySelector("[data-testid=back-to-tournament]")) return;
  const words = h("span", { text: t(readerOn() ? "tourney.game_over_stay" : "tourney.game_over_back") });
  root.prepend(h("p", { class: "message tour-back", role: "status", "data-testid": "tour-back" }, [
    words, " ",
    h("a", { href: back, "data-testid": "back-to-tournament", text: t("tourney.back") }),
  ]));
  if (readerOn()) return;
  setTimeout(() => {
    if (readerOn()) words.textContent = t("tourney.game_over_stay"); // switched on during the pause
    else location.assign(back);
  }, BACK_AFTER_MS);
}
