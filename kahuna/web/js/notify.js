// Notifications in the browser (docs/accounts.md, "Notifications"): the account page's settings
// panel (a checkbox per kind and channel) and the page an unsubscribe link opens
// (/unsubscribe/TOKEN), which says what the link turns off and does it only when asked: a mail
// scanner that opens every link turns nothing off.
//
// The panel has a column per channel the server can use now (GET /api/me/notifications answers
// "channels": "mail" with e-mail on; "push" once Web Push exists), so a new channel needs only its
// label here ("notify.channel_<name>").

import { h, fill } from "./dom.js";
import { t } from "./i18n.js";
import { api } from "./api.js";
import { refusal } from "./refusal.js";

const KINDS = ["your_turn", "deadline", "challenge", "tournament"];

function words(err) {
  return err.code === "token_invalid" ? t("notify.token_invalid") : refusal(err);
}

/** The account page's notification settings. */
export function notificationPanel() {
  const table = h("div", { class: "notify-grid", "data-testid": "notify-grid" });
  const status = h("p", { class: "message", "aria-live": "polite", "data-testid": "notify-status" });
  const panel = h("section", { class: "card-panel notify", "aria-labelledby": "notify-title" }, [
    h("h2", { id: "notify-title", text: t("notify.title") }),
    h("p", { class: "hint", text: t("notify.help") }),
    table,
    status,
  ]);
  const show = (answer) => {
    const channels = answer.channels;
    if (!channels.length) {
      fill(table, [h("p", { class: "hint", "data-testid": "notify-off", text: t("notify.none") })]);
      return;
    }
    const head = h("tr", {}, [
      h("th", { scope: "col", text: t("notify.kind") }),
      ...channels.map((c) => h("th", { scope: "col", text: t(`notify.channel_${c}`) })),
    ]);
    const rows = KINDS.map((kind) =>
      h("tr", {}, [
        h("th", { scope: "row", id: `notify-${kind}`, text: t(`notify.kind_${kind}`) }),
        ...channels.map((channel) => {
          const box = h("input", {
            type: "checkbox",
            id: `notify-${kind}-${channel}`,
            "aria-label": `${t(`notify.kind_${kind}`)}: ${t(`notify.channel_${channel}`)}`,
          });
          box.checked = answer.kinds[kind][channel];
          box.addEventListener("change", async () => {
            status.textContent = "";
            try {
              show(await api.setNotifications({ [kind]: { [channel]: box.checked } }));
              status.textContent = t("notify.saved");
              status.classList.add("ok"); // saved, not refused: no error's red
            } catch (err) {
              box.checked = !box.checked;
              status.classList.remove("ok");
              status.textContent = refusal(err);
            }
          });
          return h("td", {}, [box]);
        }),
      ]),
    );
    fill(table, [h("table", {}, [h("thead", {}, [head]), h("tbody", {}, rows)])]);
  };
  api.notifications().then(show, (err) => (status.textContent = refusal(err)));
  return panel;
}

/** /unsubscribe/TOKEN: what the link turns off, and a button that does it. */
export async function mountUnsubscribe(root, token) {
  const message = h("p", { class: "message", role: "status", "data-testid": "unsubscribe-status" });
  const button = h("button", { type: "button", class: "btn primary", id: "unsubscribe", text: t("notify.stop") });
  button.hidden = true;
  document.title = `${t("notify.unsubscribe_title")} — Kahuna`;
  fill(root, [
    h("div", { class: "lobby account-page" }, [
      h("section", { class: "card-panel account-form" }, [
        h("h1", { text: t("notify.unsubscribe_title") }),
        message,
        button,
        h("p", {}, [h("a", { href: "/account", text: t("notify.settings_link") })]),
      ]),
    ]),
  ]);
  let link;
  try {
    link = await api.unsubscribeLink(token);
  } catch (err) {
    message.textContent = words(err);
    return;
  }
  const kind = t(`notify.kind_${link.kind}`);
  if (!link.mail) {
    message.textContent = t("notify.already_off", { kind });
    return;
  }
  message.textContent = t("notify.confirm", { kind });
  button.hidden = false;
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      await api.unsubscribe(token);
      button.hidden = true;
      message.textContent = t("notify.stopped", { kind });
    } catch (err) {
      button.disabled = false;
      message.textContent = words(err);
    }
  });
}
