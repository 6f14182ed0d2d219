// The game log in words, in the current language, driven only by the event JSON (and, for games
// loaded from a history of tokens, by the tokens): it words what happened, never judges it.

import { t, colourName } from "./i18n.js";

let islandNames = {};

/** Learn the island names from board.json (called once at start-up). */
export function setIslandNames(board) {
  islandNames = Object.fromEntries(board.islands.map((i) => [i.letter, i.name]));
}

export function islandName(letter) {
  return islandNames[letter] || letter;
}

export function lineWords(line) {
  return `${islandName(line[0])}–${islandName(line[1])}`;
}

function cardsWords(cards) {
  return [...cards].map(islandName).join(" + ");
}

/** One sentence for one event (already redacted for the reader: hidden cards are null). */
export function narrateEvent(ev) {
  const who = ev.seat !== undefined ? colourName(ev.seat) : "";
  switch (ev.type) {
    case "bridge_built":
      return ev.card === null
        ? t("ev.bridge_replaced", { who, line: lineWords(ev.line) })
        : t("ev.bridge_built", { who, line: lineWords(ev.line), card: islandName(ev.card) });
    case "bridge_removed":
      return t("ev.bridge_removed", {
        who,
        owner: colourName(ev.owner),
        line: lineWords(ev.line),
        cards: cardsWords(ev.cards),
      });
    case "island_claimed":
      return t("ev.island_claimed", { who, island: islandName(ev.island) });
    case "bridge_returned":
      return t("ev.bridge_returned", { owner: colourName(ev.owner), line: lineWords(ev.line) });
    case "stone_lost":
      return t("ev.stone_lost", { owner: colourName(ev.owner), island: islandName(ev.island) });
    case "card_discarded":
      return ev.card === null
        ? t("ev.discarded_hidden", { who })
        : t("ev.discarded", { who, card: islandName(ev.card) });
    case "card_taken":
      if (ev.from_display) return t("ev.took_display", { who, card: islandName(ev.card) });
      return ev.card === null ? t("ev.drew_hidden", { who }) : t("ev.drew", { who, card: islandName(ev.card) });
    case "display_refilled":
      return t("ev.refilled", { card: islandName(ev.card) });
    case "declined":
      return t("ev.declined", { who });
    case "turn_ended":
      return t("ev.turn_ended", { who });
    case "round_scored":
      return scoreWords(ev);
    case "reshuffled":
      return t("ev.reshuffled", {
        round: ev.round,
        size: ev.deck_size,
        display: [...ev.display].map(islandName).join(", "),
      });
    case "final_turns_began":
      return t("ev.final_turns", { first: colourName(ev.first), second: colourName(1 - ev.first) });
    case "game_over":
      return outcomeWords(ev.winner, ev.reason);
    default:
      return ev.type;
  }
}

function scoreWords(ev) {
  const counts = t("ev.stone_counts", { black: ev.stones[0], white: ev.stones[1] });
  const scorer = [0, 1].find((seat) => ev.points[seat] > 0);
  const score =
    scorer === undefined
      ? t("ev.nobody_scores")
      : t(ev.points[scorer] === 1 ? "ev.scores_one" : "ev.scores", {
          who: colourName(scorer),
          points: ev.points[scorer],
        });
  return ev.final ? t("ev.final_scored", { counts, score }) : t("ev.round_scored", { round: ev.round, counts, score });
}

/** Who won and why, as one sentence. */
export function outcomeWords(winner, reason) {
  if (reason === "aborted") return t("outcome.aborted");
  if (reason === "left-draw") return t("outcome.left-draw");
  if (winner === null) return t("outcome.draw");
  const params = { who: colourName(winner), other: colourName(1 - winner) };
  const key = `outcome.${reason}`;
  return t(key, params) === key ? t("outcome.points", params) : t(key, params);
}

/** A sentence for a token of the history (used when the events are not known, e.g. after a reload). */
export function narrateToken(token, seat) {
  const who = colourName(seat);
  if (token === "pass") return t("ev.declined", { who });
  if (token === "end") return t("ev.turn_ended", { who });
  if (token === "d?") return t("ev.drew_hidden", { who });
  if (token === "-?") return t("ev.discarded_hidden", { who });
  if (token[0] === "-") return t("ev.discarded", { who, card: islandName(token[1]) });
  if (token[0] === "d") return t("ev.took_display", { who, card: islandName(token[1]) });
  if (token[1] === ">") {
    const line = [token[0], token[2]].sort().join("");
    return t("ev.bridge_built", { who, line: lineWords(line), card: islandName(token[0]) });
  }
  const removal = /^x([A-L]{2}):([A-L]{2})(\+?)$/.exec(token);
  if (removal) {
    return t("ev.bridge_removed", {
      who,
      owner: colourName(1 - seat),
      line: lineWords(removal[1]),
      cards: cardsWords(removal[2]),
    });
  }
  return token;
}

/** The seat that played each token of a history: seats alternate at every turn-ending token. */
export function seatsOfHistory(history) {
  const seats = [];
  let seat = 0;
  for (const token of history) {
    seats.push(seat);
    if (token === "pass" || token === "end" || token[0] === "d") seat = 1 - seat;
  }
  return seats;
}
