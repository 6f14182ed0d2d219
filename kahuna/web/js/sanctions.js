// A sanctioned player's side of moderation (issue 48, docs/moderation.md, *Notices and appeals*):
// the notice under the header, on any page, of each sanction on the account not acknowledged yet
// (what was done and why, in the page's language), with "Understood" (it is not shown again) and
// "Appeal" (a note of at most 500 characters, once per sanction); and the account page's list of
// the account's sanctions with their appeals and the moderators' decisions. The server never says
// who sanctioned; every moderator's word goes on the page as text only.

import { h, fill } from "./dom.js";
import { t } from "./i18n.js";
import { api, ApiError } from "./api.js";
import { when } from "./report.js";
import { refusal } from "./refusal.js";

const NOTE_MAX = 500;
const REFUSALS = ["already_appealed", "already_undone", "note_too_long", "no_such_sanction", "invalid"];

function sanctionRefusal(err) {
  if (!(err instanceof ApiError) || err.code === "offline") return t("lobby.offline");
  return t(`sanction.err_${REFUSALS.includes(err.code) ? err.code : "invalid"}`, { limit: NOTE_MAX });
}

/** What was done: "A moderator warned you.", a hidden line, a rename, or a mute with its minutes
 * (and those left). */
function whatWasDone(sanction) {
  if (["hide_line", "rename", "mark_cheating", "mark_rating_manipulation", "close"].includes(sanction.kind)) {
    return t(`sanction.${sanction.kind}`);
  }
  if (!["chat_mute", "shadow_mute", "block_signups"].includes(sanction.kind)) return t("sanction.warn");
  if (sanction.kind === "shadow_mute") return t("sanction.shadow_mute", { n: Math.round((sanction.expires - sanction.created) / 60) });
  const minutes = Math.round((sanction.expires - sanction.created) / 60);
  const left = sanction.seconds_left ? ` ${t("sanction.left", { n: Math.ceil(sanction.seconds_left / 60) })}` : "";
  return t(`sanction.${sanction.kind}`, { n: minutes }) + left;
}

/** Where the sanction stands: lifted, or its appeal waiting or decided with the moderator's reason. */
function standing(sanction) {
  const appeal = sanction.appeal;
  if (appeal?.decision) return t(`sanction.${appeal.decision}`, { reason: appeal.reason });
  if (appeal) return t("sanction.appealed", { date: when(appeal.created) });
  return sanction.undone ? t("sanction.undone") : null;
}

/** What a notice and the account page say of one sanction. */
function description(sanction) {
  const state = standing(sanction);
  return [
    h("p", {}, [h("strong", { text: whatWasDone(sanction) }), ` · ${when(sanction.created)}`]),
    h("p", { class: "sanction-reason", text: t("sanction.why", { reason: sanction.reason }) }),
    state ? h("p", { class: "sanction-standing", "data-testid": "sanction-standing", text: state }) : null,
  ];
}

/** The button that opens the appeal's form in `box`; `sent` runs once the appeal is stored. */
function appealButton(sanction, box, sent) {
  const id = `appeal-note-${sanction.sanction_id}`;
  const open = () => {
    const note = h("textarea", { id, maxlength: NOTE_MAX, rows: 3, required: true, "aria-describedby": `${id}-count` });
    const count = h("p", { id: `${id}-count`, class: "hint" });
    const showCount = () => (count.textContent = t("report.count", { n: note.value.length, max: NOTE_MAX }));
    note.addEventListener("input", showCount);
    showCount();
    const status = h("p", { class: "message", role: "status", "data-testid": "appeal-status" });
    const send = h("button", { type: "submit", class: "btn primary", text: t("sanction.appeal_send") });
    const form = h(
      "form",
      {
        class: "appeal-form",
        onsubmit: async (e) => {
          e.preventDefault();
          send.disabled = true;
          status.textContent = "";
          try {
            await api.appeal(sanction.sanction_id, note.value.trim());
            fill(box, [h("p", { class: "message ok", role: "status", "data-testid": "appeal-status", text: t("sanction.appeal_sent") })]);
            sent();
          } catch (err) {
            status.textContent = sanctionRefusal(err);
            send.disabled = false;
          }
        },
      },
      [h("label", { for: id, text: t("sanction.appeal_note") }), note, count, send, status],
    );
    fill(box, [form]);
    note.focus();
  };
  return h("button", { type: "button", class: "btn", "data-action": "appeal", onclick: open, text: t("sanction.appeal") });
}

