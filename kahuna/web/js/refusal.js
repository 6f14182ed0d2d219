// The words for an API refusal on the account pages (account.js, mail.js): a code and its
// parameters from the server, worded in the page's language.

import { t } from "./i18n.js";

/** The words for an API refusal on these pages. */
export function refusal(err) {
  if (err.code === "rate_limited") return t("account.too_many", { s: err.retryAfter || 60 });
  if (err.code === "taken") return t("account.taken");
  if (err.code === "unauthorized") return t("account.wrong");
  if (err.code === "account_closed") return t("account.closed");
  if (err.code === "signups_blocked") return t("account.signups_blocked");
  if (err.code === "invalid" && err.reason?.code) {
    const key = `account.why.${err.reason.code}`;
    const words = t(key, err.reason);
    if (words !== key) return t("account.refused", { reason: words });
  }
  if (err.code === "invalid") return t("account.refused", { reason: err.message });
  if (err.code === "offline") return t("lobby.offline");
  if (["invalid_email", "mail_off", "token_unknown", "token_used", "token_expired"].includes(err.code)) return t(`mail.${err.code}`);
  return err.message;
}
