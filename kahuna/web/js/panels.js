// Read-only panels of the game page, each a pure function of a player view: players and
// points, the opponent's hand, the card tracker and the end-of-game summary.

import { h, scrollBox } from "./dom.js";
import { t, colourName } from "./i18n.js";
import { cardBack, cardShown } from "./cards.js";
import { islandName, outcomeWords } from "./narrate.js";
import { playerName } from "./account.js";

/** A colour-blind-safe mark for a seat: a diamond for Black, a ring for White. */
export function seatMark(seat) {
  return h("span", { class: `seat-mark seat${seat}`, "aria-hidden": "true", text: seat === 0 ? "◆" : "●" });
}

function stonesOnBoard(view, seat) {
  return Object.values(view.stones).filter((o) => o === seat).length;
}

function bridgesOnBoard(view, seat) {
  return Object.values(view.bridges).filter((o) => o === seat).length;
}

function total(points) {
  return points.reduce((a, b) => a + b, 0);
}

/**
 * The two players: name, colour, points, stones, supply, hand size, known cards. hideHands
 * (hot-seat hand-over) leaves out which of the opponent's cards the seat on screen knows.
 */
export function playersPanel(view, players, me, online, hideHands = false) {
  const rows = [0, 1].map((seat) => {
    const name = players?.[seat] == null ? t("players.waiting") : playerName(players[seat]);
    const you = me === seat ? h("span", { class: "you", text: t("players.you") }) : null;
    const turn = view.to_move === seat && !view.result;
    const dot = online
      ? h("span", {
          class: `online ${online[seat] ? "on" : "off"}`,
          title: t(online[seat] ? "players.online" : "players.offline"),
        })
      : null;
    const handCards = [];
    const known = view.known[seat] || "";
    if (seat !== me) {
      const shown = hideHands ? "" : known;
      for (const c of shown) handCards.push(cardShown(c, "mini known"));
      for (let i = shown.length; i < view.hand_sizes[seat]; i++) handCards.push(cardBack("mini"));
    }
    return h("div", { class: `player seat${seat} ${turn ? "to-move" : ""}`, dataset: { seat } }, [
      h("div", { class: "player-head" }, [
        seatMark(seat),
        h("strong", { class: "player-colour", text: colourName(seat) }),
        h("span", { class: "player-name", title: name, text: name }),
        you,
        dot,
        turn ? h("span", { class: "turn-flag", text: t("players.to_move") }) : null,
      ]),
      h("dl", { class: "player-stats" }, [
        stat(t("players.points"), total(view.points[seat]), "points"),
        stat(t("players.stones_on_board"), stonesOnBoard(view, seat), "stones"),
        stat(t("players.bridges_on_board"), bridgesOnBoard(view, seat), "bridges"),
        stat(t("players.supply"), t("players.supply_value", view.supply[seat]), "supply"),
        stat(t("players.hand"), view.hand_sizes[seat], "hand-size"),
      ]),
      seat !== me && handCards.length
        ? h(
            "div",
            {
              class: "opponent-hand",
              role: "group",
              "aria-label": t("players.hand_known", {
                known: hideHands ? "—" : [...known].map(islandName).join(", ") || "—",
              }),
            },
            handCards,
          )
        : null,
    ]);
  });
  return h("section", { class: "players", "aria-label": t("players.title") }, rows);
}

function stat(label, value, key) {
  return h("div", { class: `stat stat-${key}` }, [h("dt", { text: label }), h("dd", { text: String(value) })]);
}

/** How many of each island's cards this viewer has not seen: public information only. */
export function trackerPanel(view) {
  const cells = Object.entries(view.unseen).map(([letter, n]) =>
    h(
      "li",
      { class: `tracker-cell isl-${letter} unseen${n}`, title: t("tracker.cell", { name: islandName(letter), n }) },
      [
        h("span", { class: "tracker-letter", text: letter }),
        h("span", { class: "tracker-dots", "aria-hidden": "true", text: "●".repeat(n) + "○".repeat(2 - n) }),
        h("span", { class: "visually-hidden", text: t("tracker.cell", { name: islandName(letter), n }) }),
      ],
    ),
  );
  return h("section", { class: "tracker", "aria-labelledby": "tracker-title" }, [
    h("h2", { id: "tracker-title", text: t("tracker.title") }),
    h("p", { class: "hint", text: t("tracker.hint") }),
    h("ul", {}, cells),
  ]);
}

/**
 * The end of the game: who won, why, and the points of each round; an aborted game has only
 * its sentence (no scores were made). The table wraps inside its panel, even on a phone.
 */
export function summaryPanel(view, players, links) {
  const result = view.result;
  const outcome = h("p", { class: "summary-outcome", text: outcomeWords(result.winner, result.reason) });
  const parts = [h("h2", { id: "summary-title", text: t("summary.title") }), outcome];
  if (result.reason !== "aborted") parts.push(scrollBox(t("summary.title"), [scoreTable(view, players)]));
  parts.push(h("p", { class: "summary-links" }, links));
  return h("section", { class: "summary", role: "status", "aria-labelledby": "summary-title" }, parts);
}

/**
 * "Download": a finished game's record (kahuna-record/1), which `kahuna replay` and `kahuna show`
 * read; the server sends it as the file kahuna-<game id>.json.
 */
export function downloadLink(gameId) {
  return h("a", {
    href: `/api/games/${encodeURIComponent(gameId)}/record`,
    download: `kahuna-${gameId}.json`,
    class: "btn download",
    text: t("summary.download"),
  });
}

/** The points of each round, a column per player (two columns fit any phone, in any language). */
function scoreTable(view, players) {
  const winner = view.result.winner;
  const cell = (tag, seat, attrs, children) =>
    h(tag, { ...attrs, class: [attrs.class, winner === seat ? "winner" : ""].filter(Boolean).join(" ") }, children);
  const header = h("tr", {}, [
    h("th", { scope: "col", text: t("summary.player") }),
    ...[0, 1].map((seat) =>
      cell("th", seat, { scope: "col" }, [
        seatMark(seat),
        ` ${colourName(seat)}`,
        players?.[seat] ? h("span", { class: "summary-name", text: playerName(players[seat]) }) : null,
      ]),
    ),
  ]);
  const row = (label, key, values) =>
    h("tr", { class: key }, [
      h("th", { scope: "row", text: label }),
      ...values.map((value, seat) => cell("td", seat, {}, [String(value)])),
    ]);
  const rows = [
    row(t("summary.stones"), "stones", [0, 1].map((seat) => stonesOnBoard(view, seat))),
    row(t("summary.round", { n: 1 }), "round", [0, 1].map((seat) => view.points[seat][0])),
    row(t("summary.round", { n: 2 }), "round", [0, 1].map((seat) => view.points[seat][1])),
    row(t("summary.final"), "round", [0, 1].map((seat) => view.points[seat][2])),
    row(t("summary.total"), "total", [0, 1].map((seat) => total(view.points[seat]))),
  ];
  return h("table", { class: "score-table" }, [h("thead", {}, header), h("tbody", {}, rows)]);
}
