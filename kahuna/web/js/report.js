// Reporting a player (issue 48, docs/moderation.md): the report dialog, opened from an opponent's
// chat line on the game page or from a profile, and the list of one's own reports on the account
// page (their status, never what a moderator did). The server decides every rule; this module
// sends the report and words its answer.

import { h, fill } from "./dom.js";
import { t } from "./i18n.js";
import { api, ApiError } from "./api.js";

export const REPORT_REASONS = ["cheating", "rating_manipulation", "abuse", "offensive_name", "spam", "other"];
const NOTE_MAX = 500;
const REFUSALS = [
  "unauthorized",
  "bot_account",
  "note_too_long",
  "not_found",
  "own_account",
  "invalid",
  "not_in_game",
  "no_such_line",
  "not_their_line",
  "already_reported",
];

/** The server's refusal of a report, in words (its code, never its message). */
export function reportRefusal(err) {
  if (!(err instanceof ApiError) || err.code === "offline") return t("lobby.offline");
  if (err.code === "rate_limited") return t("report.err_rate_limited", { s: err.retryAfter || 60 });
  if (REFUSALS.includes(err.code)) return t(`report.err_${err.code}`, { limit: NOTE_MAX });
  return t("report.err_invalid");
}

/**
 * The report dialog (a modal <dialog>: Escape or Cancel closes it, focus returns to the button that
 * opened it, else to `fallback` if that button is gone, as a chat line's is when the chat is
 * drawn again): the reason, a note of at most 500 characters with its counter, Send. `gameId`
 * and `lineId` name the game and the chat line reported, where there are; `lineText` is shown.
 * From a game, `seat` names the player reported (the server reports the account that plays it
 * now): `username` is then only the name the game shows, which a moderator may have changed
 * since (docs/moderation.md).
 */
export function openReportDialog({ username, seat = null, gameId = null, lineId = null, lineText = null, fallback = null }) {
  const opener = document.activeElement;
  const reason = h("select", { id: "report-reason", required: true }, [
    h("option", { value: "", text: t("report.choose") }),
    ...REPORT_REASONS.map((r) => h("option", { value: r, text: t(`report.reason_${r}`) })),
  ]);
  const note = h("textarea", { id: "report-note", maxlength: NOTE_MAX, rows: 4, "aria-describedby": "report-count" });
  const count = h("p", { id: "report-count", class: "hint" });
  const showCount = () => (count.textContent = t("report.count", { n: note.value.length, max: NOTE_MAX }));
  note.addEventListener("input", showCount);
  showCount();
  const status = h("p", { class: "message", role: "status", "data-testid": "report-status" });
  const send = h("button", { type: "submit", class: "btn primary", id: "report-send", text: t("report.send") });
  const cancel = h("button", { type: "button", class: "btn", id: "report-cancel", text: t("report.cancel") });
  const form = h(
    "form",
    {
      class: "report-form",
      onsubmit: async (e) => {
        e.preventDefault();
        send.disabled = true;
        status.textContent = "";
        const body = gameId && seat !== null ? { seat } : { username };
        Object.assign(body, { reason: reason.value, note: note.value });
        if (gameId) body.game_id = gameId;
        if (gameId && lineId !== null) body.line_id = lineId;
        try {
          await api.report(body);
          status.textContent = t("report.sent");
          status.classList.add("ok");
          send.hidden = true;
          cancel.textContent = t("report.close");
        } catch (err) {
          status.textContent = reportRefusal(err);
          send.disabled = false;
        }
      },
    },
    [
      h("h2", { id: "report-title", text: t("report.title", { name: username }) }),
      lineText === null ? null : h("blockquote", { class: "report-line", "data-testid": "report-line", text: lineText }),
      h("div", { class: "field" }, [h("label", { for: "report-reason", text: t("report.reason") }), reason]),
      h("div", { class: "field" }, [h("label", { for: "report-note", text: t("report.note") }), note, count]),
      status,
      h("p", { class: "actions" }, [send, " ", cancel]),
    ],
  );
  const dialog = h("dialog", { class: "report-dialog", "aria-labelledby": "report-title", "data-testid": "report-dialog" }, [form]);
  cancel.addEventListener("click", () => dialog.close());
  dialog.addEventListener("close", () => {
    dialog.remove();
    const back = opener instanceof HTMLElement && opener.isConnected ? opener : fallback;
    if (back) back.focus();
  });
  document.body.append(dialog);
  dialog.showModal();
  reason.focus();
  return dialog;
}

/** A date and time of the server (seconds since the epoch) in the page's words. */
export function when(seconds) {
  return new Date(seconds * 1000).toLocaleString(document.documentElement.lang || undefined);
}

/** The account page's "My reports": each report's player, reason, status and date, the newest first. */
export function myReportsPanel() {
  const list = h("ul", { class: "my-reports", "data-testid": "my-reports" });
  const panel = h("section", { class: "card-panel", "aria-labelledby": "my-reports-title" }, [
    h("h2", { id: "my-reports-title", text: t("report.mine") }),
    list,
  ]);
  api
    .myReports()
    .then(({ reports }) =>
      fill(
        list,
        reports.length
          ? reports.map((r) =>
              h("li", { class: "my-report", dataset: { status: r.status } }, [
                h("a", { href: `/users/${encodeURIComponent(r.username)}`, text: r.username }),
                ` · ${t(`report.reason_${r.reason}`)} · `,
                h("strong", { class: "report-status", text: t(`report.status_${r.status}`) }),
                ` · ${when(r.created)}`,
              ]),
            )
          : [h("li", { class: "hint", text: t("report.none") })],
      ),
    )
    .catch((err) => fill(list, [h("li", { class: "message", text: reportRefusal(err) })]));
  return panel;
}
