// The hint button of a learning game — against the AI, or hot-seat — never against a person
// (the server refuses those too, docs/analysis.md). It asks the server for the move the expert AI
// would play from this seat's own view and shows it as the player's own choice would look: the
// cards it uses selected, its line or bridge lit on the board (or its draw or button marked) and
// proposed, so that Confirm plays it; and it says why in one line.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { api } from "./api.js";

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
  const version = entry.view.history.length;
  page.showMessage(t("hint.thinking"), true);
  try {
    const hint = await api.hint(page.gameId, tokens);
    if (hint.version !== version || entry.view.history.length !== version) return page.showMessage("");
    page.selected = cardsOf(hint.action, entry.view.hand || "");
    page.replace = hint.action.endsWith("+");
    page.proposed = hint.action;
    page.render();
    page.showMessage(t("hint.ai", { why: hint.why }), true);
  } catch (err) {
    page.showMessage(err.message);
  }
}
