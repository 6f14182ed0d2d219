// An event's chat on its page (tournaments.js; issue 51): the newest 100 lines when the page loads,
// then each line live from /ws/lobby (the page watches the event: `tournament_chat`). Its players
// write (POST /api/tournaments/<id>/chat), everyone reads; a finished event's chat is read-only.
// The game chat's look (chat-lines, chat-form); names and lines are text only.

import { h, fill } from "./dom.js";
import { t } from "./i18n.js";
import { csrfToken } from "./api.js";

const SHOWN = 100;

/** Why a line was refused, in the reader's language (the server's body: `error`, `retry_after`…). */
function refusal(status, data) {
  const code = data?.error;
  if (code === "rate_limited" && data.retry_after) return t("game.too_fast", { s: Math.ceil(data.retry_after) });
  if (code === "muted" && data.seconds_left) return t("chat.muted", { n: Math.ceil(data.seconds_left / 60) });
  if (code === "not_entrant") return t("tourney.chat_players_only");
  if (code === "finished") return t("tourney.chat_closed");
  if (status === 0) return t("tourney.error.offline");
  return t("tourney.error.other", { reason: data?.message || code || status });
}

export class EventChat {
  constructor(tid) {
    this.tid = tid;
    this.lines = [];
    this.path = `/api/tournaments/${encodeURIComponent(tid)}/chat`;
    this.list = h("ol", { class: "chat-lines", "aria-live": "polite", "data-testid": "tour-chat-lines" });
    this.input = h("input", { type: "text", maxlength: "300", autocomplete: "off", id: "tour-chat-input", placeholder: t("chat.placeholder") });
    this.note = h("p", { class: "muted", "data-testid": "tour-chat-note" });
    this.error = h("p", { class: "error", role: "alert", "data-testid": "tour-chat-error" });
    this.form = h("form", { class: "chat-form", onsubmit: (e) => this.submit(e) }, [
      h("label", { for: "tour-chat-input", class: "visually-hidden", text: t("chat.placeholder") }),
      this.input,
      h("button", { type: "submit", class: "btn", text: t("chat.send") }),
    ]);
    this.element = h("section", { class: "chat tour-chat", "aria-labelledby": "tour-chat-title", "data-testid": "tour-chat" }, [
      h("h2", { id: "tour-chat-title", text: t("tourney.chat") }),
      this.list,
      this.form,
      this.note,
      this.error,
    ]);
    this.writable("guest");
  }

  /** Who reads the panel: "player" writes; "guest", "viewer" (not playing) and "finished" read. */
  writable(who) {
    this.form.hidden = who !== "player";
    const notes = { guest: "tourney.chat_sign_in", viewer: "tourney.chat_players_only", finished: "tourney.chat_closed" };
    this.note.textContent = notes[who] ? t(notes[who]) : "";
    this.note.hidden = !notes[who];
  }

  /** The newest lines afresh from the server (on load, and after the live connection was away). */
  async load() {
    try {
      const response = await fetch(this.path);
      if (!response.ok) return;
      const data = await response.json();
      for (const line of data.lines) this.add(line, false);
      this.draw();
    } catch {
      // offline: the next load catches up
    }
  }

  /** A line (from the load or live); each line once, in the order of its number. */
  add(line, draw = true) {
    if (this.lines.some((l) => l.line_id === line.line_id)) return;
    this.lines.push(line);
    this.lines.sort((a, b) => a.line_id - b.line_id);
    this.lines = this.lines.slice(-SHOWN);
    if (draw) this.draw();
  }

  async submit(event) {
    event.preventDefault();
    const text = this.input.value.trim();
    if (!text) return;
    this.error.textContent = "";
    let response = null;
    let data = null;
    try {
      response = await fetch(this.path, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": csrfToken() || "" },
        body: JSON.stringify({ text }),
      });
      data = await response.json().catch(() => null);
    } catch {
      // offline: said below
    }
    if (!response?.ok) {
      this.error.textContent = refusal(response ? response.status : 0, data);
      return;
    }
    this.input.value = "";
    this.add(data);
  }

  draw() {
    fill(
      this.list,
      this.lines.map((line) =>
        h("li", { class: "chat-line", "data-testid": "tour-chat-line" }, [
          h("span", { class: "who", text: `${line.username}: ` }),
          h("span", { class: "chat-text", text: line.text }),
        ]),
      ),
    );
    this.list.scrollTop = this.list.scrollHeight;
  }
}
