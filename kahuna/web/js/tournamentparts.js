// Parts of a tournament's page (tournaments.js): the podium of a finished event, each player's
// games in the standings, the bye of the current Swiss round, the event's share link, and the
// header's link to the tournaments (a trophy alone on a phone). Names are text only.

import { h, s } from "./dom.js";
import { t } from "./i18n.js";
import { copyRow } from "./game.js";

/** The header's link to /tournaments: its word, or on a phone a trophy (the word kept for readers). */
export function tournamentsNavLink() {
  const cup = s("svg", { class: "cup-icon", viewBox: "0 0 16 16", width: 16, height: 16, "aria-hidden": "true" }, [
    s("path", { d: "M4.5 2h7v3.5a3.5 3.5 0 0 1-7 0z" }),
    s("path", { d: "M4.5 3.5H2.5v1a2 2 0 0 0 2 2M11.5 3.5h2v1a2 2 0 0 1-2 2M8 9v3M5.5 14h5" }),
  ]);
  return h("a", { href: "/tournaments", class: "tour-nav", title: t("tourney.nav") }, [
    cup,
    h("span", { class: "tour-nav-text", text: t("tourney.nav") }),
  ]);
}

/** The first three of a finished event, with their points (none if nobody played). */
export function podium(tour) {
  const top = tour.standings.slice(0, 3);
  if (tour.status !== "finished" || !top.length) return null;
  return h("section", { class: "tour-podium", "data-testid": "podium", "aria-label": t("tourney.podium") }, [
    h("h2", { text: t("tourney.podium") }),
    h("ol", {}, top.map((row, i) => h("li", { class: `place place-${i + 1}`, "data-testid": `podium-${i + 1}` }, [
      h("span", { class: "place-number", text: t("tourney.place_n", { n: i + 1 }) }),
      h("a", { class: "place-name", href: `/users/${encodeURIComponent(row.username)}`, text: row.username }),
      h("span", { class: "place-points", text: t("tourney.points_n", { n: row.score }) }),
    ]))),
  ]);
}

/** Whether ``username`` has the bye of the Swiss round being played. */
export function hasByeNow(tour, username) {
  if (tour.kind !== "swiss" || tour.status !== "running" || !tour.rounds.length) return false;
  const current = tour.rounds[tour.rounds.length - 1];
  return current.some((board) => board.players[0] === username && board.players[1] === null);
}

/** One game of a player's, from its side: its mark (1, ½, 0, a bye's +, a running game's *). */
function mark(board, seat) {
  if (board.result === null) return "*";
  if (board.result === "bye") return "+";
  if (board.result === "draw") return "½";
  if (board.result === "none") return "–";
  return board.result === String(seat) ? "1" : "0";
}

/** A standings cell: each of the player's games, in order, a link to its replay (or to watch it). */
export function gamesCell(tour, username) {
  const games = [];
  for (const boards of tour.rounds) {
    for (const board of boards) {
      const seat = board.players.indexOf(username);
      if (seat < 0) continue;
      const opponent = board.players[1 - seat];
      if (!board.game_id) {
        games.push(h("span", { class: "tour-game bye", title: t("tourney.bye"), text: mark(board, seat) }));
        continue;
      }
      const where = board.result === null ? `/watch/${board.game_id}` : `/replay/${board.game_id}`;
      const label = t("tourney.game_against", { name: opponent ?? "?", result: mark(board, seat) });
      games.push(h("a", { class: "tour-game", href: where, title: label, "aria-label": label, text: mark(board, seat) }));
    }
  }
  return h("td", { class: "tour-games", "data-testid": "player-games" }, games);
}

/** The event's address, to copy and send. */
export function shareRow(tid) {
  return copyRow("tournament", t("tourney.share"), `${location.origin}/tournaments/${encodeURIComponent(tid)}`);
}
