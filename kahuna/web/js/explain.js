// Why an action the player tried is not in the server's `legal` list, in words. The permission
// always comes from `legal` (one referee); this only finds the most helpful explanation in the view.

import { t, colourName } from "./i18n.js";
import { islandName, lineWords } from "./narrate.js";

const HAND_LIMIT = 5;

function count(cards, letter) {
  return [...(cards || "")].filter((c) => c === letter).length;
}

function touchesEnemyStone(view, seat, line) {
  return [...line].some((island) => view.stones[island] === 1 - seat);
}

/** Reason (a sentence) why token may not be played by seat now; null if nothing specific is known. */
function explain(view, seat, token) {
  if (!view) return t("why.loading");
  if (view.result) return t("why.game_over");
  if (seat === null || seat === undefined) return t("why.spectator");
  if (view.to_move !== seat) return t("why.not_your_turn", { who: colourName(view.to_move) });
  const hand = view.hand || "";
  const lines = view.bridges;
  const build = /^([A-L])>([A-L])$/.exec(token);
  if (build) {
    const [card, other] = [build[1], build[2]];
    const line = [card, other].sort().join("");
    if (!(line in lines)) return t("why.no_line", { a: islandName(card), b: islandName(other) });
    if (!count(hand, card)) return t("why.no_card", { card: islandName(card) });
    if (view.supply[seat].bridges === 0) return t("why.no_bridges");
    if (lines[line] !== null) return t("why.occupied", { line: lineWords(line) });
    if (view.variant.no_build_at_enemy_stone && touchesEnemyStone(view, seat, line)) {
      return t("why.enemy_stone", { line: lineWords(line) });
    }
    return null;
  }
  const removal = /^x([A-L]{2}):([A-L]{2})(\+?)$/.exec(token);
  if (removal) {
    const [line, cards] = [removal[1], removal[2]];
    if (!(line in lines)) return t("why.not_a_line", { line });
    if (![...cards].every((c) => line.includes(c))) return t("why.wrong_cards", { line: lineWords(line) });
    if (lines[line] === null) return t("why.no_bridge_there", { line: lineWords(line) });
    if (lines[line] === seat) return t("why.own_bridge", { line: lineWords(line) });
    for (const c of new Set(cards)) {
      if (count(hand, c) < count(cards, c))
        return t("why.need_cards", { cards: [...cards].map(islandName).join(" + ") });
    }
    if (removal[3] && !view.variant.replace_on_remove) return t("why.no_replace_variant");
    return null;
  }
  const discard = /^-([A-L])$/.exec(token);
  if (discard) return count(hand, discard[1]) ? null : t("why.no_card", { card: islandName(discard[1]) });
  if (token === "end") return view.phase === "final" ? null : t("why.end_only_final");
  if (view.phase === "final") return t("why.no_draw_final");
  if (token === "pass") return view.declined ? t("why.must_draw") : null;
  if (token === "d?" || /^d[A-L]$/.test(token)) {
    if (view.hand_sizes[seat] >= HAND_LIMIT) return t("why.hand_full", { limit: HAND_LIMIT });
    if (token === "d?") return view.deck_size === 0 ? t("why.deck_empty") : null;
    return count(view.display, token[1]) ? null : t("why.not_in_display", { card: islandName(token[1]) });
  }
  return t("why.not_notation", { token });
}

/** The explanation for a token that is not legal, with a generic fallback. */
export function whyNot(view, seat, token) {
  return explain(view, seat, token) || t("why.not_now");
}
