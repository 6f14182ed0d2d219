// The hint button of a learning game — against the AI, or hot-seat — never against a person
// (the server refuses those too, docs/analysis.md). It asks the server for the move the expert AI
// would play from this seat's own view and shows it as the player's own choice would look: the
// cards it uses selected, its line or bridge lit on the board (or its draw or button marked) and
// proposed, so that Confirm plays it; and it says why in one line.

import { h } from "./dom.js";
import { t, colourName, language } from "./i18n.js";
import { api } from "./api.js";
import { islandName, lineWords } from "./narrate.js";

/** "A, B and C" in the page's language. */
function listWords(items) {
  return new Intl.ListFormat(language(), { style: "long", type: "conjunction" }).format(items);
}

/** One part of a hint's reason (a code and its parameters, from the server) in the page's language. */
function reasonWords(part, other) {
  const params = {
    other: colourName(other),
    line: part.line ? lineWords(part.line) : "",
    card: part.card ? islandName(part.card) : "",
    islands: listWords((part.islands || []).map(islandName)),
    count: part.count,
  };
  const key = part.code === "sends_home" && part.count === 1 ? "hint.why.sends_home_one" : `hint.why.${part.code}`;
  const text = t(key, params);
  return text === key ? part.code : text;
}

/** Why the hint's move: "E>J: builds ELAI–JOJO", worded here from the server's coded reasons. */
export function hintWords(hint, seat) {
  const parts = (hint.reasons || []).map((part) => reasonWords(part, 1 - seat));
  return parts.length ? `${hint.action}: ${listWords(parts)}` : hint.action;
}

/** Whether the seat on screen may ask for a hint now: its turn, and its opponent is no person. */
export function hintAllowed(page, entry, mine) {
  if (!mine || page.tutorial || !entry.kinds) return false;
  const other = entry.kinds[1 - entry.seat] || "";
  return page.hotseat || other.startsWith("ai:");
}

/**
 * The hand slots a token plays, as a click would select them: the card of a build or a
 * discard, the two cards of a removal (two slots even for two cards of one island).
 */
export function cardsOf(token, hand) {
  const letters = /^[A-L]>/.test(token) ? token[0] : /^-[A-L]$/.test(token) ? token[1] : /^x..:(..)/.exec(token)?.[1] || "";
  const slots = [];
  for (const letter of letters) {
    const slot = [...hand].findIndex((card, i) => card === letter && !slots.includes(i));
    if (slot >= 0) slots.push(slot);
  }
  return slots;
}

export function hintButton(page, entry) {
  return h("span", { class: "action" }, [
    h("button", {
      type: "button",
      class: "btn act-hint",
      id: "hint",
      onclick: () => askHint(page, entry),
      text: t("act.hint"),
    }),
  ]);
}

async function askHint(page, entry) {
  // A "seat:N" entry is the signed-in account's seat: the server finds it from the session cookie.
  const tokens = page.conns.map((c) => c.conn.token).filter((token) => token && !token.startsWith("seat:"));
  const version = entry.version; // the game's log version, as the server counts it (take-backs included)
  page.showMessage(t("hint.thinking"), true);
  try {
    const hint = await api.hint(page.gameId, tokens);
    if (hint.version !== version || entry.version !== version) return page.showMessage("");
    page.selected = cardsOf(hint.action, entry.view.hand || "");
    page.replace = hint.action.endsWith("+");
    page.proposed = hint.action;
    page.render();
    page.showMessage(t("hint.ai", { why: hintWords(hint, entry.seat) }), true);
  } catch (err) {
    page.showMessage(err.message);
  }
}
