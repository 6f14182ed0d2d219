// The hint button of a learning game — against the AI, or hot-seat — never against a person
// (the server refuses those too, docs/analysis.md). It asks the server for the move the expert AI
// would play from this seat's own view, proposes it on the board (Confirm plays it) and says
// why in one line.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { api } from "./api.js";

/** Whether the seat on screen may ask for a hint now: its turn, and its opponent is no person. */
export function hintAllowed(page, entry, mine) {
  if (!mine || page.tutorial || !entry.kinds) return false;
  const other = entry.kinds[1 - entry.seat] || "";
  return page.hotseat || other.startsWith("ai:");
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
    page.proposed = hint.action;
    page.render();
    page.showMessage(t("hint.ai", { why: hint.why }), true);
  } catch (err) {
    page.showMessage(err.message);
  }
}
