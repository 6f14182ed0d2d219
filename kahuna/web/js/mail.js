// E-mail in the browser (docs/accounts.md, "E-mail"): the account page's address panel, the page a
// verification link opens (/email/verify#TOKEN) and the password-reset pages (/password-reset to ask
// for a link, /password-reset#TOKEN to choose the new password). A mailed link carries its token
// after the #, which the browser never sends anywhere: the page posts it, then drops it from the
// address bar and the history.

import { h, fill } from "./dom.js";
import { t, language } from "./i18n.js";
import { api } from "./api.js";
import { refusal } from "./refusal.js";

let held = null; // the token of this page's link, kept when the page is drawn again (another language)
let verifying = null; // the verification, posted once however often the page is drawn

/** The token after the # of a mailed link, taken out of the address bar (null if none). A link
 * pasted into a tab that shows its page already changes only the fragment: the page starts again. */
function takeToken() {
  window.addEventListener("hashchange", () => location.reload(), { once: true });
  const token = decodeURIComponent(location.hash.slice(1));
  if (token) {
    held = token;
    history.replaceState(null, "", location.pathname);
  }
  return held;
}

function describe(state) {
  if (!state.enabled) return t("mail.email_off");
  const lines = [];
  if (state.email) lines.push(t("mail.email_verified", { email: state.email }));
  if (state.pending) lines.push(t("mail.email_pending", { email: state.pending }));
  return lines.length ? lines.join(" ") : t("mail.email_none");
}

/** A neutral notice ("we mailed a link"): what was asked was done, so not in the error's red. */
function done(element, text) {
  element.classList.add("ok");
  element.textContent = text;
}

function failed(element, text) {
  element.classList.remove("ok");
  element.textContent = text;
}

/** The account page's e-mail panel: the address (verified, pending), set or remove it. */
export function emailPanel() {
  const state = h("p", { id: "email-state", "data-testid": "email-state", "aria-live": "polite" });
  const status = h("p", { class: "message", "aria-live": "polite", "data-testid": "email-status" });
  const input = h("input", { id: "email-address", type: "email", autocomplete: "email", maxlength: 254, required: true });
  const remove = h("button", { type: "button", class: "btn", id: "email-remove", text: t("mail.email_remove") });
  const form = h("form", { id: "email-form" }, [
    h("div", { class: "field" }, [h("label", { for: "email-address", text: t("mail.email_label") }), input]),
    h("button", { type: "submit", class: "btn", id: "email-save", text: t("mail.email_save") }),
  ]);
  const panel = h("section", { class: "card-panel email", "aria-labelledby": "email-title" }, [
    h("h2", { id: "email-title", text: t("mail.email_title") }),
    h("p", { class: "hint", text: t("mail.email_help") }),
    state,
    form,
    remove,
    status,
  ]);
  const show = (answer) => {
    state.textContent = describe(answer);
    form.hidden = !answer.enabled;
    remove.hidden = !(answer.email || answer.pending);
  };
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    status.textContent = "";
    try {
      const address = input.value.trim();
      show(await api.setEmail(address, language()));
      input.value = "";
      done(status, t("mail.email_sent", { email: address }));
    } catch (err) {
      failed(status, refusal(err));
    }
  });
  remove.addEventListener("click", async () => {
    try {
      await api.removeEmail();
      show(await api.email());
      done(status, t("mail.removed"));
    } catch (err) {
      failed(status, refusal(err));
    }
  });
  api.email().then(show, (err) => (status.textContent = refusal(err)));
  return panel;
}

/** The sign-in page's "Forgot your password?", shown when the server sends mail. */
export function forgotLink() {
  const box = h("p", { class: "forgot" });
  api.resetAvailable().then(
    (answer) => answer?.enabled && fill(box, [h("a", { href: "/password-reset", id: "forgot", text: t("mail.forgot") })]),
    () => {},
  );
  return box;
}

function page(root, title, children) {
  document.title = `${title} — Kahuna`;
  fill(root, [h("div", { class: "lobby account-page" }, [h("section", { class: "card-panel account-form" }, [h("h1", { text: title }), ...children])])]);
}

/** /email/verify#TOKEN: confirm the address. */
export async function mountVerifyEmail(root) {
  const message = h("p", { class: "message", role: "status", "data-testid": "verify-status", text: t("mail.verifying") });
  page(root, t("mail.verify_title"), [message, h("p", {}, [h("a", { href: "/account", text: t("account.title") })])]);
  const token = takeToken();
  try {
    if (!token) throw Object.assign(new Error(""), { code: "token_unknown" });
    verifying ??= api.verifyEmail(token);
    await verifying;
    done(message, t("mail.verified"));
  } catch (err) {
    failed(message, refusal(err));
  }
}

/** /password-reset: ask for a link; /password-reset#TOKEN: choose the new password. */
export function mountPasswordReset(root) {
  const token = takeToken();
  const status = h("p", { class: "message", role: "status", "data-testid": "reset-status" });
  if (!token) {
    const input = h("input", { id: "reset-email", type: "email", autocomplete: "email", maxlength: 254, required: true });
    const form = h("form", { id: "reset-ask" }, [
      h("p", { class: "hint", text: t("mail.reset_intro") }),
      h("div", { class: "field" }, [h("label", { for: "reset-email", text: t("mail.email_label") }), input]),
      h("button", { type: "submit", class: "btn primary", id: "reset-send", text: t("mail.reset_send") }),
    ]);
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      try {
        await api.askReset(input.value.trim(), language());
        done(status, t("mail.reset_sent"));
      } catch (err) {
        failed(status, refusal(err));
      }
    });
    page(root, t("mail.reset_title"), [form, status]);
    input.focus();
    return;
  }
  const fresh = h("input", { id: "reset-password", type: "password", autocomplete: "new-password", minlength: 8, maxlength: 256, required: true, "aria-describedby": "reset-rules" });
  const submit = h("button", { type: "submit", class: "btn primary", id: "reset-save", text: t("mail.reset_button") });
  const form = h("form", { id: "reset-choose" }, [
    h("div", { class: "field" }, [h("label", { for: "reset-password", text: t("mail.reset_new") }), fresh]),
    h("p", { class: "hint", id: "reset-rules", text: t("account.password_rules") }),
    submit,
  ]);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    submit.disabled = true;
    try {
      await api.resetPassword(token, fresh.value);
      fill(form, [h("a", { href: "/signin", class: "btn", id: "reset-sign-in", text: t("account.sign_in") })]);
      done(status, t("mail.reset_done"));
    } catch (err) {
      failed(status, refusal(err));
      submit.disabled = err.code === "token_used" || err.code === "token_expired" || err.code === "token_unknown";
    }
  });
  page(root, t("mail.reset_choose"), [form, status]);
  fresh.focus();
}
