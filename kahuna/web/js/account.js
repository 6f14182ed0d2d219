// Accounts in the browser: sign up, sign in, the account page (personal API tokens with their
// scopes, the signed-in browsers, sign out here or everywhere, change the password, delete the
// account) and who is signed in (shown in the header). Every name and token is put on
// the page as text (textContent via h()), never as HTML.

import { h, s, fill, copyText } from "./dom.js";
import { t, LANGUAGES, colourName } from "./i18n.js";
import { api, csrfToken } from "./api.js";
import { loadSeats } from "./store.js";
import { levelName, levelOfAccount } from "./names.js";
import { refusal } from "./refusal.js";
import { emailPanel, forgotLink } from "./mail.js";
import { notificationPanel } from "./notify.js";
import { pushPanel } from "./push.js";
import { myReportsPanel } from "./report.js";
import { mySanctionsPanel, renamePanel } from "./sanctions.js";
import { readerSetting } from "./reader.js";

let signedIn; // the promise of GET /api/me: the account, or null for a guest

/**
 * The signed-in account ({username, ratings, ...}) or null; asked once per page. A guest has no
 * csrf cookie (it comes with the session cookie, which scripts cannot read): no request then. A
 * session that ended on the server leaves a csrf cookie behind, which is dropped here.
 */
export function currentAccount() {
  if (signedIn === undefined) {
    signedIn = csrfToken()
      ? api.me().catch((err) => {
          if (err.status === 401) document.cookie = "csrf=; Max-Age=0; Path=/; SameSite=Lax";
          return null;
        })
      : Promise.resolve(null);
  }
  return signedIn;
}

/** The header's account corner: the username (linked to the account page), or "Sign in". */
export function accountLink() {
  const box = h("span", { class: "account-link", "data-testid": "account-link" });
  currentAccount().then((me) => {
    const label = me ? me.username : t("account.sign_in");
    fill(box, [
      h("a", { href: me ? "/account" : "/signin", class: me ? "signed-in" : "guest", title: label }, [
        personIcon(),
        h("span", { class: "account-text", text: label }),
      ]),
    ]);
  });
  return box;
}

/** The header's link to /mod, shown to a moderator or an admin only (`moderates` of GET /api/me). */
export function modLink() {
  const link = h("a", { href: "/mod", class: "wide-only", "data-testid": "mod-link", hidden: true, text: t("mod.nav") });
  currentAccount().then((me) => {
    link.hidden = !me?.moderates;
  });
  return link;
}

/** A small person outline: on a phone the guest's link shows only this (its text stays for screen readers). */
function personIcon() {
  return s("svg", { class: "person-icon", viewBox: "0 0 16 16", width: 16, height: 16, "aria-hidden": "true" }, [
    s("circle", { cx: 8, cy: 5, r: 3 }),
    s("path", { d: "M2 15c0-3.3 2.7-5.5 6-5.5s6 2.2 6 5.5" }),
  ]);
}

/** The name the server gives an AI seat of a game it creates ("Kahuna AI (easy)", kept in records). */
const SERVER_AI_NAME = /^Kahuna AI \(([\w-]+)\)$/;

/**
 * A localized name for a seat's player: a deleted account's seat shows a fixed label, and an AI
 * seat the server named after its level (`kind` "ai:<level>") is named in the page's language.
 */
export function playerName(name, kind = "") {
  if (name === "(deleted player)") return t("account.deleted_player");
  const level = typeof kind === "string" && kind.startsWith("ai:") ? kind.slice(3) : null;
  if (level && (SERVER_AI_NAME.exec(name)?.[1] === level || levelOfAccount(name) === level)) return levelName(level);
  if (!level) return defaultNameHere(name);
  return name;
}

/**
 * A default name ("Guest 4821" as a German guest's browser wrote it: "Gast 4821"; hot-seat's
 * "Player 2", which the server gives the second seat) in the page's language; any other name as
 * it is.
 */
function defaultNameHere(name) {
  for (const key of ["names.guest", "names.player"]) {
    for (const table of Object.values(LANGUAGES)) {
      const template = table[key];
      if (typeof template !== "string") continue;
      const [before, after] = template.split("{n}");
      if (after === undefined) continue;
      const number = name.startsWith(before) && name.endsWith(after) ? name.slice(before.length, name.length - after.length) : "";
      if (/^[1-9]\d{0,3}$/.test(number)) return t(key, { n: number });
    }
  }
  return name;
}

