// A tournament's game page (/play/<id>?tournament=<tid>): once the game is over the player is taken
// back to the tournament's standings after a short pause, with a link to go at once.

import { h } from "./dom.js";
import { t } from "./i18n.js";

const BACK_AFTER_MS = 5000;

/** The tournament page to return to from this game page, or null (not a tournament game). */
export function tournamentOf() {
  const tid = new URLSearchParams(location.search).get("tournament");
  return tid ? `/tournaments/${encodeURIComponent(tid)}` : null;
}

/** Show "back to the tournament" in root and go there after a pause (once). */
export function returnToTournament(root, back) {
  if (root.querySelector("[data-testid=back-to-tournament]")) return;
  root.prepend(h("p", { class: "message tour-back", role: "status" }, [
    t("tourney.game_over_back"), " ",
    h("a", { href: back, "data-testid": "back-to-tournament", text: t("tourney.back") }),
  ]));
  setTimeout(() => location.assign(back), BACK_AFTER_MS);
}