function appealable(sanction) {
  return !sanction.undone && !sanction.appeal;
}

/** One notice: what was done and why; "Understood" hides it for good, "Appeal" opens the form. */
function notice(sanction) {
  const box = h("div", { class: "appeal-box" });
  const item = h("section", { class: "sanction-notice", "aria-labelledby": `notice-${sanction.sanction_id}`, "data-testid": "sanction-notice" });
  const seen = () => api.sanctionSeen(sanction.sanction_id).catch(() => null);
  const ok = h("button", {
    type: "button",
    class: "btn primary",
    "data-action": "seen",
    text: t("sanction.ok"),
    onclick: async () => {
      await seen();
      item.remove();
    },
  });
  fill(box, appealable(sanction) ? [appealButton(sanction, box, seen)] : []);
  fill(item, [
    h("h2", { id: `notice-${sanction.sanction_id}`, text: t("sanction.notice_title") }),
    ...description(sanction),
    box,
    h("p", {}, [ok]),
  ]);
  return item;
}

/** The notices under the header for `account` (the promise of GET /api/me): asked for only when
 * GET /api/me counts sanctions whose notice the account has not acknowledged (`notices`). */
export function sanctionNotices(account) {
  const region = h("div", { class: "sanction-notices", "data-testid": "sanction-notices" });
  account.then(async (me) => {
    if (!me?.notices) return;
    try {
      const { sanctions } = await api.mySanctions();
      fill(region, sanctions.filter((s) => !s.seen).map(notice));
    } catch {
      // no notice this time: the next page asks again
    }
  });
  return region;
}

/** The account page's list of the sanctions on the account, each with its appeal or "Appeal". */
export function mySanctionsPanel() {
  const list = h("ul", { class: "my-sanctions", "data-testid": "my-sanctions" });
  const panel = h("section", { class: "card-panel", "aria-labelledby": "my-sanctions-title" }, [
    h("h2", { id: "my-sanctions-title", text: t("sanction.mine") }),
    list,
  ]);
  const item = (sanction) => {
    const box = h("div", { class: "appeal-box" });
    fill(box, appealable(sanction) ? [appealButton(sanction, box, () => null)] : []);
    return h("li", { class: "my-sanction", dataset: { sanction: String(sanction.sanction_id) } }, [...description(sanction), box]);
  };
  api
    .mySanctions()
    .then(({ sanctions }) => fill(list, sanctions.length ? sanctions.map(item) : [h("li", { class: "hint", text: t("sanction.none") })]))
    .catch((err) => fill(list, [h("li", { class: "message", text: sanctionRefusal(err) })]));
  return panel;
}

/** The account page's form for a new name, shown while a moderator's rename waits for one
 * (`must_rename` of GET /api/me); the name is chosen once, then the page reloads with it. */
export function renamePanel(me) {
  if (!me.must_rename) return null;
  const name = h("input", {
    id: "new-name",
    type: "text",
    required: true,
    minlength: 2,
    maxlength: 20,
    pattern: "[A-Za-z0-9_\\-]{2,20}",
    autocapitalize: "none",
    spellcheck: "false",
  });
  const status = h("p", { class: "message", role: "alert", "data-testid": "rename-status" });
  const form = h(
    "form",
    {
      id: "rename-form",
      onsubmit: async (e) => {
        e.preventDefault();
        status.textContent = "";
        try {
          await api.chooseName(name.value.trim());
          location.reload();
        } catch (err) {
          status.textContent = err instanceof ApiError ? refusal(err) : t("lobby.offline");
        }
      },
    },
    [
      h("div", { class: "field" }, [h("label", { for: "new-name", text: t("sanction.new_name") }), name]),
      h("button", { type: "submit", class: "btn primary", text: t("sanction.choose_name") }),
      status,
    ],
  );
  return h("section", { class: "card-panel rename", "aria-labelledby": "rename-title", "data-testid": "rename" }, [
    h("h2", { id: "rename-title", text: t("sanction.rename_title") }),
    h("p", { class: "hint", text: t("sanction.rename_hint", { name: me.username }) }),
    form,
  ]);
}