/** Both seats' names as `playerName` gives them (null stays null: a seat still waiting). */
export function playerNames(players, kinds) {
  return (players || []).map((name, seat) => (name == null ? name : playerName(name, kinds?.[seat])));
}

/**
 * Who sits in `seat`, for the words that speak of a player (chat, a rematch offer, a take-back
 * request, the hot-seat curtain): the player's name; "Ann (White)" when both seats bear the same
 * name; the colour only while the seat has no name yet.
 */
export function seatLabel(seat, players, kinds) {
  const names = playerNames(players, kinds);
  const name = names[seat];
  if (name == null || name === "") return colourName(seat);
  return names[1 - seat] === name ? `${name} (${colourName(seat)})` : name;
}

function field(id, label, attrs) {
  return h("div", { class: "field" }, [h("label", { for: id, text: label }), h("input", { id, name: id, ...attrs })]);
}

/** Sign in and adopt the games this browser holds; then go to `next` (to the account page
 * instead while a moderator's rename waits for a new name: `must_rename`). */
async function signInAndGo(username, password, next) {
  await api.signIn(username, password, loadSeats().map((s) => s.token));
  const me = await api.me().catch(() => null);
  location.href = me?.must_rename ? "/account" : next;
}

function credentialsForm({ id, title, intro, button, autocomplete, onSubmit, footer, rules = null }) {
  const error = h("p", { class: "message", role: "alert", "data-testid": "account-error" });
  const form = h("form", { class: "account-form card-panel", id }, [
    h("h1", { text: title }),
    intro ? h("p", { class: "hint", text: intro }) : null,
    field("username", t("account.username"), {
      type: "text",
      autocomplete: "username",
      required: true,
      minlength: 2,
      maxlength: 20,
      pattern: "[A-Za-z0-9_\\-]{2,20}",
      autocapitalize: "none",
      spellcheck: "false",
    }),
    field("password", t("account.password"), {
      type: "password",
      autocomplete,
      required: true,
      minlength: 8,
      maxlength: 256,
      "aria-describedby": rules ? "password-rules" : null,
    }),
    rules ? h("p", { class: "hint", id: "password-rules", "data-testid": "password-rules", text: rules }) : null,
    h("button", { type: "submit", class: "btn primary", id: `${id}-submit`, text: button }),
    error,
    footer,
  ]);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    error.textContent = "";
    const submit = form.querySelector("button[type=submit]");
    submit.disabled = true;
    try {
      await onSubmit(form.elements.username.value.trim(), form.elements.password.value);
    } catch (err) {
      error.textContent = refusal(err);
      submit.disabled = false;
    }
  });
  return form;
}

/** /signup */
export function mountSignUp(root) {
  const form = credentialsForm({
    id: "signup",
    title: t("account.sign_up"),
    intro: t("account.sign_up_intro"),
    button: t("account.sign_up"),
    autocomplete: "new-password",
    rules: t("account.password_rules"),
    onSubmit: async (username, password) => {
      await api.signUp(username, password);
      await signInAndGo(username, password, "/account");
    },
    footer: h("p", {}, [t("account.have_account"), " ", h("a", { href: "/signin", text: t("account.sign_in") })]),
  });
  fill(root, [h("div", { class: "lobby account-page" }, [form])]);
  document.title = `${t("account.sign_up")} — Kahuna`;
  form.elements.username.focus();
}

/** /signin */
export function mountSignIn(root) {
  const form = credentialsForm({
    id: "signin",
    title: t("account.sign_in"),
    intro: t("account.sign_in_intro"),
    button: t("account.sign_in"),
    autocomplete: "current-password",
    onSubmit: (username, password) => signInAndGo(username, password, "/"),
    footer: h("div", {}, [
      h("p", {}, [t("account.no_account"), " ", h("a", { href: "/signup", text: t("account.sign_up") })]),
      forgotLink(),
    ]),
  });
  fill(root, [h("div", { class: "lobby account-page" }, [form])]);
  document.title = `${t("account.sign_in")} — Kahuna`;
  form.elements.username.focus();
}

