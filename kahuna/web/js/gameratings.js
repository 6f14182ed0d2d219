// The players' ratings on the game page: each rating beside its player's name, a "Rated" mark for
// a rated game (a "Casual" one for a game with its players' accounts that is not rated), and in the end summary each player's rating change (1500 → 1512, +12). The game's
// messages carry no rating (the game room does not know of the community's ratings): the page asks
// GET /api/games/<id>/ratings when it opens and once more when the game is over (the end hook has
// written the change before the end is sent: docs/community.md), and again when its players change
// (an invited friend took the seat). The same answer says which seats an account plays: the game
// page offers "Report opponent" against those only (docs/moderation.md).

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { seatMark } from "./panels.js";

/** A rating change as it reads: +12, −8 (a real minus), ±0. */
function signed(n) {
  return n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "±0";
}

export class GameRatings {
  /** onChange() is called when the ratings arrive (the page draws them on its next render). */
  constructor(gameId, onChange) {
    this.gameId = gameId;
    this.onChange = onChange;
    this.data = null;
    this.asked = new Set();
    this.asking = 0; // the latest question: an older answer arriving after it is dropped
  }

  /** Ask the server for the ratings, once while the game runs and once when it is over, each time
   * with these `players` (the seats' names: a friend taking the invitation's seat changes them). */
  want(over, players) {
    const when = `${over ? "over" : "open"} ${JSON.stringify(players ?? [])}`;
    if (this.asked.has(when)) return;
    this.asked.add(when);
    const asked = ++this.asking;
    fetch(`/api/games/${encodeURIComponent(this.gameId)}/ratings`)
      .then((answer) => (answer.ok ? answer.json() : null))
      .then((data) => {
        if (!data || asked !== this.asking) return;
        this.data = data;
        this.onChange();
      })
      .catch(() => {}); // no ratings shown, no "Report opponent": nothing else depends on them
  }

  /** Whether an account plays `seat` as the server answered (a guest's seat, the AI's of a game
   * from the home page, and any seat before the answer: no). */
  isAccount(seat) {
    return Boolean(this.data?.players[seat]?.account);
  }

  /** Each rating beside its player's name in the players panel (the rating the game was played at,
   * once it was rated), and the "Rated" or "Casual" mark. */
  decoratePlayers(box) {
    if (!this.data) return;
    for (const seat of [0, 1]) {
      const rating = this.data.players[seat].before ?? this.data.players[seat].rating;
      const name = box.querySelector(`.player[data-seat="${seat}"] .player-name`);
      if (rating === null || !name) continue;
      const attrs = { class: "player-rating", "data-testid": `rating-${seat}`, title: t("watch.rating") };
      name.after(h("span", { ...attrs, text: String(rating) }));
    }
    // A game with its players' accounts (the lobby's, a signed-in player's, their rematches) says
    // whether it counts for ratings; a guests' game says nothing.
    if (this.data.rated) {
      const mark = h("span", { class: "badge rated-mark", "data-testid": "rated-mark", text: t("watch.rated") });
      box.prepend(h("p", { class: "rated-line" }, [mark]));
    } else if (this.data.paired) {
      const mark = h("span", { class: "badge casual-mark", "data-testid": "casual-mark", text: t("watch.casual") });
      box.prepend(h("p", { class: "rated-line" }, [mark]));
    }
  }

  /** The rating change of a rated game in the end summary (once the server has counted it);
   * players: the seats' names as the page shows them. */
  decorateSummary(box, players) {
    const section = box.querySelector(".summary");
    const changed = this.data?.players.some((p) => p.before !== null && p.after !== null);
    if (!section || !changed) return;
    const lines = [0, 1].map((seat) => {
      const { before, after } = this.data.players[seat];
      if (before === null || after === null) return null;
      const name = players?.[seat] ?? "—";
      return h("li", { class: `rating-change seat${seat}`, "data-testid": `rating-change-${seat}` }, [
        seatMark(seat),
        " ",
        t("watch.rating_change", { name, before, after, diff: signed(after - before) }),
      ]);
    });
    const links = section.querySelector(".summary-links");
    const block = h("div", { class: "rating-changes" }, [
      h("h3", { text: t("watch.rating_changes") }),
      h("ul", {}, lines),
    ]);
    if (links) links.before(block);
    else section.append(block);
  }
}
