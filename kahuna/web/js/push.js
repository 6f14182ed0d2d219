// The installable app and Web Push in the browser (docs/accounts.md, "Notifications"): every page
// registers the service worker (/sw.js: the shell from a cache when the network fails, and the
// notifications) and hands it the notification texts in the page's language; the account page's
// panel turns notifications on or off for this device.

import { h } from "./dom.js";
import { t, onLanguageChange } from "./i18n.js";
import { api } from "./api.js";
import { refusal } from "./refusal.js";

const KINDS = ["your_turn", "deadline", "challenge", "tournament"];

function supported() {
  return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
}

/** The words the worker shows, in the page's language (it has no language tables of its own). */
function pushTexts() {
  const texts = { title: t("push.title"), someone: t("push.someone") };
  for (const kind of KINDS) texts[kind] = t(`push.${kind}`);
  return texts;
}

async function sendTexts() {
  const registration = await navigator.serviceWorker.ready;
  registration.active?.postMessage({ type: "push-texts", texts: pushTexts() });
}

/** Register the service worker (pages served over HTTPS or from localhost only: browsers refuse it
 * elsewhere, and the page works as before). */
export function registerWorker() {
  if (!("serviceWorker" in navigator) || !window.isSecureContext) return;
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).then(
    () => {
      sendTexts();
      onLanguageChange(() => sendTexts());
    },
    () => {}, // no worker: the page still works, without the offline shell and notifications
  );
}

function keyBytes(base64url) {
  const base64 = base64url.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (base64url.length % 4)) % 4);
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}

/** The account page's panel: notifications on this device, on or off. */
export function pushPanel() {
  const state = h("p", { id: "push-state", "data-testid": "push-state", "aria-live": "polite" });
  const enable = h("button", { type: "button", class: "btn", id: "push-enable", text: t("push.enable") });
  const disable = h("button", { type: "button", class: "btn", id: "push-disable", text: t("push.disable") });
  const panel = h("section", { class: "card-panel push", "aria-labelledby": "push-title" }, [
    h("h2", { id: "push-title", text: t("push.section") }),
    h("p", { class: "hint", text: t("push.help") }),
    state,
    enable,
    disable,
  ]);
  const show = (subscribed, words) => {
    enable.hidden = subscribed;
    disable.hidden = !subscribed;
    state.textContent = words ?? (subscribed ? t("push.enabled") : t("push.off"));
  };
  if (!supported() || !window.isSecureContext) {
    enable.hidden = disable.hidden = true;
    state.textContent = t("push.unsupported");
    return panel;
  }
  const current = async () => (await navigator.serviceWorker.ready).pushManager.getSubscription();
  enable.addEventListener("click", async () => {
    enable.disabled = true;
    try {
      const permission = await Notification.requestPermission();
      if (permission !== "granted") {
        show(false, t("push.denied"));
        return;
      }
      const { key } = await api.pushKey();
      const registration = await navigator.serviceWorker.ready;
      const subscription =
        (await registration.pushManager.getSubscription()) ||
        (await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) }));
      await api.subscribePush(subscription.toJSON());
      await sendTexts();
      show(true);
    } catch (err) {
      show(false, err.code === "too_many_devices" ? t("push.too_many_devices") : err.code ? refusal(err) : t("push.failed"));
    } finally {
      enable.disabled = false;
    }
  });
  disable.addEventListener("click", async () => {
    disable.disabled = true;
    try {
      const subscription = await current();
      if (subscription) {
        await api.unsubscribePush(subscription.endpoint).catch((err) => {
          if (err.code !== "not_found") throw err; // the server had forgotten it already
        });
        await subscription.unsubscribe();
      }
      show(false);
    } catch (err) {
      show(true, refusal(err));
    } finally {
      disable.disabled = false;
    }
  });
  show(false, "");
  current().then(
    (subscription) => show(Boolean(subscription) && Notification.permission === "granted"),
    () => show(false),
  );
  return panel;
}