/** /account: who is signed in, its ratings, its tokens, its sessions, the password, sign out, delete. */
export async function mountAccount(root) {
  document.title = `${t("account.title")} — Kahuna`;
  const me = await currentAccount();
  if (!me) {
    location.href = "/signin";
    return;
  }
  const status = h("p", { class: "message", role: "status" });
  const ratings = h(
    "ul",
    { class: "ratings" },
    Object.entries(me.ratings).map(([pool, r]) =>
      h("li", { text: `${t(`account.pool_${pool}`)}: ${r.rating}${r.provisional ? "?" : ""} (${t(r.games === 1 ? "account.games_one" : "account.games", { n: r.games })})` }),
    ),
  );
  const tokenList = h("ul", { class: "token-list", "data-testid": "token-list" });
  const shown = h("div", { class: "new-token", "aria-live": "polite" });
  const tokenName = h("input", { id: "token-name", type: "text", maxlength: 40, required: true });
  const tokenPassword = h("input", { id: "token-password", type: "password", autocomplete: "current-password", required: true });
  const scopeBoxes = ["read", "play"].map((scope) =>
    h("input", { type: "checkbox", id: `token-scope-${scope}`, name: "scope", value: scope, checked: scope === "read" }),
  );
  const tokens = h("section", { class: "card-panel tokens", "aria-labelledby": "tokens-title" }, [
    h("h2", { id: "tokens-title", text: t("account.tokens") }),
    h("p", { class: "hint", text: t("account.tokens_help") }),
    tokenList,
    h(
      "form",
      {
        class: "token-form",
        id: "token-form",
        onsubmit: async (e) => {
          e.preventDefault();
          const scopes = scopeBoxes.filter((box) => box.checked).map((box) => box.value);
          if (!scopes.length) {
            status.classList.remove("ok");
            status.textContent = t("account.need_scope");
            return;
          }
          try {
            const made = await api.createToken(tokenName.value.trim(), tokenPassword.value, scopes);
            tokenName.value = "";
            tokenPassword.value = "";
            showToken(shown, made.token);
            await listTokens(tokenList, status);
          } catch (err) {
            status.classList.remove("ok");
            status.textContent = refusal(err);
          }
        },
      },
      [
        h("div", { class: "field" }, [h("label", { for: "token-name", text: t("account.token_name") }), tokenName]),
        h("fieldset", { class: "choice token-scopes" }, [
          h("legend", { text: t("account.token_scopes") }),
          ...scopeBoxes.map((box) =>
            h("div", { class: "choice" }, [box, h("label", { for: box.id, text: t(`account.scope_${box.value}`) })]),
          ),
        ]),
        h("div", { class: "field" }, [
          h("label", { for: "token-password", text: t("account.password_again") }),
          tokenPassword,
        ]),
        h("button", { type: "submit", class: "btn", id: "token-create", text: t("account.token_create") }),
      ],
    ),
    shown,
  ]);
  const sessionList = h("ul", { class: "session-list", "data-testid": "session-list" });
  const sessions = h("section", { class: "card-panel sessions", "aria-labelledby": "sessions-title" }, [
    h("h2", { id: "sessions-title", text: t("account.sessions") }),
    h("p", { class: "hint", text: t("account.sessions_help") }),
    sessionList,
    h("button", {
      type: "button",
      class: "btn",
      id: "sign-out-everywhere",
      text: t("account.sign_out_everywhere"),
      onclick: async () => {
        try {
          await api.signOutEverywhere();
          location.href = "/signin";
        } catch (err) {
          status.classList.remove("ok");
          status.textContent = refusal(err);
        }
      },
    }),
  ]);
  const current = h("input", { id: "password-current", type: "password", autocomplete: "current-password", required: true });
  const fresh = h("input", { id: "password-new", type: "password", autocomplete: "new-password", minlength: 8, required: true });
  const passwordPanel = h("details", { class: "card-panel change-password" }, [
    h("summary", { text: t("account.password_change") }),
    h("p", { class: "hint", text: t("account.password_change_help") }),
    h(
      "form",
      {
        id: "password-form",
        onsubmit: async (e) => {
          e.preventDefault();
          try {
            const changed = await api.changePassword(current.value, fresh.value);
            current.value = fresh.value = "";
            status.textContent = t("account.password_changed", { sessions: changed.signed_out, tokens: changed.revoked_tokens });
            status.classList.add("ok"); // done, not refused: no error's red
            await Promise.all([listTokens(tokenList, status), listSessions(sessionList, status)]);
          } catch (err) {
            status.classList.remove("ok");
            status.textContent = refusal(err);
          }
        },
      },
      [
        h("div", { class: "field" }, [h("label", { for: "password-current", text: t("account.password_current") }), current]),
        h("div", { class: "field" }, [h("label", { for: "password-new", text: t("account.password_new") }), fresh]),
        h("button", { type: "submit", class: "btn", id: "password-change", text: t("account.password_change_button") }),
      ],
    ),
  ]);
  const password = h("input", { id: "delete-password", type: "password", autocomplete: "current-password", required: true });
  const danger = h("details", { class: "card-panel delete-account" }, [
    h("summary", { text: t("account.delete") }),
    h("p", { text: t("account.delete_help") }),
    h(
      "form",
      {
        id: "delete-form",
        onsubmit: async (e) => {
          e.preventDefault();
          try {
            await api.deleteAccount(password.value);
            location.href = "/";
          } catch (err) {
            status.textContent = refusal(err);
          }
        },
      },
      [
        h("div", { class: "field" }, [h("label", { for: "delete-password", text: t("account.password") }), password]),
        h("button", { type: "submit", class: "btn", id: "delete-account", text: t("account.delete_button") }),
      ],
    ),
  ]);
  fill(root, [
    h("div", { class: "lobby account-page" }, [
      h("section", { class: "card-panel" }, [
        h("h1", { text: t("account.title") }),
        h("p", {}, [t("account.signed_in_as", { name: "" }), h("strong", { id: "account-name", text: me.username })]),
        ratings,
        h("p", {}, [
          h("button", {
            type: "button",
            class: "btn",
            id: "sign-out",
            text: t("account.sign_out"),
            onclick: async () => {
              try {
                await api.signOut();
                location.href = "/";
              } catch (err) {
                status.textContent = refusal(err);
              }
            },
          }),
        ]),
        status,
      ]),
      renamePanel(me),
      emailPanel(),
      myReportsPanel(),
      mySanctionsPanel(),
      notificationPanel(),
      pushPanel(),
      readerSetting(),
      tokens,
      sessions,
      passwordPanel,
      danger,
    ]),
  ]);
  await Promise.all([listTokens(tokenList, status), listSessions(sessionList, status)]);
}

