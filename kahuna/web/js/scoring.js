// A round's scoring as a moment of its own (rounds 1 and 2, and the final scoring): the stones
// each player has on the board and the points given, from the round_scored event alone.

import { h } from "./dom.js";
import { t, colourName } from "./i18n.js";
import { seatMark } from "./panels.js";
import { narrateEvent } from "./narrate.js";

/** The scoring panel for a round_scored event; close() is called by its button. */
export function scoringPanel(ev, players, close) {
  const title = ev.final ? t("scoring.final") : t("scoring.round", { round: ev.round });
  const rows = [0, 1].map((seat) =>
    h("tr", { class: ev.points[seat] > 0 ? "scorer" : "" }, [
      h("th", { scope: "row" }, [seatMark(seat), " ", colourName(seat), players?.[seat] ? ` — ${players[seat]}` : ""]),
      h("td", { class: "scoring-stones", text: t("scoring.stones", { n: ev.stones[seat] }) }),
      h("td", { class: "scoring-points", text: t("scoring.points", { n: ev.points[seat] }) }),
    ]),
  );
  return h(
    "section",
    { class: "scoring", role: "dialog", "aria-labelledby": "scoring-title", "data-testid": "scoring" },
    [
      h("h2", { id: "scoring-title", text: title }),
      h("table", {}, [h("tbody", {}, rows)]),
      h("p", { class: "scoring-words", text: narrateEvent(ev) }),
      h("button", { type: "button", class: "btn primary", id: "scoring-ok", text: t("scoring.ok"), onclick: close }),
    ],
  );
}
