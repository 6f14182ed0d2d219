// Following, blocking and who is online (docs/community.md, "Follows, blocks and who is online"):
// the online dot beside a name, the line "N players online · M games running" of the home page and
// the lobby, the page /following (the players one follows, each one click from the game it plays,
// and the players one blocks), and the words for the server's refusals. Names go on the page as
// text only.

import { h, fill } from "./dom.js";
import { t } from "./i18n.js";
import { api, ApiError } from "./api.js";
import { currentAccount } from "./account.js";

const COUNTS_EVERY_MS = 15000;

/** A dot that says, in colour and in words (title and hidden text), whether a player is online. */
export function onlineDot(online) {
  const words = t(online ? "social.online" : "social.offline");
  return h("span", { class: `online-dot${online ? " on" : ""}`, title: words, "data-online": String(online) }, [
    h("span", { class: "visually-hidden", text: words }),
  ]);
}

/** A player's name linked to the profile, after its online dot. */
export function nameWithDot(username, online) {
  return h("span", { class: "user-name" }, [onlineDot(online), h("a", { href: `/users/${encodeURIComponent(username)}`, text: username })]);
}

/** The server's refusal of a follow or a block, in words (its reason code, never its message). */
export function refusalText(err) {
  const known = ["own_account", "already_following", "not_following", "blocked", "blocking", "already_blocked", "not_blocked", "too_many_follows", "too_many_blocks", "not_found", "unauthorized"];
  if (err instanceof ApiError && known.includes(err.code)) return t(`social.err_${err.code}`);
  return t("lobby.offline");
}

/** "N players online · M games running", refreshed while the element is on the page. */
export function onlineCounts() {
  const line = h("p", { class: "online-counts hint", "data-testid": "online-counts", "aria-live": "off" });
  const update = async () => {
    if (!line.isConnected && line.dataset.shown) return; // the page was left: stop
    try {
      const counts = await api.online();
      line.textContent = `${t("social.players_online", { n: counts.players })} · ${t("social.games_running", { n: counts.games })}`;
      line.dataset.shown = "1";
    } catch {
      line.textContent = "";
    }
    setTimeout(update, COUNTS_EVERY_MS);
  };
  update();
  return line;
}

function followedRow(user) {
  return h("li", { class: "followed", "data-user": user.username }, [
    nameWithDot(user.username, user.online),
    user.playing
      ? h("a", { class: "btn watch-game", href: `/watch/${encodeURIComponent(user.playing)}`, text: t("social.watch") })
      : h("span", { class: "hint", text: t(user.online ? "social.not_playing" : "social.offline") }),
  ]);
}

/** /following: the players this account follows (online first) and the players it blocks. */
export async function mountFollowing(root) {
  document.title = `${t("social.following_title")} — Kahuna`;
  const me = await currentAccount();
  if (!me) {
    fill(root, [h("p", { class: "message" }, [h("a", { href: "/signin", text: t("social.sign_in_first") })])]);
    return;
  }
  const status = h("p", { class: "message", role: "status", "data-testid": "following-status" });
  const list = h("ul", { class: "user-list", "data-testid": "following-list" });
  const blocked = h("ul", { class: "user-list", "data-testid": "blocks-list" });
  async function load() {
    try {
      const [following, blocks] = await Promise.all([api.following(), api.blocks()]);
      const users = [...following.users].sort((a, b) => Number(b.online) - Number(a.online));
      fill(list, users.length ? users.map(followedRow) : [h("li", { class: "hint", text: t("social.follows_none") })]);
      fill(
        blocked,
        blocks.users.length
          ? blocks.users.map((name) =>
              h("li", {}, [
                h("a", { href: `/users/${encodeURIComponent(name)}`, text: name }),
                h("button", { type: "button", class: "btn", onclick: () => unblock(name), text: t("social.unblock") }),
              ]),
            )
          : [h("li", { class: "hint", text: t("social.blocks_none") })],
      );
    } catch (err) {
      status.textContent = refusalText(err);
    }
  }
  async function unblock(name) {
    try {
      await api.unblock(name);
      await load();
    } catch (err) {
      status.textContent = refusalText(err);
    }
  }
  fill(root, [
    h("section", { class: "following-page" }, [
      h("h1", { text: t("social.following_title") }),
      onlineCounts(),
      status,
      list,
      h("h2", { text: t("social.blocks_title") }),
      h("p", { class: "hint", text: t("social.blocks_help") }),
      blocked,
    ]),
  ]);
  await load();
  const refresh = setInterval(() => (root.contains(list) ? load() : clearInterval(refresh)), COUNTS_EVERY_MS);
}