async function listSessions(list, status) {
  let found;
  try {
    found = await api.sessions();
  } catch (err) {
    status.textContent = refusal(err);
    return;
  }
  fill(
    list,
    found.map((session) => {
      const name = session.user_agent || t("account.session_unknown");
      return h("li", { class: "session", dataset: { id: session.id } }, [
        h("span", { class: "session-agent", text: name }),
        " ",
        h("small", { text: t("account.session_since", { when: session.created }) }),
        " ",
        session.current
          ? h("strong", { class: "session-current", text: t("account.session_current") })
          : h("button", {
              type: "button",
              class: "btn end-session",
              text: t("account.session_end"),
              "aria-label": t("account.session_end_named", { name }),
              onclick: async () => {
                try {
                  await api.endSession(session.id);
                } catch (err) {
                  status.textContent = refusal(err);
                }
                await listSessions(list, status);
              },
            }),
      ]);
    }),
  );
}

function showToken(box, token) {
  const input = h("input", { type: "text", readonly: true, value: token, id: "new-token", class: "link-input" });
  fill(box, [
    h("p", { class: "hint", text: t("account.token_once") }),
    h("div", { class: "copy-line" }, [
      input,
      h("button", { type: "button", class: "btn copy", text: t("share.copy"), onclick: () => copyText(token, input) }),
    ]),
  ]);
  input.select();
}

async function listTokens(list, status) {
  let tokens;
  try {
    tokens = await api.tokens();
  } catch (err) {
    status.textContent = refusal(err);
    return;
  }
  if (!tokens.length) {
    fill(list, [h("li", { class: "hint", text: t("account.no_tokens") })]);
    return;
  }
  fill(
    list,
    tokens.map((token) =>
      h("li", { class: "token", dataset: { id: token.id } }, [
        h("strong", { class: "token-name", text: token.name }),
        " ",
        h("small", {
          text: token.last_used ? t("account.token_used", { when: token.last_used }) : t("account.token_unused"),
        }),
        " ",
        h("small", {
          class: "token-scopes",
          text: t("account.token_can", { scopes: token.scopes.map((scope) => t(`account.scope_short_${scope}`)).join(", ") }),
        }),
        " ",
        h("button", {
          type: "button",
          class: "btn revoke",
          text: t("account.token_revoke"),
          "aria-label": t("account.token_revoke_named", { name: token.name }),
          onclick: async () => {
            try {
              await api.revokeToken(token.id);
            } catch (err) {
              status.textContent = refusal(err);
            }
            await listTokens(list, status);
          },
        }),
      ]),
    ),
  );
}
